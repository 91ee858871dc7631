package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
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

	note     string
	results  string   // where the sweeper records the results
	bestVals []string // the sweeper's winner, when it names one

	view int
	top  int
}

// has reports whether ref is an axis of the plan.
func (p SweepPlan) has(ref regs.Ref) bool {
	for _, a := range p.Axes {
		if a.Kind == plan.KindRegister && sameRef(a.Ref, ref) {
			return true
		}
	}
	return false
}

// parsePlan reads the on-screen plan syntax: an axis per word as
// plan.ParseAxis reads it (FIELD=v1,v2,..., sysfs:PATH=..., modparam:M.P=...),
// optional repeat=N and mode=grid|ofat|adaptive.
func parsePlan(text string, m *regs.Map) (SweepPlan, error) {
	p := SweepPlan{Repeat: 3, Source: "screen"}
	var errs []error
	for _, tok := range strings.Fields(text) {
		i := strings.LastIndex(tok, "=")
		if i <= 0 || i == len(tok)-1 {
			errs = append(errs, fmt.Errorf("%q: want FIELD=v1,v2,..., repeat=N or mode=M", tok))
			continue
		}
		name, vals := tok[:i], tok[i+1:]
		switch {
		case strings.EqualFold(name, "repeat"):
			n, err := strconv.Atoi(vals)
			if err != nil || n < rank.MinRunsForCI || n > 100 {
				errs = append(errs, fmt.Errorf("repeat=%s: want %d..100 (with fewer runs per point no difference can be told from noise: no confidence interval)", vals, rank.MinRunsForCI))
				continue
			}
			p.Repeat = n
			continue
		case strings.EqualFold(name, "mode"):
			switch strings.ToLower(vals) {
			case "grid", "ofat", "adaptive":
				p.Mode = strings.ToLower(vals)
			default:
				errs = append(errs, fmt.Errorf("mode=%s: want grid, ofat or adaptive", vals))
			}
			continue
		}
		// An axis, in the sweep's own grammar (as --axis and plan
		// files): register values are checked like `citune set` values;
		// files and module parameters are checked again before the
		// first write.
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
	parts = append(parts, fmt.Sprintf("repeat=%d", max(1, p.Repeat)))
	if p.Mode != "" {
		parts = append(parts, "mode="+p.Mode)
	}
	return strings.Join(parts, " ")
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
	p.File = s.plan.File // settings a loaded plan file gave (settle, warm-ups)
	s.plan = p
}

// strs renders numbers in decimal.
func strs(vs []uint32) []string {
	var out []string
	for _, v := range vs {
		out = append(out, strconv.FormatUint(uint64(v), 10))
	}
	return out
}

func (s *sweepState) resetResults() {
	s.points, s.done, s.total, s.current = nil, 0, 0, ""
	s.finished, s.stopped, s.err, s.elapsed, s.top = false, false, "", 0, 0
	s.note, s.bestVals = "", nil
}

// proposeValues proposes a few values to sweep for f: the extremes of its
// legal values (up to the binding's maximum), the starting value and the
// mainline value (what Linux leaves on a board: nil when no source says),
// in order, each once.
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
	sort.Slice(pick, func(i, j int) bool { return pick[i] < pick[j] })
	out := pick[:0]
	for i, v := range pick {
		if i == 0 || v != pick[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// defaultValues lists the legal values to choose from for f: every legal
// named value, both values of a bit, a small range in full, otherwise
// powers of two up to the binding's maximum (or 64), plus the starting
// value.
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

// mainline is the value Linux leaves in ref on a board in the
// controller's role (the profile's board values), or nil.
func (m Model) mainline(ref regs.Ref) *uint32 {
	role := m.cfg.Role
	if role == "" {
		role, _ = roleOf(m.cfg.Target, m.m, m.cur)
	}
	for _, c := range m.cfg.Target.Profile.BoardValues(role) {
		if c.Ref.Reg.Offset == ref.Reg.Offset && c.Ref.Field != nil && ref.Field != nil && c.Ref.Field.Name == ref.Field.Name {
			v := c.Value
			return &v
		}
	}
	return nil
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
		sv := m.startValue(ref)
		var limit uint32
		if k := m.cfg.Target.Profile.Knob(ref); k != nil && k.DTMax != nil {
			limit = *k.DTMax
		}
		p.Axes = append(p.Axes, plan.Axis{Kind: plan.KindRegister, Name: ref.String(), Ref: ref, Values: strs(proposeValues(ref.Field, sv, m.mainline(ref), limit))})
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
		m.setErr("the plan has errors (listed above): e fixes it")
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
		s.done, s.total, s.elapsed = u.Done, u.Total, u.Elapsed
		if u.Current != "" {
			s.current = u.Current
		}
		if u.Note != "" {
			s.note = u.Note
		}
		if u.Results != "" {
			s.results = u.Results
		}
		if u.Best != nil {
			s.bestVals = u.Best
		}
		if u.Point != nil {
			s.addPoint(*u.Point)
			if u.Point.Status == rank.StatusCorrupt {
				m.setErr("CORRUPT data at %s: %s", s.label(*u.Point, m.m), u.Point.Reason)
			}
		}
	case sweepDoneMsg:
		if msg.id != s.id {
			return m, nil
		}
		s.running = false
		s.cancel()
		m.wgen++
		m.resync = true
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

func sameValues(a, b []string) bool {
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
	m.sweep.plan.File = msg.plan.File
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
		if i < len(p.Values) && p.Values[i] != "" {
			parts = append(parts, axisLabel(m, a)+"="+p.Values[i])
		}
	}
	return strings.Join(parts, " ")
}

// ranked splits points into the ranked ones sorted by median rate and the
// rest (not held, corrupt, failed, eliminated), baselines left out.
func (s sweepState) ranked() (good, bad []SweepPoint) {
	for _, p := range s.points {
		switch {
		case p.Baseline:
		case p.Ranked():
			good = append(good, p)
		default:
			bad = append(bad, p)
		}
	}
	sort.SliceStable(good, func(i, j int) bool { return median(good[i].Rates) > median(good[j].Rates) })
	if s.bestVals != nil {
		for i, p := range good {
			if sameValues(p.Values, s.bestVals) {
				good = append(append([]SweepPoint{p}, good[:i]...), good[i+1:]...)
				break
			}
		}
	}
	return good, bad
}

func (s sweepState) best() (SweepPoint, bool) {
	good, _ := s.ranked()
	if len(good) == 0 {
		return SweepPoint{}, false
	}
	return good[0], true
}

// baseline is every baseline measurement pooled, or the point whose
// values are the starting ones.
func (m Model) baseline() (SweepPoint, bool) {
	s := m.sweep
	var pooled SweepPoint
	for _, p := range s.points {
		if p.Baseline {
			pooled.Baseline = true
			pooled.Rates = append(pooled.Rates, p.Rates...)
		}
	}
	if len(pooled.Rates) > 0 {
		return pooled, true
	}
	var startVals []string
	for _, a := range s.plan.Axes {
		if a.Ref.Reg == nil {
			return SweepPoint{}, false
		}
		v := m.startValue(a.Ref)
		startVals = append(startVals, strconv.FormatUint(uint64(v), 10))
	}
	for _, p := range s.points {
		if sameValues(p.Values, startVals) && p.Ranked() {
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
	if b.Versus != "" {
		return line + b.Versus + " vs baseline"
	}
	if base, ok := m.baseline(); ok {
		if !base.Baseline && sameValues(base.Values, b.Values) {
			return line + "(the starting setting is best)"
		}
		if base.Baseline {
			return line + compare(base.Rates, b.Rates).String() + " vs baseline"
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
		// Every error, whole: wrapped, never cut.
		for i, e := range strings.Split(s.planErr, "\n") {
			prefix := "  "
			if i == 0 {
				out = append(out, m.st.Error.Render("plan errors:"))
			}
			for _, l := range wrap(e, w-len(prefix), "  ") {
				out = append(out, m.st.Error.Render(prefix+l))
			}
		}
		out = append(out, wrap("plan text: "+s.planText, w, "  ")...)
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
		done, of := doneAll, total
		if s.total > 0 {
			// The sweeper's count: grouped points, this run only.
			done, of = s.done, s.total
		}
		info := fmt.Sprintf(" %d/%d  ETA %s", done, of, eta)
		prog = bar(float64(done)/float64(max(1, of)), max(10, w/3)) + info + "  now: " + s.current
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
	if s.results != "" && !s.running {
		out = append(out, cut("results: "+s.results, w))
	}
	for i, l := range wrap(s.note, w, "  ") {
		if i < 2 {
			out = append(out, l)
		}
	}
	for i, l := range wrap(m.bestLine(), w, "      ") {
		if i < 2 {
			out = append(out, m.st.Good.Render(l))
		}
	}
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
		if rest < 30 {
			out = append(out, m.tableView(rest)...)
			break
		}
		// Tall screens show the chart under the table.
		tab := m.tableView(rest / 2)
		out = append(out, padLines(tab, w, rest/2)...)
		if len(s.plan.Axes) == 2 {
			out = append(out, m.st.Section.Render(fit("-- heat map ", w)))
			out = append(out, m.heatView(rest-rest/2-1)...)
		} else {
			out = append(out, m.st.Section.Render(fit("-- bars ", w)))
			out = append(out, m.barsView(rest-rest/2-1)...)
		}
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
		n := axisLabel(m.m, a)
		w := max(len(n), 4)
		for _, v := range a.Values {
			w = max(w, len(v))
		}
		cols = append(cols, n)
		widths = append(widths, min(w, 24))
	}
	head := "rank "
	for i, c := range cols {
		head += fit(c, widths[i]) + " "
	}
	head += fmt.Sprintf("%12s %8s %8s %7s  %s", "median", "spread", "irq/MiB", "ms/MiB", "status")
	out := []string{m.st.ColHead.Render(fit(head, m.w))}
	row := func(rank string, p SweepPoint) string {
		line := fit(rank, 5)
		for i := range cols {
			v := "?"
			if i < len(p.Values) {
				v = p.Values[i]
				if v == "" {
					v = "(orig)"
				}
			}
			line += fit(v, widths[i]) + " "
		}
		med, spr, irq, cpu := "--", "--", "--", "--"
		if len(p.Rates) > 0 {
			med = fmt.Sprintf("%.2f MiB/s", median(p.Rates)/(1<<20))
			spr = fmtSpread(p.Rates)
			if p.IRQsPerMiB > 0 {
				irq = fmt.Sprintf("%.1f", p.IRQsPerMiB)
			}
			if p.CPUPerMiB > 0 {
				cpu = fmt.Sprintf("%.2f", p.CPUPerMiB)
			}
		}
		return fit(line+fmt.Sprintf("%12s %8s %8s %7s  %s", med, spr, irq, cpu, pointStatus(p)), m.w)
	}
	var lines []string
	for i, p := range good {
		lines = append(lines, row(fmt.Sprint(i+1), p))
	}
	for _, p := range bad {
		l := row("-", p)
		if p.Status == rank.StatusCorrupt {
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

// pointStatus says in words why a point is or is not ranked.
func pointStatus(p SweepPoint) string {
	switch p.Status {
	case rank.StatusCorrupt:
		return "CORRUPT: " + p.Reason
	case rank.StatusNotHeld, rank.StatusFailed, rank.StatusEliminated:
		return string(p.Status) + ": " + p.Reason
	}
	return "ok"
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
		why := pointStatus(p)
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
	// A point whose axis the hardware ignored ("") stands for every
	// value of that axis.
	find := func(x, y string) (SweepPoint, bool) {
		for _, p := range s.points {
			if !p.Baseline && len(p.Values) == 2 && (p.Values[0] == x || p.Values[0] == "") && (p.Values[1] == y || p.Values[1] == "") {
				return p, true
			}
		}
		return SweepPoint{}, false
	}
	nx, ny := axisLabel(m.m, ax), axisLabel(m.m, ay)
	rowW := max(len(nx)+1+len(ny), 6) + 1
	cellW := 9
	ncol := min(len(ay.Values), max(1, (m.w-rowW)/cellW))
	out := []string{cut(fmt.Sprintf("rows %s, cols %s: median MiB/s, shade %s low..high; n/h not held", nx, ny, shades), m.w)}
	head := fit(nx+`\`+ny, rowW)
	for _, v := range ay.Values[:ncol] {
		head += fmt.Sprintf("%*s", cellW, cut(v, cellW-1))
	}
	if ncol < len(ay.Values) {
		head += " ~"
	}
	out = append(out, m.st.ColHead.Render(cut(head, m.w)))
	for _, x := range ax.Values {
		if len(out) >= h {
			break
		}
		line := fit(x, rowW)
		for _, y := range ay.Values[:ncol] {
			p, ok := find(x, y)
			var cell string
			switch {
			case !ok:
				cell = "."
			case p.Status == rank.StatusCorrupt:
				cell = "CORRUPT"
			case p.Status == rank.StatusNotHeld:
				cell = "n/h"
			case p.Status == rank.StatusFailed:
				cell = "failed"
			case p.Status == rank.StatusEliminated:
				cell = "elim"
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
