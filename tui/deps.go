package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/units"
)

// axisLabel is a sweep axis's short name in tables (shortName), a file
// or module parameter as the plan spells it.
func axisLabel(m *regs.Map, a plan.Axis) string {
	if a.Kind == plan.KindRegister {
		return shortName(m, a.Ref)
	}
	return a.SpecName()
}

// SweepPlan is the plan on the Sweep tab: the sweep's own plan.Plan
// (register values in decimal) and where it came from. Unlike the plan
// the sweep runs, Mode stays "" (the default, grid) until the text names
// one, so the text shows no mode=.
type SweepPlan struct {
	plan.Plan
	// Source says where the plan came from ("screen" or a file name).
	Source string
}

// Points is the number of points of the full grid.
func (p SweepPlan) Points() int {
	if len(p.Axes) == 0 {
		return 0
	}
	n := 1
	for _, a := range p.Axes {
		n *= len(a.Values)
	}
	return n
}

// A point on the Sweep tab is the sweep's own record of it
// (results.PointRecord), folded over all its visits (foldVisit).

// rankable reports whether the point may be ranked.
func rankable(p results.PointRecord) bool {
	return !p.Baseline && statusOK(p) && len(p.Rates) > 0
}

// statusOK reports whether nothing excludes the point from the ranking.
func statusOK(p results.PointRecord) bool { return p.Status == "" || p.Status == rank.StatusOK }

// versus is the sweep's comparison of the point with the baseline, or "".
func versus(p results.PointRecord) string {
	if p.VsBaseline == nil {
		return ""
	}
	return p.VsBaseline.String()
}

// Sweeper is the seam to the sweep runner (cmd/citune's `citune sweep`
// wiring; the tests wrap the real runner). Run runs p (Mode "" is the
// default) and restores the original values on every exit path; a
// cancelled run returns an error wrapping context.Canceled. resume
// continues the last run of the same plan. onEvent gets each event on
// the sweeper's goroutine, the last (event.SweepEnded) with the outcome.
// Run returns the results file ("" when it could not be opened).
type Sweeper interface {
	Run(ctx context.Context, p plan.Plan, resume bool, onEvent func(event.Event)) (string, error)
}

// Session is the seam to the undo session (an undo.Session) every write
// goes through. Touched and StartValue read a snapshot and take no lock:
// View calls them while a restore may hold the session.
type Session interface {
	// Apply writes changes: originals journalled first, read back after.
	Apply(changes []regs.Change) ([]regs.Result, error)
	// Restore returns refs to their starting values, every value the
	// session changed when refs is nil.
	Restore(refs []regs.Ref) ([]Restored, error)
	// Touched lists the fields the session changed, first changed first;
	// StartValue is a field's value when the session first changed it.
	Touched() []regs.Ref
	StartValue(ref regs.Ref) (uint32, bool)
	// Journal is the journal's path ("" when it keeps none).
	Journal() string
	// Stops reports whether err ends the session (the journal vanished,
	// was replaced or damaged): it restores from the originals in memory.
	Stops(err error) bool
}

// Restored is one value a restore put back (or found back already:
// Wrote false); Line is how the session says it ("USBCMD.ITC = 8").
type Restored struct {
	Name, Want, Got string
	Held, Wrote     bool
	Line            string
}

// DeviceTree is the seam to the device-tree output (sweep/dtsout, which
// tui does not import), supplied by cmd/citune on the session's target.
type DeviceTree interface {
	// Text is the export's text as `citune dts` prints it, and the
	// warning dts would print beside it ("" for none).
	Text(x DTSExport) (text, note string)
	// NotPermanent is the ranking's rule (rank.Policy.NotPermanent) for
	// a sweep recorded with header h on this controller, as the sweep and
	// `citune dts` rank.
	NotPermanent(h results.Header) func(changes map[string]string) []string
}

// DTSExport is what the export screen shows.
type DTSExport struct {
	// Winner is set for the sweep winner's export (Results: its results
	// file, or ""); otherwise the export is of the current settings.
	Winner  bool
	Results string
	// Snapshot is the live values; Role the controller's role as the
	// session decides it ("" unknown).
	Snapshot soc.Snapshot
	Role     regs.Role
	// Header is the fragment's comment lines; Settings its settings with
	// their comments (nil: every knob's live value).
	Header   []string
	Settings []DTSSetting
}

// DTSSetting is one setting of an export, named as the plan names it.
type DTSSetting struct{ Name, Value, Comment string }

// PlanLoader reads a plan file and validates it against m.
type PlanLoader func(path string, m *regs.Map) (SweepPlan, error)

// Config is everything a session needs. Target, Start and Undo are
// required; the rest may be nil, and the UI then says what is missing.
type Config struct {
	Target *soc.Target
	// Start is the snapshot taken when the session began.
	Start soc.Snapshot
	// Undo records and undoes every change the session makes (required);
	// cmd/citune halts it after the program was killed.
	Undo Session
	// Ctx is the parent of every background job; Jobs counts them so that
	// the caller can wait for them before restoring.
	Ctx  context.Context
	Jobs *sync.WaitGroup
	// Prober runs the probe once per run (a probe.Series); its progress
	// may come from any goroutine. NoProbe says why there is none.
	Prober  probe.Probe
	NoProbe string
	// Sweeper runs sweeps; NoSweep says why there is none.
	Sweeper Sweeper
	NoSweep string
	// LoadPlan reads plan files; nil disables loading.
	LoadPlan PlanLoader
	// WriteFile writes exports. Without replace, an existing file gives
	// an error that is fs.ErrExist, and the session asks before it writes
	// again with replace.
	WriteFile func(path string, data []byte, replace bool) error
	// DTS makes the exports' text and ranks loaded results; nil disables
	// both.
	DTS DeviceTree
	// Role is the controller's current role; empty means: decide from
	// USBMODE.CM and the controller's roles.
	Role regs.Role
	// ByteUnit is the unit byte rates are shown in (MiB/s when empty), as
	// the other commands show them (--units); a probe's own unit as it is.
	ByteUnit units.Display
	// Interval is the initial refresh interval (default 1s).
	Interval time.Duration
	// Tick schedules refreshes (nil: tea.Tick); tests drive it by hand.
	Tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// Mono is for terminals without colour: attributes only, no window
	// title.
	Mono bool
	// Styles defaults to DefaultStyles (or MonoStyles with Mono).
	Styles *Styles
}
