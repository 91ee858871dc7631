package tui

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
)

func (p SweepPlan) has(ref regs.Ref) bool {
	return slices.ContainsFunc(p.Axes, func(a plan.Axis) bool { return a.Kind == plan.KindRegister && sameRef(a.Ref, ref) })
}

// parsePlan reads the on-screen plan: an axis per word (plan.ParseAxis)
// and settings KEY=VALUE (plan.Set: repeat=N, mode=M, budget=SHARE, ...).
func parsePlan(text string, m *regs.Map) (SweepPlan, error) {
	p := SweepPlan{Plan: plan.DefaultPlan(), Source: "screen"}
	p.Mode, p.Repeats = "", 3
	var errs []error
	for _, tok := range strings.Fields(text) {
		i := strings.LastIndex(tok, "=")
		if i <= 0 || i == len(tok)-1 {
			errs = append(errs, fmt.Errorf("%q: want FIELD=v1,v2,..., repeat=N or mode=M", tok))
			continue
		}
		name, vals := tok[:i], tok[i+1:]
		if plan.IsKey(name) {
			if err := p.Plan.Set(name, vals); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		// An axis, in the sweep's grammar (files and module parameters
		// are checked again before the first write).
		ax, err := plan.ParseAxis(m, tok)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if slices.ContainsFunc(p.Axes, func(b plan.Axis) bool { return b.Kind == ax.Kind && b.Name == ax.Name }) {
			errs = append(errs, fmt.Errorf("%s is listed twice", axisLabel(m, ax)))
			continue
		}
		p.Axes = append(p.Axes, ax)
	}
	// Every rule of citune sweep (plan.Check); no mode is grid.
	c := p.Plan
	if c.Mode == "" {
		c.Mode = plan.ModeGrid
	}
	errs = append(errs, c.CheckSettings())
	if err := errors.Join(errs...); err != nil {
		return SweepPlan{}, err
	}
	return p, nil
}

// planString renders p in the on-screen syntax.
func planString(p SweepPlan, m *regs.Map) string {
	var parts []string
	for _, a := range p.Axes {
		parts = append(parts, axisLabel(m, a)+"="+strings.Join(a.Values, ","))
	}
	if len(parts) == 0 {
		return ""
	}
	parts = append(parts, fmt.Sprintf("repeat=%d", max(1, p.Repeats)))
	if p.Mode != "" {
		parts = append(parts, "mode="+p.Mode)
	}
	if p.Budget != 0 {
		parts = append(parts, "budget="+strconv.FormatFloat(p.Budget, 'g', 3, 64))
	}
	if p.MinGain != nil {
		parts = append(parts, "min-gain="+strconv.FormatFloat(*p.MinGain, 'g', -1, 64))
	}
	return strings.Join(parts, " ")
}

// setPlanText replaces the plan; results of another plan are dropped.
func (s *sweepTab) setPlanText(text string, m *regs.Map) {
	s.planText = text
	if strings.TrimSpace(text) == "" {
		s.plan, s.planErr = SweepPlan{}, ""
		s.resetResults()
		return
	}
	p, err := parsePlan(text, m)
	if err != nil {
		s.planErr = err.Error()
		return
	}
	s.planErr = ""
	if planString(p, m) != planString(s.plan, m) {
		s.resetResults()
	}
	if s.plan.Source != "" {
		keepSettings(&p.Plan, s.plan.Plan)
	}
	p.Source = "screen"
	s.plan = p
}

// keepSettings carries the settings the plan text does not spell (a plan
// file's warm-ups, settle time, seed, baseline interval) from q to p.
func keepSettings(p *plan.Plan, q plan.Plan) {
	p.Warmup, p.Settle, p.Seed, p.BaselineEvery = q.Warmup, q.Settle, q.Seed, q.BaselineEvery
}

// proposeValues proposes values to sweep for f, in order: the extremes of
// its legal values (up to limit), the start and the mainline value.
func proposeValues(f *regs.Field, start uint32, mainline *uint32, limit uint32) []uint32 {
	legal := defaultValues(f, start, limit)
	if len(legal) == 0 {
		return nil
	}
	pick := []uint32{legal[0], legal[len(legal)-1]}
	ok := func(v uint32) bool {
		return regs.CheckValue(f, v) == nil && (limit == 0 || v <= limit)
	}
	if ok(start) {
		pick = append(pick, start)
	}
	if mainline != nil && ok(*mainline) {
		pick = append(pick, *mainline)
	}
	slices.Sort(pick)
	return slices.Compact(pick)
}

// defaultValues lists the legal values to choose from for f: its choices,
// or powers of two up to limit (or 64) and the starting value.
func defaultValues(f *regs.Field, start uint32, limit uint32) []uint32 {
	cs, _ := choicesOf(f)
	var vs []uint32
	if len(cs) > 0 {
		for _, c := range cs {
			if !c.reserved && regs.CheckValue(f, c.v) == nil {
				vs = append(vs, c.v)
			}
		}
		return vs
	}
	if limit == 0 || limit > f.WidthMax() {
		limit = min(f.WidthMax(), 64)
	}
	for v := uint32(1); v <= limit && v != 0; v <<= 1 {
		if regs.CheckValue(f, v) == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) > 5 {
		vs = vs[len(vs)-5:]
	}
	if !slices.Contains(vs, start) && regs.CheckValue(f, start) == nil {
		vs = append(vs, start)
		slices.Sort(vs)
	}
	return vs
}

// mainline is the value Linux leaves in ref on a board in the
// controller's role (the profile's board values), or nil.
func (m *Model) mainline(ref regs.Ref) *uint32 {
	for _, c := range m.cfg.Target.Profile.BoardValues(m.role()) {
		if c.Ref.Reg.Offset == ref.Reg.Offset && c.Ref.Field != nil && ref.Field != nil && c.Ref.Field.Name == ref.Field.Name {
			v := c.Value
			return &v
		}
	}
	return nil
}

// planFromAxes is the plan's text with its register axes made the fields
// marked on screen: a field already swept keeps its values, a new one gets
// proposed values; the other axes (files, module parameters, boot
// arguments, DT properties) and the settings stay as they are.
func (m *Model) planFromAxes() string {
	p := m.sweep.plan
	p.Repeats = cmp.Or(p.Repeats, 3)
	p.Axes = slices.DeleteFunc(slices.Clone(p.Axes), func(a plan.Axis) bool {
		return a.Kind == plan.KindRegister && !hasRef(m.axes, a.Ref)
	})
	for _, ref := range m.axes {
		if p.has(ref) {
			continue
		}
		sv := m.startValue(ref)
		var limit uint32
		if k := m.cfg.Target.Profile.Knob(ref); k != nil && k.DTMax != nil {
			limit = *k.DTMax
		}
		var vals []string
		for _, v := range proposeValues(ref.Field, sv, m.mainline(ref), limit) {
			vals = append(vals, strconv.FormatUint(uint64(v), 10))
		}
		p.Axes = append(p.Axes, plan.Axis{Kind: plan.KindRegister, Name: ref.String(), Ref: ref, Values: vals})
	}
	return planString(p, m.m)
}

func (m Model) onPlan(msg planMsg) Model {
	if msg.err != nil {
		m.setErr("plan %s: %v", msg.path, msg.err)
		return m
	}
	text := planString(msg.plan, m.m)
	if _, err := parsePlan(text, m.m); err != nil {
		m.setErr("plan %s: %v", msg.path, err)
		return m
	}
	m.sweep.setPlanText(text, m.m)
	keepSettings(&m.sweep.plan.Plan, msg.plan.Plan)
	m.sweep.plan.Source = msg.plan.Source
	m.sweep.markAxes()
	m.setStatus("loaded plan %s: %d point(s); r starts it%s", msg.path, m.sweep.plan.Points(), fewRuns(m.sweep.plan.Repeats))
	return m
}

// fewRuns is sweep's warning for too few runs, as a status line's tail.
func fewRuns(repeats int) string {
	if w := rank.FewRunsWarning(repeats); w != "" {
		return "; warning: " + w
	}
	return ""
}
