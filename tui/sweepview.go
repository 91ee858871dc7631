package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// Sweep tab views.
const (
	viewTable = iota
	viewBars
	viewHeat
)

// View is the Sweep tab: the plan, the progress, the best point and
// the table or chart of the points.
func (s *sweepTab) View(h int) []string {
	w := s.w
	out := s.planView()
	out = append(out, cut(s.progress(), w))
	if s.results != "" && !s.sweeping {
		out = append(out, cut("results: "+s.results, w))
	}
	note := wrap(s.note, w, "  ")
	out = append(out, note[:min(2, len(note))]...)
	best := wrap(s.bestLine(), w, "      ")
	for _, l := range best[:min(2, len(best))] {
		out = append(out, s.st.Good.Render(l))
	}
	views := [...]string{viewTable: "table", viewBars: "bars", viewHeat: "heat map"}[s.view]
	out = append(out, s.st.Section.Render(fit(fmt.Sprintf("-- %s (v switches view) ", views), w)))
	return append(out, s.chartView(h-len(out))...)
}

// planView is the plan prompt, why sweeping is not available, and the
// plan or its errors.
func (s *sweepTab) planView() []string {
	w := s.w
	var out []string
	switch s.prompt {
	case promptPlan:
		out = append(out, wrapStyled(s.st.Title, "Sweep plan: FIELD=v1,v2,... per axis and repeat=N; values as for citune set", w)...)
		out = append(out, s.inputView())
	case promptLoad:
		out = append(out, s.st.Title.Render(cut("Load a sweep plan, or an earlier sweep's results", w)), s.inputView())
	}
	if s.cfg.Sweeper == nil {
		out = append(out, wrapStyled(s.st.Error, "Sweeping is not available: "+s.cfg.NoSweep, w)...)
	}
	switch {
	case s.planErr != "":
		// Every error, whole: wrapped, never cut.
		out = append(out, s.st.Error.Render("plan errors:"))
		for _, e := range strings.Split(s.planErr, "\n") {
			for _, l := range wrap(e, w-2, "  ") {
				out = append(out, s.st.Error.Render("  "+l))
			}
		}
		out = append(out, wrap("plan text: "+s.planText, w, "  ")...)
	case len(s.plan.Axes) == 0:
		out = append(out, wrap("No plan yet: x marks fields on the Registers tab, e writes a plan, l loads a file.", w, "  ")...)
	default:
		out = append(out, wrap(fmt.Sprintf("plan (%s): %s  = %d points x %d runs", s.plan.Source, planString(s.plan, s.m), s.plan.Points(), s.plan.Repeats), w, "  ")...)
	}
	return out
}

// progress is a bar and the ETA while the sweep runs, else how it ended.
func (s *sweepTab) progress() string {
	total := s.plan.Points()
	doneAll := countHeld(s.points)
	switch {
	case s.sweeping:
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
		return bar(float64(done)/float64(max(1, of)), max(10, s.w/3)) + info + "  now: " + s.current
	case s.stopped:
		return fmt.Sprintf("stopped at %d/%d points: r resumes", doneAll, total)
	case s.finished && s.simulated:
		return fmt.Sprintf("finished: %d points in %s of the simulated board's time", doneAll, fmtDur(s.elapsed))
	case s.finished:
		return fmt.Sprintf("finished: %d points in %s", doneAll, fmtDur(s.elapsed))
	case s.err != "":
		return "failed: " + s.err
	case total > 0:
		return "ready: r starts the sweep"
	}
	return ""
}

// chartView fills rest lines with the view chosen with v.
func (s *sweepTab) chartView(rest int) []string {
	w := s.w
	switch s.view {
	case viewBars:
		return s.barsView(rest)
	case viewHeat:
		return s.heatView(rest)
	}
	if rest < 30 {
		return s.tableView(rest)
	}
	// Tall screens show the chart under the table.
	out := padLines(s.tableView(rest/2), rest/2)
	if len(s.plan.Axes) == 2 {
		out = append(out, s.st.Section.Render(fit("-- heat map ", w)))
		return append(out, s.heatView(rest-rest/2-1)...)
	}
	out = append(out, s.st.Section.Render(fit("-- bars ", w)))
	return append(out, s.barsView(rest-rest/2-1)...)
}

// tableView lists points sorted by rate, then not-held and corrupt ones.
func (s *sweepTab) tableView(h int) []string {
	good, bad := s.ranked()
	var widths []int
	head := "rank "
	for _, a := range s.plan.Axes {
		n := axisLabel(s.m, a)
		w := max(len(n), 4)
		for _, v := range a.Values {
			w = max(w, len(v))
		}
		widths = append(widths, min(w, 24))
		head += fit(n, min(w, 24)) + " "
	}
	// The median column is as wide as its widest rate (12 for MiB/s).
	medW := 12
	for _, p := range s.points {
		if len(p.Rates) > 0 {
			medW = max(medW, len(s.pointRate(p)))
		}
	}
	head += fmt.Sprintf("%*s %8s %8s %7s  %s", medW, "median", "spread", "irq/"+s.amount(), "ms/"+s.amount(), "status")
	out := []string{s.st.ColHead.Render(fit(head, s.w))}
	row := func(rank string, p results.PointRecord) string {
		line := fit(rank, 5)
		for i, v := range s.values(p) {
			if v == "" {
				v = "(orig)"
			}
			line += fit(v, widths[i]) + " "
		}
		med, spr, irq, cpu := "--", "--", "--", "--"
		if len(p.Rates) > 0 {
			med = s.pointRate(p)
			spr = fmtSpread(p.Rates)
			if p.IRQsPerMiB != nil && *p.IRQsPerMiB > 0 {
				irq = fmt.Sprintf("%.1f", s.cfg.ByteUnit.Per(*p.IRQsPerMiB))
			}
			if p.CPUPerMiB != nil && *p.CPUPerMiB > 0 {
				cpu = fmt.Sprintf("%.2f", s.cfg.ByteUnit.Per(*p.CPUPerMiB))
			}
		}
		return fit(line+fmt.Sprintf("%*s %8s %8s %7s  %s", medW, med, spr, irq, cpu, pointStatus(p)), s.w)
	}
	var lines []string
	for i, p := range good {
		lines = append(lines, row(fmt.Sprint(i+1), p))
	}
	for _, p := range bad {
		l := row("-", p)
		if p.Status == rank.StatusCorrupt {
			l = s.st.Error.Render(l)
		} else {
			l = s.st.Drift.Render(l)
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
func (s *sweepTab) barsView(h int) []string {
	good, bad := s.ranked()
	labelW := 10
	for _, p := range append(append([]results.PointRecord(nil), good...), bad...) {
		labelW = max(labelW, len(s.label(p)))
	}
	labelW = min(labelW, s.w/3)
	// Each bar ends in its rate, right-aligned in rateW columns.
	maxRate, rateW := 0.0, 14
	for _, p := range good {
		maxRate = max(maxRate, rank.Median(p.Rates))
		rateW = max(rateW, len(s.pointRate(p)))
	}
	barW := max(5, s.w-labelW-3-rateW)
	var lines []string
	for _, p := range good {
		r := rank.Median(p.Rates)
		n := 0
		if maxRate > 0 {
			n = int(r/maxRate*float64(barW) + 0.5)
		}
		lines = append(lines, fit(fmt.Sprintf("%s |%s %*s", fit(s.label(p), labelW), fit(strings.Repeat("#", n), barW), rateW, s.pointRate(p)), s.w))
	}
	for _, p := range bad {
		lines = append(lines, s.st.Drift.Render(fit(fmt.Sprintf("%s |%s", fit(s.label(p), labelW), pointStatus(p)), s.w)))
	}
	if len(lines) == 0 {
		lines = append(lines, "no points measured yet")
	}
	h = max(h, 0) // a small screen can leave the chart no line
	top := min(s.top, max(0, len(lines)-h))
	end := min(len(lines), top+h)
	return lines[top:end]
}

// shades go from low to high rate.
const shades = ".:-=+*#%@"

// heatView draws the two axes' grid, each cell's median rate and shade.
func (s *sweepTab) heatView(h int) []string {
	if len(s.plan.Axes) != 2 {
		return []string{"the heat map needs exactly two axes"}
	}
	ax, ay := s.plan.Axes[0], s.plan.Axes[1]
	good, _ := s.ranked()
	lo, hi := 0.0, 0.0
	for i, p := range good {
		r := rank.Median(p.Rates)
		if i == 0 {
			lo, hi = r, r
		}
		lo, hi = min(lo, r), max(hi, r)
	}
	// A point whose axis the hardware ignored ("") stands for every
	// value of that axis.
	find := func(x, y string) (results.PointRecord, bool) {
		for _, p := range s.points {
			if vs := s.values(p); !p.Baseline && (vs[0] == x || vs[0] == "") && (vs[1] == y || vs[1] == "") {
				return p, true
			}
		}
		return results.PointRecord{}, false
	}
	nx, ny := axisLabel(s.m, ax), axisLabel(s.m, ay)
	rowW := max(len(nx)+1+len(ny), 6) + 1
	cellW := 9
	ncol := min(len(ay.Values), max(1, (s.w-rowW)/cellW))
	unit := s.unit()
	out := []string{cut(fmt.Sprintf("rows %s, cols %s: median %s, shade %s low..high; n/h not held", nx, ny, s.cfg.ByteUnit.Unit(unit), shades), s.w)}
	head := fit(nx+`\`+ny, rowW)
	for _, v := range ay.Values[:ncol] {
		head += fmt.Sprintf("%*s", cellW, cut(v, cellW-1))
	}
	if ncol < len(ay.Values) {
		head += " ~"
	}
	out = append(out, s.st.ColHead.Render(cut(head, s.w)))
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
				r := rank.Median(p.Rates)
				i := len(shades) - 1
				if hi > lo {
					i = int((r - lo) / (hi - lo) * float64(len(shades)-1))
				}
				cell = fmt.Sprintf("%.1f%c", s.cfg.ByteUnit.In(r, unit), shades[i])
			}
			line += fmt.Sprintf("%*s", cellW, cell)
		}
		out = append(out, cut(line, s.w))
	}
	return out
}
