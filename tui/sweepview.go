package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
)

// Sweep tab views.
const (
	viewTable = iota
	viewBars
	viewHeat
)

// sweepState is the Sweep tab.
type sweepState struct {
	planText string
	plan     SweepPlan
	planErr  string

	id      int
	running bool
	cancel  context.CancelFunc
	ch      chan tea.Msg

	points   []SweepPoint
	done     int
	total    int
	current  string
	elapsed  time.Duration
	finished bool
	stopped  bool
	err      string

	view int
	top  int
}

// has reports whether ref is an axis of the plan.
func (p SweepPlan) has(ref regs.Ref) bool {
	for _, a := range p.Axes {
		if sameRef(a.Ref, ref) {
			return true
		}
	}
	return false
}

// parsePlan reads the on-screen plan syntax: FIELD=v1,v2,... per axis and
// an optional repeat=N. Values are checked like `citune set` values.
func parsePlan(text string, m *regs.Map) (SweepPlan, error) {
	p := SweepPlan{Repeat: 3, Source: "screen"}
	var errs []error
	for _, tok := range strings.Fields(text) {
		name, vals, ok := strings.Cut(tok, "=")
		if !ok || vals == "" {
			errs = append(errs, fmt.Errorf("%q: want FIELD=v1,v2,... or repeat=N", tok))
			continue
		}
		if strings.EqualFold(name, "repeat") {
			n, err := strconv.Atoi(vals)
			if err != nil || n < 1 || n > 100 {
				errs = append(errs, fmt.Errorf("repeat=%s: want 1..100", vals))
				continue
			}
			p.Repeat = n
			continue
		}
		ref, err := m.Lookup(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ref.Field == nil {
			errs = append(errs, fmt.Errorf("%s is a register: sweep one of its fields", ref))
			continue
		}
		if p.has(ref) {
			errs = append(errs, fmt.Errorf("%s is listed twice", ref))
			continue
		}
		ax := SweepAxis{Ref: ref}
		for _, v := range strings.Split(vals, ",") {
			c, err := m.ParseChange(ref.String() + "=" + v)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			ax.Values = append(ax.Values, c.Value)
		}
		p.Axes = append(p.Axes, ax)
	}
	if err := errors.Join(errs...); err != nil {
		return SweepPlan{}, err
	}
	return p, nil
}

// planString renders p in the on-screen syntax.
func planString(p SweepPlan, m *regs.Map) string {
	var parts []string
	for _, a := range p.Axes {
		var vs []string
		for _, v := range a.Values {
			vs = append(vs, fmt.Sprint(v))
		}
		parts = append(parts, shortName(m, a.Ref)+"="+strings.Join(vs, ","))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(append(parts, fmt.Sprintf("repeat=%d", max(1, p.Repeat))), " ")
}

// setPlanText replaces the plan; results of another plan are dropped.
func (s *sweepState) setPlanText(text string, m *regs.Map) {
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
	p.Source = "screen"
	s.plan = p
}

func (s *sweepState) resetResults() {
	s.points, s.done, s.total, s.current = nil, 0, 0, ""
	s.finished, s.stopped, s.err, s.elapsed, s.top = false, false, "", 0, 0
}

// defaultValues proposes values to sweep for f: every legal named value,
// both values of a bit, a small range in full, otherwise powers of two up
// to the binding's maximum (or 64), plus the starting value.
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
	found := false
	for _, v := range vs {
		found = found || v == start
	}
	if !found && regs.CheckValue(f, start) == nil {
		vs = append(vs, start)
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	}
	return vs
}

// planFromAxes builds the plan text from the fields marked on screen.
func (m Model) planFromAxes() string {
	if len(m.axes) == 0 {
		return ""
	}
	p := SweepPlan{Repeat: 3}
	if m.sweep.plan.Repeat > 0 {
		p.Repeat = m.sweep.plan.Repeat
	}
	for _, ref := range m.axes {
		sv, _ := m.cfg.Ledger.StartValue(ref)
		var limit uint32
		if k := m.cfg.Target.Profile.Knob(ref); k != nil && k.DTMax != nil {
			limit = *k.DTMax
		}
		p.Axes = append(p.Axes, SweepAxis{Ref: ref, Values: defaultValues(ref.Field, sv, limit)})
	}
	return planString(p, m.m)
}

func (m Model) sweepKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	s := &m.sweep
	switch {
	case key.Matches(msg, k.Run):
		return m.startSweep()
	case key.Matches(msg, k.Stop):
		if !s.running {
			m.setStatus("no sweep is running")
			return m, nil
		}
		s.cancel()
		m.setStatus("stopping the sweep (it restores its values first)...")
	case key.Matches(msg, k.Plan):
		if s.running {
			m.setErr("the plan cannot change while the sweep runs (s stops it)")
			return m, nil
		}
		m.mode = modePlan
		m.in.Prompt = "plan: "
		m.in.Placeholder = "AHBBRST=0,2,3 ITC=0,1,8 repeat=3"
		m.in.SetValue(s.planText)
		m.in.CursorEnd()
		return m, m.in.Focus()
	case key.Matches(msg, k.Load):
		if s.running {
			m.setErr("a plan cannot be loaded while the sweep runs (s stops it)")
			return m, nil
		}
		if m.cfg.LoadPlan == nil {
			m.setErr("plan files are not available: %s", m.cfg.NoSweep)
			return m, nil
		}
		m.mode = modeLoad
		m.in.Prompt = "plan file: "
		m.in.Placeholder = "plan.toml"
		m.in.SetValue("")
		return m, m.in.Focus()
	case key.Matches(msg, k.Chart):
		n := 2
		if len(s.plan.Axes) == 2 {
			n = 3
		}
		s.view = (s.view + 1) % n
	case key.Matches(msg, k.Up):
		s.top = max(0, s.top-1)
	case key.Matches(msg, k.Down):
		s.top = min(max(0, len(s.points)-1), s.top+1)
	}
	return m, nil
}

func (m Model) startSweep() (tea.Model, tea.Cmd) {
	s := &m.sweep
	switch {
	case m.cfg.Sweeper == nil:
		m.setErr("sweeping is not available: %s", m.cfg.NoSweep)
		return m, nil
	case s.running:
		m.setErr("the sweep is already running (s stops it)")
		return m, nil
	case s.planErr != "":
		m.setErr("the plan has errors: %s", s.planErr)
		return m, nil
	case len(s.plan.Axes) == 0:
		m.setErr("no plan: mark fields with x on the Registers tab, e writes a plan, l loads a file")
		return m, nil
	case m.probe.running:
		m.setErr("a probe is running; wait for it or stop it first")
		return m, nil
	case m.writing:
		m.setErr("a write is in flight; try again in a moment")
		return m, nil
	}
	var done []SweepPoint
	if s.finished {
		s.resetResults()
	} else {
		done = append(done, s.points...)
	}
	for _, a := range s.plan.Axes {
		m.cfg.Ledger.Touch(a.Ref)
	}
	ctx, cancel := context.WithCancel(m.cfg.Ctx)
	s.id++
	s.running, s.cancel, s.stopped, s.err = true, cancel, false, ""
	s.done, s.total, s.elapsed, s.current = 0, s.plan.Points()-countHeld(done), 0, ""
	s.ch = make(chan tea.Msg, 16)
	if len(done) > 0 {
		m.setStatus("resuming the sweep: %d point(s) done, %d to go", len(done), s.total)
	} else {
		m.setStatus("sweep started: %d point(s), %d run(s) each", s.plan.Points(), s.plan.Repeat)
	}
	return m, job(m.cfg.Ctx, m.cfg.Jobs, s.ch, sweepJob(ctx, m.cfg.Sweeper, s.plan, done, s.id))
}

// countHeld counts finished non-baseline points.
func countHeld(ps []SweepPoint) int {
	n := 0
	for _, p := range ps {
		if !p.Baseline {
			n++
		}
	}
	return n
}

func (m Model) onSweep(msg tea.Msg) (tea.Model, tea.Cmd) {
	s := &m.sweep
	switch msg := msg.(type) {
	case sweepMsg:
		if msg.id != s.id {
			return m, nil
		}
		u := msg.u
		s.done, s.total, s.current, s.elapsed = u.Done, u.Total, u.Current, u.Elapsed
		if u.Point != nil {
			s.addPoint(*u.Point)
			if u.Point.Corrupt != "" {
				m.setErr("CORRUPT data at %s: %s", s.label(*u.Point, m.m), u.Point.Corrupt)
			}
		}
	case sweepDoneMsg:
		if msg.id != s.id {
			return m, nil
		}
		s.running = false
		s.cancel()
		m.wgen++
		read := readRegs(m.cfg.Target.Acc, m.m, m.wgen)
		switch {
		case errors.Is(msg.err, context.Canceled):
			s.stopped = true
			m.setStatus("sweep stopped at %d/%d point(s); r resumes", len(s.points), s.plan.Points())
		case msg.err != nil:
			s.err = msg.err.Error()
			m.setErr("sweep: %v", msg.err)
		default:
			s.finished = true
			if b, ok := s.best(); ok {
				m.setStatus("sweep finished; best %s at %s", s.label(b, m.m), fmtRate(median(b.Rates)))
			} else {
				m.setStatus("sweep finished without a point that held")
			}
		}
		if m.mode == modeClosing {
			mm, cmd := m.proceedClose()
			return mm, tea.Batch(read, cmd)
		}
		return m, read
	}
	return m, listen(s.ch)
}

// addPoint records a point, replacing an earlier result of the same
// values (baselines are kept, each measurement counts).
func (s *sweepState) addPoint(p SweepPoint) {
	if !p.Baseline {
		for i := range s.points {
			if !s.points[i].Baseline && sameValues(s.points[i].Values, p.Values) {
				s.points[i] = p
				return
			}
		}
	}
	s.points = append(s.points, p)
}

func sameValues(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
	m.sweep.plan.Source = msg.plan.Source
	m.axes = nil
	for _, a := range m.sweep.plan.Axes {
		m.axes = append(m.axes, a.Ref)
	}
	m.setStatus("loaded plan %s: %d point(s); r starts it", msg.path, m.sweep.plan.Points())
	return m
}

// label names a point by its axis values.
func (s sweepState) label(p SweepPoint, m *regs.Map) string {
	if p.Baseline {
		return "baseline"
	}
	var parts []string
	for i, a := range s.plan.Axes {
		if i < len(p.Values) {
			parts = append(parts, fmt.Sprintf("%s=%d", shortName(m, a.Ref), p.Values[i]))
		}
	}
	return strings.Join(parts, " ")
}

// ranked splits points into the ranked ones (held, intact, not baseline)
// sorted by median rate, and the rest.
func (s sweepState) ranked() (good, bad []SweepPoint) {
	for _, p := range s.points {
		switch {
		case p.Baseline:
		case p.NotHeld != "" || p.Corrupt != "" || len(p.Rates) == 0:
			bad = append(bad, p)
		default:
			good = append(good, p)
		}
	}
	sort.SliceStable(good, func(i, j int) bool { return median(good[i].Rates) > median(good[j].Rates) })
	return good, bad
}

func (s sweepState) best() (SweepPoint, bool) {
	good, _ := s.ranked()
	if len(good) == 0 {
		return SweepPoint{}, false
	}
	return good[0], true
}

// baseline is the latest baseline measurement, or the point whose values
// are the starting ones.
func (m Model) baseline() (SweepPoint, bool) {
	s := m.sweep
	for i := len(s.points) - 1; i >= 0; i-- {
		if s.points[i].Baseline && len(s.points[i].Rates) > 0 {
			return s.points[i], true
		}
	}
	var startVals []uint32
	for _, a := range s.plan.Axes {
		v, _ := m.cfg.Ledger.StartValue(a.Ref)
		startVals = append(startVals, v)
	}
	for _, p := range s.points {
		if !p.Baseline && sameValues(p.Values, startVals) && p.NotHeld == "" && p.Corrupt == "" && len(p.Rates) > 0 {
			return p, true
		}
	}
	return SweepPoint{}, false
}

// bestLine says which point is best and how sure that is.
func (m Model) bestLine() string {
	s := m.sweep
	b, ok := s.best()
	if !ok {
		return "best: none yet"
	}
	line := fmt.Sprintf("best: %s  %s  ", s.label(b, m.m), fmtRate(median(b.Rates)))
	if base, ok := m.baseline(); ok {
		if !base.Baseline && sameValues(base.Values, b.Values) {
			return line + "(the starting setting is best)"
		}
		return line + compare(base.Rates, b.Rates).String() + " vs start"
	}
	good, _ := s.ranked()
	if len(good) > 1 {
		c := compare(good[1].Rates, b.Rates)
		return line + c.String() + " vs runner-up"
	}
	return line + "(only one point so far)"
}

func (m Model) sweepView(h int) []string {
	s := m.sweep
	w := m.w
	var out []string
	switch m.mode {
	case modePlan:
		out = append(out, m.st.Title.Render(cut("Sweep plan: FIELD=v1,v2,... per axis and repeat=N; values as for citune set", w)), m.inputView())
	case modeLoad:
		out = append(out, m.st.Title.Render(cut("Load a sweep plan file", w)), m.inputView())
	}
	if m.cfg.Sweeper == nil {
		out = append(out, m.st.Error.Render(cut("Sweeping is not available: "+m.cfg.NoSweep, w)))
	}
	switch {
	case s.planErr != "":
		out = append(out, m.st.Error.Render(cut("plan error: "+s.planErr, w)))
		out = append(out, cut("plan text: "+s.planText, w))
	case len(s.plan.Axes) == 0:
		out = append(out, cut("No plan yet: x marks fields on the Registers tab, e writes a plan, l loads a file.", w))
	default:
		out = append(out, cut(fmt.Sprintf("plan (%s): %s  = %d points x %d runs", s.plan.Source, planString(s.plan, m.m), s.plan.Points(), s.plan.Repeat), w))
	}
	total := s.plan.Points()
	doneAll := countHeld(s.points)
	var prog string
	switch {
	case s.running:
		eta := "--"
		if s.done > 0 {
			eta = fmtDur(time.Duration(float64(s.elapsed) / float64(s.done) * float64(s.total-s.done)))
		}
		info := fmt.Sprintf(" %d/%d  ETA %s", doneAll, total, eta)
		prog = bar(float64(doneAll)/float64(max(1, total)), max(10, w/3)) + info + "  now: " + s.current
	case s.stopped:
		prog = fmt.Sprintf("stopped at %d/%d points: r resumes", doneAll, total)
	case s.finished:
		prog = fmt.Sprintf("finished: %d points in %s", doneAll, fmtDur(s.elapsed))
	case s.err != "":
		prog = "failed: " + s.err
	case total > 0:
		prog = "ready: r starts the sweep"
	}
	out = append(out, cut(prog, w))
	out = append(out, m.st.Good.Render(cut(m.bestLine(), w)))
	views := "table"
	switch s.view {
	case viewBars:
		views = "bars"
	case viewHeat:
		views = "heat map"
	}
	out = append(out, m.st.Section.Render(fit(fmt.Sprintf("-- %s (v switches view) ", views), w)))
	rest := h - len(out)
	switch s.view {
	case viewBars:
		out = append(out, m.barsView(rest)...)
	case viewHeat:
		out = append(out, m.heatView(rest)...)
	default:
		out = append(out, m.tableView(rest)...)
	}
	return out
}

// tableView lists points sorted by rate, then not-held and corrupt ones.
func (m Model) tableView(h int) []string {
	s := m.sweep
	good, bad := s.ranked()
	var cols []string
	var widths []int
	for _, a := range s.plan.Axes {
		n := shortName(m.m, a.Ref)
		cols = append(cols, n)
		widths = append(widths, max(len(n), 4))
	}
	head := "rank "
	for i, c := range cols {
		head += fit(c, widths[i]) + " "
	}
	head += fmt.Sprintf("%12s %8s %8s %6s  %s", "median", "spread", "irq/MiB", "CPU", "status")
	out := []string{m.st.ColHead.Render(fit(head, m.w))}
	row := func(rank string, p SweepPoint) string {
		line := fit(rank, 5)
		for i := range cols {
			v := "?"
			if i < len(p.Values) {
				v = fmt.Sprint(p.Values[i])
			}
			line += fit(v, widths[i]) + " "
		}
		med, spr, irq, cpu := "--", "--", "--", "--"
		if len(p.Rates) > 0 {
			med = fmt.Sprintf("%.2f MiB/s", median(p.Rates)/(1<<20))
			spr = fmtSpread(p.Rates)
			irq = fmt.Sprintf("%.1f", p.IRQsPerMiB)
			cpu = fmt.Sprintf("%.1f%%", p.CPUPercent)
		}
		status := "ok"
		switch {
		case p.Corrupt != "":
			status = "CORRUPT " + p.Corrupt
		case p.NotHeld != "":
			status = "not-held: " + p.NotHeld
		}
		return fit(line+fmt.Sprintf("%12s %8s %8s %6s  %s", med, spr, irq, cpu, status), m.w)
	}
	var lines []string
	for i, p := range good {
		lines = append(lines, row(fmt.Sprint(i+1), p))
	}
	for _, p := range bad {
		l := row("-", p)
		if p.Corrupt != "" {
			l = m.st.Error.Render(l)
		} else {
			l = m.st.Drift.Render(l)
		}
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		lines = append(lines, "     no points measured yet")
	}
	top := min(s.top, max(0, len(lines)-(h-1)))
	for i := top; i < len(lines) && len(out) < h; i++ {
		out = append(out, lines[i])
	}
	return out
}

// barsView draws one bar per point, sorted by rate.
func (m Model) barsView(h int) []string {
	s := m.sweep
	good, bad := s.ranked()
	labelW := 10
	for _, p := range append(append([]SweepPoint(nil), good...), bad...) {
		labelW = max(labelW, len(s.label(p, m.m)))
	}
	labelW = min(labelW, m.w/3)
	maxRate := 0.0
	for _, p := range good {
		maxRate = max(maxRate, median(p.Rates))
	}
	barW := max(5, m.w-labelW-17)
	var lines []string
	for _, p := range good {
		r := median(p.Rates)
		n := 0
		if maxRate > 0 {
			n = int(r/maxRate*float64(barW) + 0.5)
		}
		lines = append(lines, fit(fmt.Sprintf("%s |%s %8.2f MiB/s", fit(s.label(p, m.m), labelW), fit(strings.Repeat("#", n), barW), r/(1<<20)), m.w))
	}
	for _, p := range bad {
		why := "not-held: " + p.NotHeld
		if p.Corrupt != "" {
			why = "CORRUPT: " + p.Corrupt
		}
		lines = append(lines, m.st.Drift.Render(fit(fmt.Sprintf("%s |%s", fit(s.label(p, m.m), labelW), why), m.w)))
	}
	if len(lines) == 0 {
		lines = append(lines, "no points measured yet")
	}
	top := min(s.top, max(0, len(lines)-h))
	end := min(len(lines), top+h)
	return lines[top:end]
}

// shades go from low to high rate.
const shades = ".:-=+*#%@"

// heatView draws a two-axis grid: rows are the first axis, columns the
// second; each cell has the median rate and a shade character.
func (m Model) heatView(h int) []string {
	s := m.sweep
	if len(s.plan.Axes) != 2 {
		return []string{"the heat map needs exactly two axes"}
	}
	ax, ay := s.plan.Axes[0], s.plan.Axes[1]
	good, _ := s.ranked()
	lo, hi := 0.0, 0.0
	for i, p := range good {
		r := median(p.Rates)
		if i == 0 || r > hi {
			hi = r
		}
		if i == 0 || r < lo {
			lo = r
		}
	}
	find := func(x, y uint32) (SweepPoint, bool) {
		for _, p := range s.points {
			if !p.Baseline && len(p.Values) == 2 && p.Values[0] == x && p.Values[1] == y {
				return p, true
			}
		}
		return SweepPoint{}, false
	}
	nx, ny := shortName(m.m, ax.Ref), shortName(m.m, ay.Ref)
	rowW := max(len(nx)+1+len(ny), 6) + 1
	cellW := 9
	ncol := min(len(ay.Values), max(1, (m.w-rowW)/cellW))
	out := []string{cut(fmt.Sprintf("rows %s, columns %s: median MiB/s, shade %s low..high, n/h not held", nx, ny, shades), m.w)}
	head := fit(nx+`\`+ny, rowW)
	for _, v := range ay.Values[:ncol] {
		head += fmt.Sprintf("%*d", cellW, v)
	}
	if ncol < len(ay.Values) {
		head += " ~"
	}
	out = append(out, m.st.ColHead.Render(cut(head, m.w)))
	for _, x := range ax.Values {
		if len(out) >= h {
			break
		}
		line := fit(fmt.Sprint(x), rowW)
		for _, y := range ay.Values[:ncol] {
			p, ok := find(x, y)
			var cell string
			switch {
			case !ok:
				cell = "."
			case p.Corrupt != "":
				cell = "CORRUPT"
			case p.NotHeld != "":
				cell = "n/h"
			case len(p.Rates) == 0:
				cell = "--"
			default:
				r := median(p.Rates)
				i := len(shades) - 1
				if hi > lo {
					i = int((r - lo) / (hi - lo) * float64(len(shades)-1))
				}
				cell = fmt.Sprintf("%.1f%c", r/(1<<20), shades[i])
			}
			line += fmt.Sprintf("%*s", cellW, cell)
		}
		out = append(out, cut(line, m.w))
	}
	return out
}

// winnerValues are the current knob values with the sweep winner's axis
// values in place.
func (m Model) winnerValues() (map[string]uint32, string, bool) {
	b, ok := m.sweep.best()
	if !ok {
		return nil, "", false
	}
	vals := knobValues(m.cfg.Target.Profile, m.cur)
	for i, a := range m.sweep.plan.Axes {
		if i < len(b.Values) {
			vals[refKey(a.Ref)] = b.Values[i]
		}
	}
	return vals, "sweep winner " + m.bestLine(), true
}
