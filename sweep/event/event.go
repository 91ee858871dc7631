// Package event holds a sweep's events: everything the runner tells the
// world goes out as one Event carrying the very record the results file
// gets. Types only, so that a consumer (the TUI) follows a sweep without
// importing the runner.
package event

import (
	"time"

	"github.com/citune/citune/sweep/results"
)

// Kind says what happened in a sweep.
type Kind int

// Event kinds, in the order a sweep meets them.
const (
	// SweepStarted: the header (Header) or resume record (Resume) was
	// written; Notes are Prepare's.
	SweepStarted Kind = iota + 1
	// PointStarted: a visit begins; its Settings (Label) are applied next.
	PointStarted
	// RunFinished: one probe run, warm-up or timed, with its check (Run).
	RunFinished
	// PointClosed: a visit ended, with its status and statistics (Closed).
	PointClosed
	// PointEliminated: the adaptive race dropped a point (Message: why).
	PointEliminated
	// ModuleReload: the driver modules are reloaded with new parameters.
	ModuleReload
	// SweepInterrupted: the context was cancelled; the restore follows.
	SweepInterrupted
	// SettingsRestored: the restore ran (RestoreFailed if it did not work).
	SettingsRestored
	// SweepEnded: the session's end record (End) was written.
	SweepEnded
	// SecondLook: the verdict's second look begins on Point.
	SecondLook
	// ModelFitted: a model-mode sweep fitted its model (Model).
	ModelFitted
	// BaselineScheduled: drift decided the interval to the next baseline.
	BaselineScheduled
	// WarmupsDecided: the first runs decided to skip warm-ups, or not.
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
func (k Kind) String() string {
	if k > 0 && int(k) < len(eventNames) {
		return eventNames[k]
	}
	return "unknown"
}

// Event is one thing that happened in a sweep. The pointers are the
// records the results file gets, shared with the writer: consumers read
// them and keep no reference they change.
type Event struct {
	Kind    Kind
	Session int
	Time    time.Time
	// Point is the point's key (point events).
	Point string
	// Settings and Label name the point (PointStarted, PointEliminated):
	// values by axis name, and the text the progress shows.
	Settings map[string]string
	Label    string
	// Message is the event's text for people. Replayed marks an event the
	// results file being resumed already records: nothing is written for
	// it. RestoreFailed: see SettingsRestored.
	Message       string
	Replayed      bool
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
