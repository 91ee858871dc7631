package tui

import (
	"context"

	"github.com/citune/citune/units"

	tea "charm.land/bubbletea/v2"

	"sync"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// axisLabel is the short name of a sweep axis shown in tables: the
// field name when it is unique in the map, else REG.FIELD; a file or
// module parameter as the plan spells it (sysfs:PATH, modparam:M.P).
func axisLabel(m *regs.Map, a plan.Axis) string {
	if a.Kind == plan.KindRegister {
		return shortName(m, a.Ref)
	}
	return a.SpecName()
}

// SweepPlan is the plan on the Sweep tab: the sweep's own plan.Plan
// (the axes plan.ParseAxis checked, register values in decimal; the
// settings a plan file gave, else the sweep's defaults) and where it
// came from, which is the screen's alone. The only difference from the
// plan the sweep runs: Mode stays "" until the plan text names one (the
// sweep's default, grid, runs; the text then shows no mode=).
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
// (results.PointRecord) as of its last visit, with what the record does
// not hold folded over all its visits (sweepTab.follow, with
// foldVisit): Rates pools the runs of every visit, and Status, Reason
// and Changed are the first that excluded the point from the ranking
// (an elimination in the adaptive race gives way to a later failure),
// as in the sweep's own ranking.

// rankable reports whether the point may be ranked.
func rankable(p results.PointRecord) bool {
	return !p.Baseline && statusOK(p) && len(p.Rates) > 0
}

// statusOK reports whether nothing excludes the point from the ranking.
func statusOK(p results.PointRecord) bool { return p.Status == "" || p.Status == rank.StatusOK }

// versus is the sweep's comparison of the point with the baseline ("+4.1 %
// (95 % CI 3.2-5.0)"); empty when it has none.
func versus(p results.PointRecord) string {
	if p.VsBaseline == nil {
		return ""
	}
	return p.VsBaseline.String()
}

// Sweeper is the seam between the Sweep tab and the sweep: cmd/citune
// supplies it (the wiring `citune sweep` uses); the tests wrap the real
// runner. Run runs p (a Mode "" is the sweep's default): it applies each
// point, verifies it held, probes, records, and restores the original
// values on every exit path (including cancellation); a cancelled run
// returns an error wrapping context.Canceled. resume continues the
// results of the last run of the same plan (a stopped sweep), skipping
// the points it finished. onEvent gets each of the sweep's events, on
// the sweeper's goroutine; the last, event.SweepEnded, carries the
// outcome (none when the sweep did not get to run). Run returns the
// results file ("" when it could not be opened).
type Sweeper interface {
	Run(ctx context.Context, p plan.Plan, resume bool, onEvent func(event.Event)) (string, error)
}

// Session is the seam to the undo session cmd/citune opens on the target
// (an undo.Session, owner kind tui): the session's writes, its own and
// its sweeps', go through it, and it restores them. Touched and
// StartValue read a snapshot of what the session changed and take no
// lock: View calls them while a restore may hold the session.
type Session interface {
	// Apply writes changes: originals journalled first, read back after.
	Apply(changes []regs.Change) ([]regs.Result, error)
	// Restore returns refs to their starting values, every value the
	// session changed when refs is nil.
	Restore(refs []regs.Ref) ([]Restored, error)
	// Touched lists the register fields the session changed, first
	// changed first; StartValue is a field's value when the session first
	// changed it.
	Touched() []regs.Ref
	StartValue(ref regs.Ref) (uint32, bool)
	// Journal is the journal's path ("" when it keeps none).
	Journal() string
	// Stops reports whether err ends the session: the journal vanished,
	// was replaced or damaged under it, and what it changed goes back to
	// the originals it keeps in memory.
	Stops(err error) bool
}

// Restored is one value a restore put back (or found back already:
// Wrote false); Line is how the session says it ("USBCMD.ITC = 8").
type Restored struct {
	Name, Want, Got string
	Held, Wrote     bool
	Line            string
}

// DeviceTree is the seam to the device-tree output (package
// sweep/dtsout, which tui does not import: it is behaviour, not data the
// session shows); cmd/citune supplies it, on the session's target.
type DeviceTree interface {
	// Text is the export's text for what the screen shows, as `citune
	// dts` prints it, and the warning dts would print beside it ("" for
	// none), which the export screen shows.
	Text(x DTSExport) (text, note string)
	// NotPermanent is the ranking's rule (rank.Policy.NotPermanent) for
	// a sweep recorded with header h on this controller: the settings
	// no device-tree property or kernel parameter can make permanent,
	// which the verdict never recommends (as the sweep and `citune dts`
	// rank).
	NotPermanent(h results.Header) func(changes map[string]string) []string
}

// DTSExport is what the export screen shows.
type DTSExport struct {
	// Winner is set for the sweep winner's export, Results then naming
	// the sweep's results file ("" when it has none); otherwise the
	// export is of the current settings.
	Winner  bool
	Results string
	// Snapshot is the live values; Role the controller's role as the
	// session decides it ("" unknown).
	Snapshot soc.Snapshot
	Role     regs.Role
	// Header and Settings are the screen's own fragment: its comment
	// lines, and the settings with their comments (nil: every knob's
	// live value).
	Header   []string
	Settings []DTSSetting
}

// DTSSetting is one setting of an export: a field (or file, module
// parameter) as the plan names it, its value and its comment.
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
	// Prober runs the probe once per run, with the accounting (a
	// probe.Series); its progress may come from any goroutine. NoProbe
	// says why there is none.
	Prober  probe.Probe
	NoProbe string
	// Sweeper runs sweeps; NoSweep says why there is none.
	Sweeper Sweeper
	NoSweep string
	// LoadPlan reads plan files; nil disables loading.
	LoadPlan PlanLoader
	// WriteFile writes exports. An existing file is replaced only with
	// replace set; without it WriteFile returns an error that is
	// fs.ErrExist, and the session asks before it writes again with
	// replace (cmd/citune's writeOutput, which never replaces a results
	// file).
	WriteFile func(path string, data []byte, replace bool) error
	// DTS makes the exports' text and the rule loaded results files are
	// ranked by; nil disables both.
	DTS DeviceTree
	// Role is the controller's current role (regs.RoleHost or
	// regs.RoleDevice); empty means: decide from USBMODE.CM and the
	// controller's roles.
	Role regs.Role
	// ByteUnit is the unit byte rates are shown in: a
	// units.Display (MiB/s when empty), as `citune probe`, `sweep` and
	// `report` show them (--units, $CITUNE_UNITS). A probe's own unit
	// (fps) is shown as it is.
	ByteUnit units.Display
	// Interval is the initial refresh interval (default 1s).
	Interval time.Duration
	// Tick schedules refreshes (nil: tea.Tick). Tests replace it to drive
	// refreshes by hand.
	Tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// Mono is for terminals without colour (a vt100 on a serial line):
	// attributes only (bold, underline, reverse) and no window title.
	Mono bool
	// Styles defaults to DefaultStyles (or MonoStyles with Mono).
	Styles *Styles
}
