// Package event holds a sweep's events: everything the runner (package
// sweep) tells the world goes out as one Event, carrying the very record
// the results file gets, to the results writer, the CLI's printer and
// the runner's OnEvent, in that order. It is a package of its own, with
// the types only, so that a consumer (the TUI) follows a sweep without
// importing the runner that makes one.
package event

import (
	"time"

	"github.com/citune/citune/sweep/results"
)

// Kind says what happened in a sweep.
type Kind int

// Event kinds, in the order a sweep meets them.
const (
	// SweepStarted: the header (Header, a new sweep) or the resume
	// record (Resume) was written; Notes are Prepare's notes.
	SweepStarted Kind = iota + 1
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
