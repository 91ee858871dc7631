package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citune/citune/bootargs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// This file holds Prepare: what a sweep checks and computes before its
// first write.

// ErrNotReloaded is wrapped when a module parameter's module is not in
// the stack the sweep reloads.
var ErrNotReloaded = errors.New("the sweep does not reload that module")

// Prepare is Run's first step alone, for a command that shows the plan
// before running it: it validates the plan against the target and the
// system and returns the points and notes, writing nothing. Decision: Run
// prepares again, so that the snapshot, live values and module list it
// journals and restores are read right before its first write.
func (c *Config) Prepare() (points []*Point, notes []string, err error) {
	r, err := c.prepare()
	if err != nil {
		return nil, nil, err
	}
	return r.points, r.notes, nil
}

// prepare makes a run's state: the checks and the plan of Prepare.
func (c *Config) prepare() (*state, error) {
	if err := c.Plan.Check(); err != nil {
		return nil, err
	}
	r := &state{Config: *c}
	if r.Clock == nil {
		r.Clock = WallClock{}
	}
	r.wall = r.Clock.Now
	if sim, ok := r.Clock.(*SimClock); ok {
		r.sim, r.wall = sim, time.Now
	}
	if r.MaxFailures <= 0 {
		r.MaxFailures = 3
	}
	return r, r.preparePlan()
}

func (r *state) preparePlan() error {
	t := r.Target
	axes, err := r.resolveAxes()
	if err != nil {
		return err
	}
	snap, err := soc.Take(t.Profile.Map, t)
	if err != nil {
		return err
	}
	r.snapshot = snap
	r.role = t.Role(snap)
	r.axes = axes
	// The verdict recommends only what can be made permanent here, by
	// dts's own rules, at the plan's practical threshold.
	r.policy = (rank.Policy{MinGainPct: r.Plan.MinGainPct(),
		NotPermanent: dtsout.Permanence(dtsout.DTSInput{Profile: t.Profile, Controller: t.Controller, Role: r.role, Snapshot: snap})})
	needReload, err := r.readLive()
	if err != nil {
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
		if err := r.Host.SnapshotLoaded(); err != nil {
			return err
		}
	}
	return r.planPoints(needReload)
}

// resolveAxes is the plan's axes with every register axis's field looked
// up in the target's map.
func (r *state) resolveAxes() ([]plan.Axis, error) {
	t := r.Target
	axes := slices.Clone(r.Plan.Axes)
	var errs []error
	for i := range axes {
		name := axes[i].Name
		switch axes[i].Kind {
		case plan.KindDT:
			k := dtsout.KnobOfDT(t.Profile, name)
			if k == nil {
				errs = append(errs, fmt.Errorf("%w: axis dt:%s: profile %s has no knob with that device-tree property (%s)", plan.ErrPlan, name, t.Profile.Name, dtProps(t.Profile)))
				continue
			}
			name = k.Field
		case plan.KindRegister:
		default:
			continue
		}
		ref, err := t.Profile.Map.Lookup(name)
		if err != nil || ref.Field == nil {
			errs = append(errs, fmt.Errorf("%w: axis %s: not a field of %s's map", plan.ErrPlan, axes[i].Name, t.Profile.Name))
			continue
		}
		axes[i].Ref = ref
		for _, v := range axes[i].Values {
			if n, err := strconv.ParseUint(v, 0, 32); err == nil {
				if err := t.Profile.DTLimit(ref, uint32(n)); err != nil {
					errs = append(errs, fmt.Errorf("%w: axis %s: %w", plan.ErrPlan, axes[i].Name, err))
				}
			}
		}
	}
	return axes, errors.Join(errs...)
}

// readLive reads every axis's live value into r.live (from the snapshot,
// the host's files, the loaded modules' parameters); needReload is true
// when an axis is a module parameter.
func (r *state) readLive() (needReload bool, err error) {
	r.live = make([]string, len(r.axes))
	var errs []error
	for i, a := range r.axes {
		var v string
		var err error
		switch a.Kind {
		case plan.KindRegister:
			v = r.registerLive(a)
		case plan.KindFile:
			v, err = r.fileLive(a)
		case plan.KindDT:
			if r.Boot == nil {
				err = fmt.Errorf("%w: dt:%s needs the boot loader's store of the next boot's overlays (%v)", plan.ErrPlan, a.Name, bootargs.ErrNone)
				break
			}
			raw, _ := r.snapshot.Value(a.Ref.Reg.Name)
			v = strconv.FormatUint(uint64(a.Ref.Field.Get(raw)), 10)
		case plan.KindCmdline:
			if r.Boot == nil {
				err = fmt.Errorf("%w: cmdline:%s needs the boot loader's store of the kernel arguments (%v)", plan.ErrPlan, a.Name, bootargs.ErrNone)
				break
			}
			if v, err = r.cmdlineValue(a); err != nil {
				err = fmt.Errorf("cmdline:%s: %w", a.Name, err)
			}
		case plan.KindModParam:
			needReload = true
			if us, ok := r.ParamUsers[a.Name]; ok {
				r.notes = append(r.notes, fmt.Sprintf("modparam:%s is module-wide: every point changes %s", a.Name, soc.ParamUsersString(us)))
			}
			v, err = r.checkModParam(a)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		r.live[i] = v
	}
	return needReload, errors.Join(errs...)
}

// registerLive is a register axis's value in the snapshot; it notes when
// the driver rewrites the field in the controller's role.
func (r *state) registerLive(a plan.Axis) string {
	t := r.Target
	v, _ := r.snapshot.Value(a.Ref.Reg.Name)
	if k := t.Profile.Knob(a.Ref); k != nil && k.Param != "" && k.Driver != "" && slices.Contains(k.ParamRoles, r.role) {
		if t.Simulated() && !t.DriverModelled() {
			r.notes = append(r.notes, fmt.Sprintf("note: %s in %s role: on a board ehci-hcd rewrites it and the points would not hold (sweep modparam:%s there); the simulated driver is off, so they hold here.", a.Name, r.role, k.Param))
		} else {
			r.notes = append(r.notes, fmt.Sprintf("warning: %s in %s role: %s Points will probably not hold; sweep modparam:%s instead.", a.Name, r.role, k.Driver, k.Param))
		}
	}
	return strconv.FormatUint(uint64(a.Ref.Field.Get(v)), 10)
}

// fileLive is a file axis's content, after checking the file can be
// written.
func (r *state) fileLive(a plan.Axis) (string, error) {
	if r.Host == nil {
		return "", fmt.Errorf("%w: axis %s: no host access configured for file axes", plan.ErrPlan, a.Name)
	}
	v, err := r.Host.ReadFile(a.Name)
	if err != nil {
		return "", fmt.Errorf("%w: axis %s: %v", plan.ErrPlan, a.Name, err)
	}
	f, err := os.OpenFile(r.Host.Path(a.Name), os.O_WRONLY, 0)
	if err != nil {
		return "", fmt.Errorf("%w: axis %s: not writable: %v", plan.ErrPlan, a.Name, err)
	}
	f.Close()
	return v, nil
}

// planPoints lays out the points in the plan's mode, with the notes on
// their grouping.
func (r *state) planPoints(needReload bool) error {
	// Points at one module-parameter value are measured one after the
	// other (byReload): the driver stack is reloaded only when the value
	// changes.
	switch r.Plan.Mode {
	case plan.ModeOFAT:
		r.points = r.byReload(r.ofatPoints(), false)
	default:
		r.points = r.byReload(shuffled(r.gridPoints(), r.Plan.Seed), false)
	}
	if len(r.points) == 0 {
		return fmt.Errorf("%w: no point differs from the original settings", plan.ErrPlan)
	}
	r.notes = append(r.notes, r.groupingNotes(r.points)...)
	if r.Plan.Mode == plan.ModeAdaptive || r.Plan.Mode == plan.ModeModel {
		r.planBudget()
	}
	if needReload {
		r.notes = append(r.notes, r.reloadNote())
	}
	r.store = results.NewStore()
	r.store.SetPolicy(r.policy)
	return nil
}

// checkModParam refuses a module parameter that cannot be swept and
// returns its current value.
func (r *state) checkModParam(a plan.Axis) (string, error) {
	h := r.Host
	if h == nil || h.Loader == nil {
		return "", fmt.Errorf("%w: axis modparam:%s: no module loader configured", plan.ErrPlan, a.Name)
	}
	st, err := h.ModuleState(a.Module)
	if err != nil {
		return "", fmt.Errorf("%w: axis modparam:%s: %v", plan.ErrPlan, a.Name, err)
	}
	switch st {
	case host.ModBuiltIn:
		return "", fmt.Errorf("%w: axis modparam:%s: %s is built into the kernel (/sys/module/%s has no initstate and it is not in /proc/modules), so it cannot be reloaded with another %s; set it on the kernel command line (%s=V) and measure each value after a reboot",
			plan.ErrPlan, a.Name, a.Module, a.Module, a.Param, a.Name)
	case host.ModAbsent:
		return "", fmt.Errorf("%w: axis modparam:%s: module %s is not loaded (load it and make the probe's device work first)", plan.ErrPlan, a.Name, a.Module)
	}
	if !slices.ContainsFunc(h.Modules, func(m string) bool { return host.ModuleName(m) == a.Module }) {
		return "", fmt.Errorf("%w: axis modparam:%s: %s is not in the reload sequence (%s): %w", plan.ErrPlan, a.Name, a.Module, strings.Join(h.Modules, ", "), ErrNotReloaded)
	}
	v, err := h.ReadParam(a.Module, a.Param)
	if err != nil {
		return "", fmt.Errorf("%w: axis modparam:%s: cannot read the current value (%v): does %s have a parameter %s?", plan.ErrPlan, a.Name, err, a.Module, a.Param)
	}
	knobs := r.Target.Profile.Knobs
	if i := slices.IndexFunc(knobs, func(k soc.Knob) bool { return strings.EqualFold(k.Param, a.Name) }); i >= 0 {
		lim := knobs[i].ParamEncoding.MaxParam()
		for _, v := range a.Values {
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil || n > lim {
				return "", fmt.Errorf("%w: axis modparam:%s: value %s: want an integer 0..%d", plan.ErrPlan, a.Name, v, lim)
			}
		}
	}
	return v, nil
}

// findDeps finds the swept fields that only take effect while another
// field has a value, and checks the condition can be met.
func (r *state) findDeps() error {
	p := r.Target.Profile
	var errs []error
	for i, a := range r.axes {
		if a.Kind != plan.KindRegister && a.Kind != plan.KindDT {
			continue
		}
		cond, ok := p.Condition(p.Knob(a.Ref))
		if !ok {
			continue
		}
		d := dep{axis: i, cond: cond, condAxis: -1}
		for j, b := range r.axes {
			if (b.Kind == plan.KindRegister || b.Kind == plan.KindDT) && b.Ref.Reg == cond.Ref.Reg && b.Ref.Field == cond.Ref.Field {
				d.condAxis = j
			}
		}
		if d.condAxis < 0 {
			v, _ := r.snapshot.Value(cond.Ref.Reg.Name)
			d.live = cond.Ref.Field.Get(v)
			if d.live != cond.Value {
				errs = append(errs, fmt.Errorf("%w: %s takes effect only with %s, which reads %d: sweep it too (an axis %s=%d,%d) or set it first",
					plan.ErrPlan, a.Name, cond, d.live, cond.Ref.Field.Name, cond.Value, d.live))
				continue
			}
		}
		r.deps = append(r.deps, d)
	}
	return errors.Join(errs...)
}

// checkResume checks that the results file is for this target and plan,
// takes its originals as the baseline and its closed visits for reuse.
func (r *state) checkResume() error {
	h := r.Resume.Header
	t := r.Target
	if h.Profile != t.Profile.Name || !strings.EqualFold(h.Controller, t.Controller.Label) || h.Target != string(t.Kind) {
		return fmt.Errorf("%w: the results file is for %s %s (%s), this is %s %s (%s)", plan.ErrPlan, h.Profile, h.Controller, h.Target, t.Profile.Name, t.Controller.Label, t.Kind)
	}
	if a, b := planKey(h.Plan), planKey(r.Plan); a != b {
		return fmt.Errorf("%w: the plan differs from the results file's:\n  file: %s\n  now:  %s\nresume with the same axes, mode, repeat, warmup, seed, baseline-every, budget and min-gain (or leave them out to take the file's)", plan.ErrPlan, a, b)
	}
	if h.Costs != results.CostsByData && !r.FixedCosts {
		// Its visits followed the plan's fixed schedule: replaying them
		// needs the same schedule.
		r.FixedCosts = true
		r.notes = append(r.notes, "the results file was written before baseline visits and warm-ups were decided by the data: the sweep keeps its fixed schedule")
	}
	if n := len(r.Resume.Ends); n > 0 && r.Resume.Ends[n-1].Status == results.StatusComplete {
		r.notes = append(r.notes, "the sweep in the results file is complete; nothing is measured again")
	}
	for i, a := range r.axes {
		v, ok := h.Originals[a.Name]
		if !ok {
			return fmt.Errorf("%w: the results file has no original value of %s", plan.ErrPlan, a.Name)
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
func planKey(p plan.Plan) string {
	type ax struct {
		Kind   plan.Kind
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
		Budget                         float64 `json:",omitempty"`
		MinGain                        float64
	}{as, p.Mode, p.Repeats, p.Warmup, p.BaselineEvery, p.Seed, p.Budget, p.MinGainPct()})
	return string(b)
}
