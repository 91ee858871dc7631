package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/undo"
)

// Prober runs the workload once and measures it. The sweep calls it once
// per run (warm-ups included) so that it can read the swept settings
// again after every run.
type Prober interface {
	Measure(ctx context.Context) (probe.Run, error)
}

// Runner runs one sweep session.
type Runner struct {
	Target *soc.Target
	Prober Prober
	// ProbeName describes the probe in the results header.
	ProbeName string
	Plan      Plan
	// Host applies file and module-parameter axes; it may be nil when the
	// plan has only register axes.
	Host *Host
	// Remap re-opens the register window after a module reload; the
	// default maps Target again (Target.Remap) and runs its identity
	// checks.
	Remap func(ctx context.Context) error
	// Out receives the results records.
	Out *Writer
	// Log receives progress for people (may be nil).
	Log io.Writer
	// Session records and undoes every change (its journal keeps the
	// originals across a crash). When nil, Run opens one itself with
	// Journal as its journal ("" keeps none).
	Session *undo.Session
	Journal string
	// Command and Kernel go into the header.
	Command []string
	Kernel  string
	// ParamUsers are, per module parameter axis (by name), the
	// controllers the parameter changes (module parameters are
	// module-wide), with their settings where they were read; they go into
	// the header and a note.
	ParamUsers map[string][]soc.ParamUser
	// Board goes into the header too (nil: not recorded).
	Board *BoardID
	// Resume holds the records of the sweep being continued.
	Resume *Results
	// Sleep waits for the settle time (default: a timer that ctx cancels).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for record times (default time.Now).
	Now func() time.Time
	// MaxFailures aborts the sweep after this many failed points in a
	// row (default 3).
	MaxFailures int

	session  int
	axes     []Axis
	orig     []string // the baseline: original values (the header's when resuming)
	live     []string // values when this session started: restored at its end
	cur      []string // last applied values of file and modparam axes
	deps     []dep
	points   []*Point
	role     string
	notes    []string
	snapshot soc.Snapshot
	resumed  map[int]ClosedVisit
	elimDone map[string]string
	visitSeq int
	store    *store
	runs     int
	total    int
	planned  int           // visits planned (grid, ofat), for progress
	elapsed  time.Duration // in visits measured this session
	measured int           // probe runs this session (for the estimate)
	alive    []*Point      // adaptive: the points still racing
	target   int           // adaptive: runs every alive point has after this round
	failures int
	notHeld  int
	corrupt  int
}

// Outcome is what a session found.
type Outcome struct {
	Ranking Ranking
	// Status is "complete", "interrupted" or "failed".
	Status string
	// ProbeRuns counts this session's probe runs, TotalProbeRuns all
	// sessions' (warm-ups included).
	ProbeRuns, TotalProbeRuns int
	NotHeld, Corrupt          int
	Notes                     []string
	Restored                  bool
	RestoreErr                error
}

// Session end statuses.
const (
	EndComplete    = "complete"
	EndInterrupted = "interrupted"
	EndFailed      = "failed"
)

// ErrInterrupted is returned when the context was cancelled (Ctrl-C,
// SIGTERM): the original settings were restored and the sweep can be
// resumed.
var ErrInterrupted = errors.New("sweep interrupted")

// Prepare validates the plan against the target and the system and
// computes the points. It writes nothing. Run calls it when it has not
// been called.
func (r *Runner) Prepare() error {
	if r.axes != nil {
		return nil
	}
	if err := r.Plan.Check(); err != nil {
		return err
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.MaxFailures <= 0 {
		r.MaxFailures = 3
	}
	t := r.Target
	m := t.Profile.Map
	axes := slices.Clone(r.Plan.Axes)
	var errs []error
	for i := range axes {
		if axes[i].Kind != KindRegister {
			continue
		}
		ref, err := m.Lookup(axes[i].Name)
		if err != nil || ref.Field == nil {
			errs = append(errs, fmt.Errorf("%w: axis %s: not a field of %s's map", ErrPlan, axes[i].Name, t.Profile.Name))
			continue
		}
		axes[i].Ref = ref
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	snap, err := soc.Take(m, t.Acc)
	if err != nil {
		return err
	}
	r.snapshot = snap
	r.role = t.Role(snap)
	r.axes = axes
	r.live = make([]string, len(axes))
	needReload := false
	for i, a := range axes {
		switch a.Kind {
		case KindRegister:
			v, _ := snap.Value(a.Ref.Reg.Name)
			r.live[i] = strconv.FormatUint(uint64(a.Ref.Field.Get(v)), 10)
			if k := t.Profile.Knob(a.Ref); k != nil && k.Param != "" && k.Driver != "" && slices.Contains(k.ParamRoles, r.role) {
				if t.Sim != nil && !t.Sim.DriverModelled() {
					r.notes = append(r.notes, fmt.Sprintf("note: %s in %s role: on a board ehci-hcd rewrites it and the points would not hold (sweep modparam:%s there); the simulated driver is off (--sim-driver=false or --reset-values), so they hold here.", a.Name, r.role, k.Param))
				} else {
					r.notes = append(r.notes, fmt.Sprintf("warning: %s in %s role: %s Points will probably not hold; sweep modparam:%s instead.", a.Name, r.role, k.Driver, k.Param))
				}
			}
		case KindFile:
			if r.Host == nil {
				errs = append(errs, fmt.Errorf("%w: axis %s: no host access configured for file axes", ErrPlan, a.Name))
				continue
			}
			v, err := r.Host.ReadFile(a.Name)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w: axis %s: %v", ErrPlan, a.Name, err))
				continue
			}
			if f, err := os.OpenFile(r.Host.path(a.Name), os.O_WRONLY, 0); err != nil {
				errs = append(errs, fmt.Errorf("%w: axis %s: not writable: %v", ErrPlan, a.Name, err))
				continue
			} else {
				f.Close()
			}
			r.live[i] = v
		case KindModParam:
			needReload = true
			if us, ok := r.ParamUsers[a.Name]; ok {
				r.notes = append(r.notes, fmt.Sprintf("modparam:%s is module-wide: every point changes %s", a.Name, soc.ParamUsersString(us)))
			}
			v, err := r.checkModParam(a)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			r.live[i] = v
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	r.orig = slices.Clone(r.live)
	r.session = 1
	if r.Resume != nil {
		if err := r.checkResume(); err != nil {
			return err
		}
	}
	r.cur = slices.Clone(r.live)
	if err := r.findDeps(); err != nil {
		return err
	}
	if needReload {
		if err := r.Host.snapshotLoaded(); err != nil {
			return err
		}
	}
	// Points at one module-parameter value are measured one after the
	// other (byReload): the driver stack is reloaded only when the value
	// changes.
	switch r.Plan.Mode {
	case ModeOFAT:
		r.points = r.byReload(r.ofatPoints(), false)
	case ModeAdaptive:
		r.points = r.byReload(shuffled(r.gridPoints(), r.Plan.Seed), false)
	default:
		r.points = r.byReload(shuffled(r.gridPoints(), r.Plan.Seed), false)
	}
	if len(r.points) == 0 {
		return fmt.Errorf("%w: no point differs from the original settings", ErrPlan)
	}
	r.notes = append(r.notes, r.groupingNotes(r.points)...)
	if needReload {
		r.notes = append(r.notes, r.reloadNote())
	}
	r.store = newStore()
	return nil
}

// checkModParam refuses a module parameter that cannot be swept and
// returns its current value.
func (r *Runner) checkModParam(a Axis) (string, error) {
	h := r.Host
	if h == nil || h.Loader == nil {
		return "", fmt.Errorf("%w: axis modparam:%s: no module loader configured", ErrPlan, a.Name)
	}
	st, err := h.ModuleState(a.Module)
	if err != nil {
		return "", fmt.Errorf("%w: axis modparam:%s: %v", ErrPlan, a.Name, err)
	}
	switch st {
	case ModBuiltIn:
		return "", fmt.Errorf("%w: axis modparam:%s: %s is built into the kernel (/sys/module/%s has no initstate and it is not in /proc/modules), so it cannot be reloaded with another %s; set it on the kernel command line (%s=V) and measure each value after a reboot",
			ErrPlan, a.Name, a.Module, a.Module, a.Param, a.Name)
	case ModAbsent:
		return "", fmt.Errorf("%w: axis modparam:%s: module %s is not loaded (load it and make the probe's device work first)", ErrPlan, a.Name, a.Module)
	}
	inStack := false
	for _, m := range h.Modules {
		if ModuleName(m) == a.Module {
			inStack = true
		}
	}
	if !inStack {
		return "", fmt.Errorf("%w: axis modparam:%s: %s is not in the reload sequence (%s); give the modules to reload, top first, with --reload", ErrPlan, a.Name, a.Module, strings.Join(h.Modules, ", "))
	}
	v, err := h.ReadParam(a.Module, a.Param)
	if err != nil {
		return "", fmt.Errorf("%w: axis modparam:%s: cannot read the current value (%v): does %s have a parameter %s?", ErrPlan, a.Name, err, a.Module, a.Param)
	}
	for i := range r.Target.Profile.Knobs {
		k := &r.Target.Profile.Knobs[i]
		if !strings.EqualFold(k.Param, a.Name) {
			continue
		}
		lim := uint64(math.MaxInt32)
		switch k.ParamEncoding {
		case "log2":
			lim = 6 // ITC up to 64 micro-frames
		case "park":
			lim = 3
		}
		for _, v := range a.Values {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil || n > lim {
				return "", fmt.Errorf("%w: axis modparam:%s: value %s: want an integer 0..%d", ErrPlan, a.Name, v, lim)
			}
		}
		break
	}
	return v, nil
}

// findDeps finds the swept fields that only take effect while another
// field has a value, and checks the condition can be met.
func (r *Runner) findDeps() error {
	p := r.Target.Profile
	var errs []error
	for i, a := range r.axes {
		if a.Kind != KindRegister {
			continue
		}
		k := p.Knob(a.Ref)
		if k == nil || k.Requires == "" {
			continue
		}
		cond, err := p.Map.ParseChange(k.Requires)
		if err != nil || cond.Ref.Field == nil {
			continue
		}
		d := dep{axis: i, cond: cond, condAxis: -1}
		for j, b := range r.axes {
			if b.Kind == KindRegister && b.Ref.Reg == cond.Ref.Reg && b.Ref.Field == cond.Ref.Field {
				d.condAxis = j
			}
		}
		if d.condAxis < 0 {
			v, _ := r.snapshot.Value(cond.Ref.Reg.Name)
			d.live = cond.Ref.Field.Get(v)
			if d.live != cond.Value {
				errs = append(errs, fmt.Errorf("%w: %s takes effect only with %s, which reads %d: sweep it too (--axis %s=%d,%d) or set it first",
					ErrPlan, a.Name, cond, d.live, cond.Ref.Field.Name, cond.Value, d.live))
				continue
			}
		}
		r.deps = append(r.deps, d)
	}
	return errors.Join(errs...)
}

// checkResume checks that the results file is for this target and plan,
// takes its originals as the baseline and its closed visits for reuse.
func (r *Runner) checkResume() error {
	h := r.Resume.Header
	t := r.Target
	if h.Profile != t.Profile.Name || !strings.EqualFold(h.Controller, t.Controller.Label) || h.Target != t.Kind {
		return fmt.Errorf("%w: the results file is for %s %s (%s), this is %s %s (%s)", ErrPlan, h.Profile, h.Controller, h.Target, t.Profile.Name, t.Controller.Label, t.Kind)
	}
	if a, b := planKey(h.Plan), planKey(r.Plan); a != b {
		return fmt.Errorf("%w: the plan differs from the results file's:\n  file: %s\n  now:  %s\nresume with the same axes, mode, repeat, warmup, seed and baseline-every (or leave them out to take the file's)", ErrPlan, a, b)
	}
	if n := len(r.Resume.Ends); n > 0 && r.Resume.Ends[n-1].Status == EndComplete {
		r.notes = append(r.notes, "the sweep in the results file is complete; nothing is measured again")
	}
	for i, a := range r.axes {
		v, ok := h.Originals[a.Name]
		if !ok {
			return fmt.Errorf("%w: the results file has no original value of %s", ErrPlan, a.Name)
		}
		if v != r.live[i] {
			r.notes = append(r.notes, fmt.Sprintf("%s is %s now but was %s when the sweep started: the baseline stays %s, and %s is put back at the end", a.Name, r.live[i], v, v, v))
		}
		r.orig[i] = v
	}
	r.session = r.Resume.Sessions() + 1
	r.resumed = r.Resume.Visits()
	r.elimDone = r.Resume.Eliminated()
	r.total = r.Resume.ProbeRuns()
	return nil
}

// planKey renders what must match for a resume.
func planKey(p Plan) string {
	type ax struct {
		Kind   Kind
		Name   string
		Values []string
	}
	var as []ax
	for _, a := range p.Axes {
		as = append(as, ax{a.Kind, a.Name, a.Values})
	}
	b, _ := json.Marshal(struct {
		Axes                           []ax
		Mode                           string
		Repeats, Warmup, BaselineEvery int
		Seed                           int64
	}{as, p.Mode, p.Repeats, p.Warmup, p.BaselineEvery, p.Seed})
	return string(b)
}

// Notes are warnings and grouping notes found by Prepare.
func (r *Runner) Notes() []string { return r.notes }

// Points are the planned points (after Prepare).
func (r *Runner) Points() []*Point { return r.points }

// Run validates the plan, journals the originals, measures every point,
// restores the originals (also when ctx is cancelled or a step fails) and
// ranks the points. The error is ErrInterrupted (wrapped) when ctx was
// cancelled.
func (r *Runner) Run(ctx context.Context) (out *Outcome, err error) {
	if err := r.Prepare(); err != nil {
		return nil, err
	}
	for _, n := range r.notes {
		r.logf("%s\n", n)
	}
	if err := r.begin(); err != nil {
		return nil, err
	}
	if r.Session == nil {
		s, err := r.undoSession()
		if err != nil {
			return nil, err
		}
		defer func() { s.Close(); r.Session = nil }()
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
		r.logf("interrupted: restoring the original settings\n")
		runErr = fmt.Errorf("%w: %v (resume with --resume)", ErrInterrupted, context.Cause(ctx))
	}
	restoreErr := r.restore(ctx)
	out = &Outcome{Ranking: r.store.rank(), Status: EndComplete, ProbeRuns: r.runs, TotalProbeRuns: r.total,
		NotHeld: r.notHeld, Corrupt: r.corrupt, Notes: r.notes, Restored: restoreErr == nil, RestoreErr: restoreErr}
	end := EndRecord{Type: TypeEnd, Session: r.session, Time: r.Now().UTC(), Status: EndComplete, Restored: restoreErr == nil,
		ProbeRuns: r.runs, TotalProbeRuns: r.total, Ranking: out.Ranking}
	switch {
	case errors.Is(runErr, ErrInterrupted):
		out.Status, end.Status = EndInterrupted, EndInterrupted
	case runErr != nil:
		out.Status, end.Status = EndFailed, EndFailed
	}
	if runErr != nil {
		end.Error = runErr.Error()
	}
	if restoreErr != nil {
		end.RestoreError = restoreErr.Error()
	}
	werr := r.Out.Write(end)
	return out, errors.Join(runErr, restoreErr, werr)
}

func (r *Runner) logf(format string, a ...any) {
	if r.Log != nil {
		fmt.Fprintf(r.Log, format, a...)
	}
}

// begin writes the header, or the resume record.
func (r *Runner) begin() error {
	t := r.Target
	origs := map[string]string{}
	live := map[string]string{}
	for i, a := range r.axes {
		origs[a.Name] = r.orig[i]
		live[a.Name] = r.live[i]
	}
	r.store.original = origs
	if r.Resume != nil {
		return r.Out.Write(ResumeRecord{Type: TypeResume, Session: r.session, Started: r.Now().UTC(), PID: os.Getpid(), Command: r.Command, Live: live})
	}
	plan := r.Plan
	plan.Axes = r.axes
	h := Header{Type: TypeHeader, Format: Format, Version: Version, Started: r.Now().UTC(), PID: os.Getpid(), Command: r.Command,
		Kernel: r.Kernel, Board: r.Board, Profile: t.Profile.Name, Controller: t.Controller.Label, Node: t.Controller.Node, Base: t.Controller.Base,
		Target: t.Kind, TargetPath: t.Path, Role: r.role, Probe: r.ProbeName, Plan: plan, Originals: origs, Snapshot: r.snapshot, Notes: r.notes,
		ModParamControllers: r.ParamUsers}
	if !strings.HasPrefix(t.Profile.File, "embedded:") {
		h.ProfileFile = absPath(t.Profile.File)
	}
	h.TargetPath = absPath(h.TargetPath)
	for _, p := range r.points {
		h.Points = append(h.Points, r.info(p))
	}
	return r.Out.Write(h)
}

func (r *Runner) event(kind, point, msg string) error {
	return r.Out.Write(EventRecord{Type: TypeEvent, Session: r.session, Time: r.Now().UTC(), Event: kind, Point: point, Message: msg})
}

// execute measures the points in the plan's mode.
func (r *Runner) execute(ctx context.Context) error {
	switch r.Plan.Mode {
	case ModeAdaptive:
		return r.adaptive(ctx)
	}
	sched, _ := r.schedule()
	r.planned = len(sched)
	for _, p := range sched {
		if _, err := r.visit(ctx, p, r.Plan.Repeats); err != nil {
			return err
		}
	}
	return nil
}

// reloadNote says how many module reloads the plan needs.
func (r *Runner) reloadNote() string {
	groups := map[string]bool{}
	for _, p := range r.points {
		groups[r.modKey(p.Values)] = true
	}
	if r.Plan.Mode == ModeAdaptive {
		// Rounds alternate the order of the values, so a round after
		// the first needs one reload fewer than it has values.
		rounds := 0
		for t := 0; t < r.Plan.Repeats; rounds++ {
			t = nextTarget(t, r.Plan.Repeats)
		}
		n := len(groups)
		if groups[r.modKey(r.orig)] {
			n--
		}
		most := n + (rounds-1)*max(len(groups)-1, 0) + 1
		return fmt.Sprintf("module parameters: %d value(s) to load, points grouped by value: at most %d reloads of %s over %d rounds (and back to the original values)",
			len(groups), most, strings.Join(r.Host.Modules, ", "), rounds)
	}
	_, n := r.schedule()
	return fmt.Sprintf("module parameters: %d value(s), points grouped by value: the plan reloads %s %d time(s), the last back to the original values",
		len(groups), strings.Join(r.Host.Modules, ", "), n)
}

// visit applies a point, lets it settle, probes it n times (after the
// warm-ups) and checks after every run that its settings held. It
// returns the point's status. An error ends the sweep (cancelled, or a
// failure the next points would share).
func (r *Runner) visit(ctx context.Context, p *Point, n int) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	r.visitSeq++
	seq := r.visitSeq
	if cv, ok := r.resumed[seq]; ok {
		if cv.Point.Point != p.Key {
			return "", fmt.Errorf("the results file does not match the plan: its visit %d measured %q where the plan now measures %q", seq, cv.Point.Point, p.Key)
		}
		r.store.addVisit(cv.Point, cv.Runs)
		r.count(cv.Point.Status)
		return cv.Point.Status, nil
	}
	t0 := time.Now()
	defer func() { r.elapsed += time.Since(t0) }()
	settings := r.settings(p)
	label := SettingsString(settings)
	if p.Baseline {
		label = "baseline (original settings)"
	}
	if err := r.event(EventApply, p.Key, "applying "+label); err != nil {
		return "", err
	}
	rec := PointRecord{Type: TypePoint, Session: r.session, Visit: seq, Point: p.Key, Baseline: p.Baseline, Settings: settings,
		Ignored: r.ignored(p), Note: p.Note, Status: StatusOK}
	applied, mism, reloaded, err := r.apply(ctx, p)
	rec.Applied, rec.Reloaded = applied, reloaded
	var runs []RunRecord
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		var fatal *fatalError
		if errors.As(err, &fatal) {
			return "", err
		}
		rec.Status, rec.Reason = StatusFailed, err.Error()
	case len(mism) > 0:
		rec.Status, rec.Reason, rec.Changed = StatusNotHeld, "did not stick when written", mism
	default:
		if err := r.sleep(ctx, r.Plan.Settle); err != nil {
			return "", err
		}
		runs, err = r.probe(ctx, p, n, &rec)
		if err != nil {
			return "", err
		}
	}
	for _, rr := range runs {
		if !rr.Warmup && rr.Held && rr.Error == "" && !rr.Run.Corrupt {
			rec.Runs++
			rec.Rates = append(rec.Rates, rr.Run.Rate)
		}
	}
	if rec.Rates == nil {
		rec.Rates = []float64{}
	}
	r.store.addVisit(rec, runs)
	r.summarise(&rec)
	if err := r.Out.Write(rec); err != nil {
		return "", err
	}
	r.count(rec.Status)
	r.elapsed += time.Since(t0)
	t0 = time.Now()
	r.progress(seq, &rec)
	if rec.Status == StatusFailed {
		r.failures++
		if r.failures >= r.MaxFailures {
			return rec.Status, fmt.Errorf("%d points in a row failed; the last: %s", r.failures, rec.Reason)
		}
	} else {
		r.failures = 0
	}
	return rec.Status, nil
}

func (r *Runner) count(status string) {
	switch status {
	case StatusNotHeld:
		r.notHeld++
	case StatusCorrupt:
		r.corrupt++
	}
}

// probe measures the warm-ups and n runs, checking the settings after
// each. It stops at the first run that did not hold, was corrupt or
// failed. An error means the sweep must stop (ctx cancelled, results
// file).
func (r *Runner) probe(ctx context.Context, p *Point, n int, rec *PointRecord) ([]RunRecord, error) {
	var runs []RunRecord
	total := r.Plan.Warmup + n
	for i := 0; i < total; i++ {
		mctx := ctx
		if i < r.Plan.Warmup {
			// A read probe hashes every byte of a warm-up run (untimed)
			// and only samples the timed ones.
			mctx = probe.WarmupContext(ctx)
		}
		run, perr := r.Prober.Measure(mctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		r.runs++
		r.total++
		r.measured++
		rr := RunRecord{Type: TypeRun, Session: r.session, Visit: rec.Visit, Point: p.Key, Baseline: p.Baseline, Seq: i + 1,
			Warmup: i < r.Plan.Warmup, Time: r.Now().UTC(), Run: run, Held: true}
		if perr != nil {
			rr.Error = perr.Error()
		}
		changed, cerr := r.check(p)
		if len(changed) > 0 {
			rr.Held, rr.Changed = false, changed
		}
		if err := r.Out.Write(rr); err != nil {
			return nil, err
		}
		runs = append(runs, rr)
		kind := "run"
		if rr.Warmup {
			kind = "warm-up run"
		}
		switch {
		case cerr != nil:
			rec.Status, rec.Reason = StatusFailed, fmt.Sprintf("reading the settings back after %s %d: %v", kind, i+1, cerr)
		case !rr.Held:
			rec.Status, rec.Reason, rec.Changed = StatusNotHeld, fmt.Sprintf("changed during %s %d", kind, i+1), changed
		case run.Corrupt:
			rec.Status, rec.Reason = StatusCorrupt, fmt.Sprintf("%s %d failed its integrity check: %s", kind, i+1, or(run.Detail, "data differ"))
			r.logf("!!! CORRUPT DATA at %s: %s\n", SettingsString(rec.Settings), rec.Reason)
		case perr != nil:
			rec.Status, rec.Reason = StatusFailed, fmt.Sprintf("probe %s %d: %v", kind, i+1, perr)
		default:
			continue
		}
		break
	}
	return runs, nil
}

// summarise fills a point record's statistics over all its visits.
func (r *Runner) summarise(rec *PointRecord) {
	if rec.Baseline {
		rec.Total = len(r.store.baseline)
		rec.Median = Median(r.store.baseline)
		if rec.Total == 0 {
			rec.Median = 0
		}
		return
	}
	ps := r.store.pts[rec.Point]
	rec.Total = len(ps.Rates)
	rec.Unit = ps.Unit
	if len(ps.Rates) == 0 {
		return
	}
	rec.Median = Median(ps.Rates)
	rec.IRQsPerMiB = medianOf(ps.IRQsPerMiB)
	rec.CPUPerMiB = medianOf(ps.CPUPerMiB)
	if len(r.store.baseline) > 0 && rec.Status == StatusOK {
		c := Compare(ps.Rates, r.store.baseline, Confidence, rec.Point+"|baseline")
		rec.VsBaseline = &c
	}
}

// left estimates the time the rest of the sweep takes from the time per
// probe run so far (apply, settle, reloads and warm-ups included): the
// visits still planned for a grid or one-factor sweep, an upper bound
// for an adaptive one (every point still racing measured up to the
// plan's runs). It is "" before the first run.
func (r *Runner) left(seq int) string {
	if r.measured == 0 {
		return ""
	}
	per := r.elapsed / time.Duration(r.measured)
	visit := r.Plan.Warmup + r.Plan.Repeats
	runs := 0
	bound := ""
	switch {
	case r.Plan.Mode == ModeAdaptive:
		bound = "at most "
		rounds := 0
		for t := r.target; t < r.Plan.Repeats; rounds++ {
			t = nextTarget(t, r.Plan.Repeats)
		}
		for _, p := range r.alive {
			runs += max(r.Plan.Repeats-r.store.runs(p.Key), 0) + r.Plan.Warmup*(rounds+1)
		}
		runs += visit // the last baseline
	case r.planned > 0:
		runs = (r.planned - seq) * visit
	default:
		return ""
	}
	d := (per * time.Duration(runs)).Round(time.Second)
	return fmt.Sprintf(" [%sabout %s left]", bound, d)
}

func (r *Runner) progress(seq int, rec *PointRecord) {
	pos := fmt.Sprintf("[%d]", seq)
	if r.planned > 0 {
		pos = fmt.Sprintf("[%d/%d]", seq, r.planned)
	}
	eta := r.left(seq)
	name := SettingsString(rec.Settings)
	if rec.Baseline {
		name = "baseline"
	}
	switch rec.Status {
	case StatusOK:
		s := fmt.Sprintf("%s %s: %s (median of %d)", pos, name, FormatRate(rec.Median, rec.Unit), rec.Total)
		if rec.VsBaseline != nil {
			s += ", " + rec.VsBaseline.String()
		}
		r.logf("%s%s\n", s, eta)
	case StatusNotHeld:
		r.logf("%s %s: NOT HELD (%s): %s%s\n", pos, name, rec.Reason, strings.Join(rec.Changed, "; "), eta)
	case StatusCorrupt:
		r.logf("%s %s: CORRUPT: %s%s\n", pos, name, rec.Reason, eta)
	default:
		r.logf("%s %s: %s: %s%s\n", pos, name, rec.Status, rec.Reason, eta)
	}
}

func (r *Runner) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	if r.Sleep != nil {
		return r.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
