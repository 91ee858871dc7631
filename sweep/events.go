package sweep

import (
	"time"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// This file holds the sweep's events: everything the runner tells the
// world goes out as one Event to its consumers, in this order:
//
//	runner --emit(Event)--> 1. the JSONL writer (Out: the results record of the event)
//	                        2. the printer (Log: progress lines for people)
//	                        3. OnEvent (the TUI, tests, anything else)
//
// Every consumer sees every event, also when writing the record failed
// (the restore message must reach the user even then); emit returns the
// writer's error, which ends the sweep where a record is required.

// EventKind says what happened in a sweep.
type EventKind int

// Event kinds, in the order a sweep meets them.
const (
	// SweepStarted: the header (Header, a new sweep) or the resume
	// record (Resume) was written; Notes are Prepare's notes.
	SweepStarted EventKind = iota + 1
	// PointStarted: a visit begins; the point's settings (Settings,
	// Label) are about to be applied.
	PointStarted
	// RunFinished: one probe run (warm-up or timed) with its held check
	// (Run).
	RunFinished
	// PointClosed: a visit ended with its status, StatusOK, StatusNotHeld,
	// StatusCorrupt or StatusFailed, and its statistics over all visits
	// (Closed).
	PointClosed
	// PointEliminated: the adaptive race dropped a point (Message says
	// why). Replayed marks one the results file being resumed already
	// records: nothing is written for it.
	PointEliminated
	// ModuleReload: the driver modules are about to be reloaded with new
	// parameters (Message).
	ModuleReload
	// SweepInterrupted: the context was cancelled; the restore follows.
	// It has no record.
	SweepInterrupted
	// SettingsRestored: the restore at the end ran; Message says whether
	// it worked, RestoreFailed is set when it did not.
	SettingsRestored
	// SweepEnded: the session's end record (End) was written.
	SweepEnded
	// SecondLook: the verdict's second look begins on Point (Message
	// says why and how many runs); Replayed when the file being resumed
	// records it already.
	SecondLook
	// ModelFitted: a model-mode sweep fitted its model (Model; Message
	// says it in a line).
	ModelFitted
	// BaselineScheduled: after a baseline visit between points the
	// interval to the next one was decided by drift (Message says how).
	BaselineScheduled
	// WarmupsDecided: the visits' first runs decided that warm-ups are
	// skipped, or taken again (Message says why).
	WarmupsDecided
)

var eventNames = [...]string{
	SweepStarted:      "started",
	PointStarted:      results.EventApply,
	RunFinished:       results.TypeRun,
	PointClosed:       results.TypePoint,
	PointEliminated:   results.EventEliminated,
	ModuleReload:      results.EventReload,
	SweepInterrupted:  "interrupted",
	SettingsRestored:  results.EventRestore,
	SweepEnded:        results.TypeEnd,
	SecondLook:        results.EventSecondLook,
	ModelFitted:       results.EventModel,
	BaselineScheduled: results.EventBaselineSchedule,
	WarmupsDecided:    results.EventWarmups,
}

// String is the kind's name; for kinds written as event records it is
// the record's "event" ("apply", "eliminated", "reload", "restore").
func (k EventKind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
}

// Event is one thing that happened in a sweep. The pointers are the
// records the results file gets, shared with the writer: consumers read
// them and keep no reference they change.
type Event struct {
	Kind    EventKind
	Session int
	Time    time.Time
	// Point is the point's key (point events).
	Point string
	// Settings and Label name the point (PointStarted, PointEliminated):
	// values by axis name, and the text the progress shows.
	Settings map[string]string
	Label    string
	// Message is the text of PointStarted ("applying ..."),
	// PointEliminated, ModuleReload and SettingsRestored.
	Message string
	// Replayed: see PointEliminated.
	Replayed bool
	// RestoreFailed: see SettingsRestored.
	RestoreFailed bool
	// Notes are Prepare's warnings and grouping notes (SweepStarted).
	Notes []string

	Header *results.Header       // SweepStarted of a new sweep
	Resume *results.ResumeRecord // SweepStarted of a resumed sweep
	Run    *results.RunRecord    // RunFinished
	Closed *results.PointRecord  // PointClosed
	End    *results.EndRecord    // SweepEnded
	Model  *results.ModelFit     // ModelFitted
}

// record is what the results file records for e; nil for nothing.
func (e Event) record() any {
	switch e.Kind {
	case SweepStarted:
		if e.Header != nil {
			return e.Header
		}
		if e.Resume != nil {
			return e.Resume
		}
	case RunFinished:
		return e.Run
	case PointClosed:
		return e.Closed
	case SweepEnded:
		return e.End
	case PointStarted, ModuleReload, SettingsRestored, PointEliminated, SecondLook, ModelFitted, BaselineScheduled, WarmupsDecided:
		if e.Replayed {
			return nil
		}
		return results.EventRecord{Type: results.TypeEvent, Session: e.Session, Time: e.Time, Event: e.Kind.String(), Point: e.Point, Message: e.Message, Model: e.Model}
	}
	return nil
}

// emit hands e to every consumer: the results file, the printer and
// OnEvent. It returns the results file's error.
func (r *state) emit(e Event) error {
	e.Session = r.session
	if e.Time.IsZero() {
		e.Time = r.Clock.Now().UTC()
	}
	var err error
	rec := e.record()
	if er, ok := rec.(results.EventRecord); ok && r.sim != nil {
		sim := e.Time.UTC()
		er.Time, er.SimTime = r.wall().UTC(), &sim
		rec = er
	}
	if rec != nil {
		err = r.Out.Write(rec)
	}
	r.print(e)
	if r.OnEvent != nil {
		r.OnEvent(e)
	}
	return err
}

// print is the consumer that writes progress for people to Log.
func (r *state) print(e Event) {
	switch e.Kind {
	case SweepStarted:
		for _, n := range e.Notes {
			r.logf("%s\n", n)
		}
	case PointClosed:
		if e.Closed.Status == rank.StatusCorrupt {
			r.logf("!!! CORRUPT DATA at %s: %s\n", rank.SettingsString(e.Closed.Settings), e.Closed.Reason)
		}
		r.progress(e.Closed.Visit, e.Closed)
	case PointEliminated:
		r.logf("    dropped %s: %s\n", rank.SettingsString(e.Settings), e.Message)
	case ModuleReload, SettingsRestored:
		r.logf("%s\n", e.Message)
	case SecondLook, ModelFitted, BaselineScheduled, WarmupsDecided:
		if !e.Replayed {
			r.logf("%s\n", e.Message)
		}
	case SweepInterrupted:
		r.logf("interrupted: restoring the original settings\n")
	}
}
