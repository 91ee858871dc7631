package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/bootargs"
	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
	"github.com/citune/citune/units"
)

// Config is one sweep: what it measures, on what, and where it reports.
// Run never changes it, so a Config runs twice alike.
type Config struct {
	Target *soc.Target
	// Prober runs the workload once with the accounting (a probe.Series):
	// called once per run, warm-ups included, with nil progress.
	Prober probe.Probe
	// ProbeName describes the probe in the results header.
	ProbeName string
	Plan      plan.Plan
	// Host applies file and module-parameter axes; it may be nil when the
	// plan has only register axes.
	Host *host.Host
	// Remap re-opens the register window after a module reload (default:
	// Target.Remap and its identity checks).
	Remap func(ctx context.Context) error
	// Out receives the results records.
	Out *results.Writer
	// Log receives progress for people (may be nil).
	Log io.Writer
	// ByteUnit is the unit of the progress lines' byte rates (MiB/s if empty).
	ByteUnit units.Display
	// OnEvent, when set, receives every event after the results file and
	// Log got theirs, on Run's goroutine.
	OnEvent func(event.Event)
	// Session records and undoes every change (its journal keeps the
	// originals across a crash). When nil, Run opens one itself with
	// Journal as its journal ("" keeps none).
	Session *undo.Session
	Journal string
	// Command and Kernel go into the header.
	Command []string
	Kernel  string
	// ParamUsers are, per module parameter axis, the controllers the
	// parameter changes (it is module-wide), with their settings where
	// read: for the header and a note.
	ParamUsers map[string][]soc.ParamUser
	// Board goes into the header too (nil: not recorded).
	Board *results.BoardID
	// Resume holds the records of the sweep being continued.
	Resume *results.Results
	// Clock is the sweep's time and settle pauses (nil: WallClock; the
	// simulated board's modelled time: SimClock).
	Clock Clock
	// MaxFailures aborts the sweep after this many failed points in a
	// row (default 3).
	MaxFailures int
	// Boot is the boot loader's store a cmdline: axis writes the next
	// boot's arguments to (nil: such an axis is refused).
	Boot bootargs.Store
	// BootRoot is the root Boot's devices are under ("/" on a board).
	BootRoot string
	// FixedCosts keeps a baseline visit every BaselineEvery points and the
	// plan's warm-ups on every visit, as before the data decided them
	// (fixedcost.go; the benchmark's "before").
	FixedCosts bool
}

// state is one Run of a Config: its copy of the Config (defaults filled
// in) and everything the sweep plans, learns and counts.
type state struct {
	Config
	sim       *SimClock        // Clock, when it is the simulated board's
	wall      func() time.Time // records' time: Clock's, or on a SimClock the wall's
	session   int
	rebooting bool // a visit needs a boot with other arguments (ErrReboot)
	axes      []plan.Axis
	orig      []string // the baseline: original values (the header's when resuming)
	live      []string // values when this session started: restored at its end
	cur       []string // last applied values of file and modparam axes
	deps      []dep
	points    []*Point
	role      regs.Role
	notes     []string
	snapshot  soc.Snapshot
	resumed   map[int]results.ClosedVisit
	elimDone  map[string]string
	visitSeq  int
	store     *results.Store
	policy    rank.Policy // the verdict's rule (Prepare)
	// confirmRuns counts the probe runs of the verdict's second look;
	// secondRuns are those still to come in it (for the time left).
	confirmRuns, secondRuns int
	runs                    int
	total                   int
	planned                 int           // visits planned (grid, ofat), for progress
	elapsed                 time.Duration // in visits measured this session (reloads included)
	measured                int           // probe runs this session (for the estimate)
	alive                   []*Point      // adaptive: the points still racing
	target                  int           // adaptive: runs every alive point has after this round
	failures                int
	notHeld                 int
	corrupt                 int

	// budget is the adaptive race's cap in probe runs (0: none) of the
	// grid's gridRuns; spent counts the runs of the visits so far,
	// replayed ones included (so that a resumed race decides as the
	// first session did); outOfBudget is the points still racing when
	// it ran out (0: it did not).
	budget, gridRuns, spent, outOfBudget int

	// reloads and reloadTime count this session's module reloads and
	// their time (on r.Clock), for the estimate and the outcome.
	reloads    int
	reloadTime time.Duration
	started    time.Time
	sched      []*Point // the visits of a grid or one-factor sweep

	// model is a model-mode sweep's last fit, modelSeq the fits so far
	// (a resumed sweep replays as many as its file records).
	model    *results.ModelFit
	modelSeq int

	// The fixed costs the data decide (fixedcost.go): every is the
	// points to the next baseline visit, firstRuns each visit's first
	// run against its others, warmSkip whether warm-ups are skipped.
	every     int
	firstRuns []firstRun
	warmSkip  bool
}

// Outcome is what a session found; its JSON form is the outcome in
// `citune sweep --json`.
type Outcome struct {
	// Status is results.StatusComplete, StatusInterrupted or StatusFailed.
	Status string `json:"status"`
	// ProbeRuns counts this session's probe runs, TotalProbeRuns all
	// sessions' (warm-ups included).
	ProbeRuns      int          `json:"probe_runs"`
	TotalProbeRuns int          `json:"total_probe_runs"`
	NotHeld        int          `json:"not_held"`
	Corrupt        int          `json:"corrupt"`
	Notes          []string     `json:"notes,omitempty"`
	Restored       bool         `json:"restored"`
	RestoreErr     error        `json:"-"`
	Ranking        rank.Ranking `json:"ranking"`

	// Budget, GridRuns and OutOfBudget are as in results.EndRecord.
	Budget      int `json:"budget_runs,omitempty"`
	GridRuns    int `json:"grid_runs,omitempty"`
	OutOfBudget int `json:"out_of_budget,omitempty"`
	// ConfirmRuns are this session's probe runs of the verdict's second
	// look (confirm), warm-ups included: outside any budget.
	ConfirmRuns int `json:"confirm_runs,omitempty"`
	// Model is a model-mode sweep's last fit of its model (its Fallback
	// says when it raced the points instead).
	Model *results.ModelFit `json:"model,omitempty"`

	// Elapsed is the session's time from its first record to its end,
	// restore included; Reloads and ReloadTime its module reloads. On a
	// SimClock they are modelled (SimulatedTime). `--json` gives the
	// durations in seconds (elapsed_s, reload_s).
	Elapsed, ReloadTime time.Duration `json:"-"`
	Reloads             int           `json:"reloads"`
	SimulatedTime       bool          `json:"simulated_time"`
}

// ErrInterrupted is returned when the context was cancelled (Ctrl-C,
// SIGTERM): the original settings were restored and the sweep can be
// resumed.
var ErrInterrupted = errors.New("sweep interrupted")

// Run validates the plan, journals the originals, measures every point,
// restores the originals (also when ctx is cancelled or a step fails) and
// ranks the points. The error is ErrInterrupted (wrapped) when ctx was
// cancelled.
func (c *Config) Run(ctx context.Context) (out *Outcome, err error) {
	r, err := c.prepare()
	if err != nil {
		return nil, err
	}
	r.started = r.Clock.Now()
	if err := r.begin(); err != nil {
		return nil, err
	}
	if r.Session == nil {
		s, err := r.undoSession()
		if err != nil {
			return nil, err
		}
		defer s.Close()
	}
	if err := r.journalBegin(); err != nil {
		return nil, fmt.Errorf("%w (nothing was changed: without a journal the changes could not be undone after a crash)", err)
	}
	defer func() {
		if p := recover(); p != nil {
			r.restore(context.Background())
			panic(p)
		}
	}()
	runErr := r.execute(ctx)
	if ctx.Err() != nil {
		r.emit(event.Event{Kind: event.SweepInterrupted})
		runErr = fmt.Errorf("%w: %v (it can be resumed)", ErrInterrupted, context.Cause(ctx))
	}
	restoreErr := r.restore(ctx)
	if lost := r.Session.Lost(); lost != nil && runErr == nil {
		// The journal was disturbed where the sweep would not have met
		// it again (its last point, its restore): the sweep restored from
		// memory, and says so.
		runErr = lost
	}
	out = &Outcome{Ranking: r.store.Rank(), Status: results.StatusComplete, ProbeRuns: r.runs, TotalProbeRuns: r.total,
		NotHeld: r.notHeld, Corrupt: r.corrupt, Notes: r.notes, Restored: restoreErr == nil, RestoreErr: restoreErr,
		Elapsed: r.Clock.Now().Sub(r.started), Reloads: r.reloads, ReloadTime: r.reloadTime, SimulatedTime: r.sim != nil,
		Budget: r.budget, GridRuns: r.gridRuns, OutOfBudget: r.outOfBudget, ConfirmRuns: r.confirmRuns, Model: r.model}
	wall, sim := r.stamp()
	end := results.EndRecord{Type: results.TypeEnd, Session: r.session, Time: wall, SimTime: sim, Status: results.StatusComplete, Restored: restoreErr == nil,
		ProbeRuns: r.runs, TotalProbeRuns: r.total, Budget: r.budget, GridRuns: r.gridRuns, OutOfBudget: r.outOfBudget, Ranking: out.Ranking}
	switch {
	case errors.Is(runErr, ErrInterrupted), errors.Is(runErr, ErrReboot):
		out.Status, end.Status = results.StatusInterrupted, results.StatusInterrupted
	case runErr != nil:
		out.Status, end.Status = results.StatusFailed, results.StatusFailed
	}
	if runErr != nil {
		end.Error = runErr.Error()
	}
	if restoreErr != nil {
		end.RestoreError = restoreErr.Error()
	}
	werr := r.emit(event.Event{Kind: event.SweepEnded, End: &end})
	return out, errors.Join(runErr, restoreErr, werr)
}

func (r *state) logf(format string, a ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format, a...)
	}
}

// begin writes the header, or the resume record.
func (r *state) begin() error {
	t := r.Target
	origs := map[string]string{}
	live := map[string]string{}
	for i, a := range r.axes {
		origs[a.Name] = r.orig[i]
		live[a.Name] = r.live[i]
	}
	r.store.SetOriginal(origs)
	if r.Resume != nil {
		rec := results.ResumeRecord{Type: results.TypeResume, Session: r.session, Started: r.wall().UTC(), PID: os.Getpid(), Command: r.Command, Live: live, Boot: r.boot()}
		return r.emit(event.Event{Kind: event.SweepStarted, Notes: r.notes, Resume: &rec})
	}
	hp := r.Plan
	hp.Axes = r.axes
	h := results.Header{Type: results.TypeHeader, Format: results.Format, Version: results.Version, Started: r.wall().UTC(), PID: os.Getpid(), Command: r.Command,
		Kernel: r.Kernel, Board: r.Board, Profile: t.Profile.Name, Controller: t.Controller.Label, Node: t.Controller.Node, Base: results.Addr(t.Controller.Base),
		Target: string(t.Kind), TargetPath: t.Path(), Role: string(r.role), Probe: r.ProbeName, Plan: hp, Originals: origs, Snapshot: r.snapshot, Notes: r.notes,
		ModParamControllers: r.ParamUsers, Boot: r.boot()}
	if !r.FixedCosts {
		h.Costs = results.CostsByData
	}
	if r.Plan.Mode == plan.ModeModel {
		h.Version = results.VersionAdmits
	}
	if !strings.HasPrefix(t.Profile.File, "embedded:") {
		h.ProfileFile = host.AbsPath(t.Profile.File)
	}
	h.TargetPath = host.AbsPath(h.TargetPath)
	for _, p := range r.points {
		h.Points = append(h.Points, r.info(p))
	}
	return r.emit(event.Event{Kind: event.SweepStarted, Notes: r.notes, Header: &h})
}

// execute measures the points in the plan's mode, then takes the
// verdict's second look where it asks for one.
func (r *state) execute(ctx context.Context) error {
	switch r.Plan.Mode {
	case plan.ModeModel:
		if err := r.modelSearch(ctx); err != nil {
			return err
		}
	case plan.ModeAdaptive:
		if err := r.adaptive(ctx); err != nil {
			return err
		}
	default:
		sched, _ := r.schedule()
		r.planned, r.sched = len(sched), sched
		for k := 0; k < len(r.sched); k++ {
			p := r.sched[k]
			if _, err := r.visit(ctx, p, r.Plan.Repeats, false, nil); err != nil {
				return err
			}
			if p.Baseline && k > 0 && k+1 < len(r.sched) {
				if err := r.reschedule(k); err != nil {
					return err
				}
			}
		}
	}
	return r.confirm(ctx)
}

// confirm is the verdict's second look (rank.Verdict.Confirm): a
// promising point is measured up to ConfirmFactor times the plan's runs,
// with the baseline as many times more, half before and half after it (so
// that a drift shows on both sides). Once per sweep, outside any budget;
// a resumed sweep replays it like any visit.
func (r *state) confirm(ctx context.Context) error {
	v := r.store.Rank().Verdict
	if v.Confirm == "" {
		return nil
	}
	i := slices.IndexFunc(r.points, func(x *Point) bool { return x.Key == v.Confirm })
	want := ConfirmFactor*r.Plan.Repeats - r.store.Runs(v.Confirm)
	if i < 0 || want <= 0 {
		return nil
	}
	p := r.points[i]
	var vs *rank.Comparison
	if rp := r.store.Rank().Find(v.Confirm); rp != nil {
		vs = rp.VsBaseline
	}
	why := fmt.Sprintf("is promising (%s) but not yet proven", rank.VsString(vs))
	if vs == nil || !vs.HasCI() {
		why = fmt.Sprintf("is the fastest, on %d run(s): too few to compare", r.store.Runs(v.Confirm))
	}
	msg := fmt.Sprintf("second look: %s %s: %d more run(s) of it and %d of the original settings, outside any budget",
		rank.SettingsString(r.settings(p)), why, want, want)
	replayed := r.Resume != nil && r.Resume.SecondLook() != ""
	r.store.SecondLook(v.Confirm)
	if err := r.emit(event.Event{Kind: event.SecondLook, Point: v.Confirm, Settings: r.settings(p), Message: msg, Replayed: replayed}); err != nil {
		return err
	}
	before := (want + 1) / 2
	start := r.runs
	defer func() { r.confirmRuns += r.runs - start; r.secondRuns = 0 }()
	steps := []struct {
		p *Point
		n int
	}{{r.baselinePoint(), before}, {p, want}, {r.baselinePoint(), want - before}}
	if want == before {
		steps = steps[:2]
	}
	if r.planned > 0 {
		r.planned = r.visitSeq + len(steps) // the progress counts the look's visits
	}
	for _, st := range steps {
		r.secondRuns += st.n + r.Plan.Warmup
	}
	for _, st := range steps {
		if _, err := r.visit(ctx, st.p, st.n, false, nil); err != nil {
			return err
		}
		r.secondRuns -= st.n + r.Plan.Warmup
	}
	return nil
}

// ConfirmFactor bounds the second look: the promising point is measured
// up to this many times the plan's runs in all.
const ConfirmFactor = 3

// reloadNote says how many module reloads the plan needs.
func (r *state) reloadNote() string {
	groups := map[string]bool{}
	for _, p := range r.points {
		groups[r.modKey(p.Values)] = true
	}
	if r.Plan.Mode == plan.ModeModel {
		// The design, up to modelRounds rounds of confirmation (each
		// may load every value again), the tie-break's four visits and
		// the original values; the race it may fall back to, more.
		most := len(groups) + modelRounds*len(groups) + 4 + 1
		return fmt.Sprintf("module parameters: %d value(s) to load, points grouped by value: at most %d reloads of %s (more if the model falls back to racing)%s",
			len(groups), most, strings.Join(r.Host.Modules, ", "), r.reloadEstimate(most, "at most "))
	}
	if r.Plan.Mode == plan.ModeAdaptive {
		// Rounds alternate the order of the values, so a round after
		// the first needs one reload fewer than it has values.
		rounds := roundsAfter(0, r.Plan.Repeats) + 1 // and the tie-break
		n := len(groups)
		if groups[r.modKey(r.orig)] {
			n--
		}
		most := n + (rounds-1)*max(len(groups)-1, 0) + 1
		return fmt.Sprintf("module parameters: %d value(s) to load, points grouped by value: at most %d reloads of %s over %d rounds (and back to the original values)%s",
			len(groups), most, strings.Join(r.Host.Modules, ", "), rounds, r.reloadEstimate(most, "at most "))
	}
	_, n := r.schedule()
	return fmt.Sprintf("module parameters: %d value(s), points grouped by value: the plan reloads %s %d time(s), the last back to the original values%s",
		len(groups), strings.Join(r.Host.Modules, ", "), n, r.reloadEstimate(n, ""))
}

// reloadEstimate is what the reload note says about the reloads' time:
// the simulated board's nominal time, or on a board that the first
// reload is timed.
func (r *state) reloadEstimate(n int, bound string) string {
	if n == 0 {
		return ""
	}
	if r.sim != nil {
		each := r.sim.nominalReload()
		return fmt.Sprintf("; the simulated board's reload takes about %s (modelled), %s%s in all, counted in the time left",
			each.Round(100*time.Millisecond), bound, (each * time.Duration(n)).Round(time.Second))
	}
	return "; the first reload is timed, and the time left counts the rest at its time"
}

// OpenOut opens the results file at path as the runner's Out: a new file
// (results.CreateFile refuses one that holds measurements) or, when the
// runner resumes (Resume is set), the resumed file for appending
// (results.OpenAppend). The caller closes it after Run. The one place
// that decides how a sweep's results file is opened, for `citune sweep`
// and the TUI alike.
func (r *Config) OpenOut(path string) (io.Closer, error) {
	var f *os.File
	var err error
	if r.Resume != nil {
		f, err = results.OpenAppend(path)
	} else {
		f, err = results.CreateFile(path)
	}
	if err != nil {
		return nil, err
	}
	r.Out = results.NewWriter(f)
	return f, nil
}
