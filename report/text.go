package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/sweep/rank"
)

// width is where the terminal text wraps notes.
const width = 100

func f1(n Num) string {
	if !n.OK {
		return ""
	}
	return strconv.FormatFloat(n.V, 'f', 1, 64)
}

// fn formats a count-like number: whole above 100, one decimal below.
func fn(n Num) string {
	if n.OK && n.V >= 100 {
		return strconv.FormatFloat(n.V, 'f', 0, 64)
	}
	return f1(n)
}

// handler is "9.4/34.2" (average/maximum), or "".
func handler(p *Point) string {
	if !p.HandlerAvgUS.OK {
		return ""
	}
	mx := "-"
	if p.HandlerMaxUS.OK {
		mx = f1(p.HandlerMaxUS)
	}
	return f1(p.HandlerAvgUS) + "/" + mx
}

// rankCell is "1", "2=" (tied with the fastest) or "".
func rankCell(p *Point) string {
	if p.Baseline || p.Rank == 0 {
		return ""
	}
	if p.Tied {
		return strconv.Itoa(p.Rank) + "="
	}
	return strconv.Itoa(p.Rank)
}

func pointName(s *Sweep, p *Point) string {
	switch {
	case p.Baseline:
		return "baseline (" + s.Originals() + ")"
	case p.Original:
		return p.Label + " (original)"
	case len(p.Blocked) > 0:
		return p.Label + " (not permanent)"
	}
	return p.Label
}

// pointTable is the main table: the baseline and the chosen points.
func pointTable(s *Sweep, pts []*Point) *table {
	t := &table{
		head: []string{"#", "point", "runs", "median " + s.RateUnit(), "min", "max", "vs baseline", "95 % CI",
			"irq/s", "irq/" + s.Amount(), "handler avg/max µs", "CPU %", "CPU ms/" + s.Amount()},
		right: []bool{true, false, true, true, true, true, true, true, true, true, true, true, true},
	}
	for _, p := range s.withBaseline(pts) {
		if p.Status != rank.StatusOK {
			t.add(rankCell(p), pointName(s, p), "", "", "", "", strings.ToUpper(string(p.Status))+" (below)")
			continue
		}
		t.add(rankCell(p), pointName(s, p), strconv.Itoa(p.Runs()), s.Rate(p.Median), s.Rate(p.Min), s.Rate(p.Max),
			p.Vs.Short(), p.Vs.Range(), fn(p.IRQsPerSec), fn(s.Per(p.IRQsPerMiB)), handler(p), f1(p.CPUPct), f1(s.Per(p.CPUPerMiB)))
	}
	t.drop()
	return t
}

// footnotes explain a point table's marks and what was not measured.
func footnotes(s *Sweep, pts []*Point) []string {
	var out []string
	tied := func(p *Point) bool { return p.Tied }
	if n, shown := count(s.Ranked, tied), count(pts, tied); shown > 0 {
		line := fmt.Sprintf("= ranks 1 to %d are not significantly slower than the fastest; among them fewer interrupts per %s, then less CPU per %[2]s, then fewer settings changed from the original, rank first", n, s.Amount())
		if shown < n {
			// Only when --top hides some of them.
			line += fmt.Sprintf(" (--top %d shows them all)", n)
		}
		out = append(out, line)
	}
	underMin := func(p *Point) bool {
		return p.Vs != nil && p.Vs.HasCI() && p.Vs.Significant && p.Vs.Change == rank.ChangeNone
	}
	marks := []struct {
		has  func(p *Point) bool
		text string
	}{
		{func(p *Point) bool { return p.Vs != nil && p.Vs.HasCI() && !p.Vs.Significant }, "n.s. = no significant difference to the baseline (the interval includes 0)"},
		{underMin, fmt.Sprintf("~ = significant, but under the %.1f %% practical threshold (--min-gain): no change", s.Verdict.MinGainPct)},
		{func(p *Point) bool { return p.Original }, "(original) = the original settings measured as a point: the sweep's noise floor"},
		{func(p *Point) bool { return len(p.Blocked) > 0 }, "(not permanent) = a change no device-tree property or kernel parameter can make permanent here: never recommended"},
	}
	for _, m := range marks {
		if slices.ContainsFunc(pts, m.has) {
			out = append(out, m.text)
		}
	}
	if s.Verdict.Family > 1 {
		out = append(out, fmt.Sprintf("intervals: of the geometric mean rates, holding together at 95 %% over the %d points compared", s.Verdict.Family))
	}
	var missing []string
	b := s.Baseline
	if b == nil && len(pts) > 0 {
		b = pts[0]
	}
	if b != nil {
		if !b.IRQsPerMiB.OK {
			missing = append(missing, "interrupts")
		}
		if !b.HandlerAvgUS.OK {
			missing = append(missing, "interrupt handler time")
		}
		if !b.CPUPct.OK && !b.CPUPerMiB.OK {
			missing = append(missing, "CPU time")
		}
	}
	if len(missing) > 0 {
		out = append(out, "not measured by this probe: "+strings.Join(missing, ", "))
	}
	return out
}

// stateLine is "complete: 12 points (10 ranked, 1 not-held, 1 corrupt),
// 88 probe runs".
func stateLine(s *Sweep) string {
	nh, cor, other := s.Counts()
	parts := []string{fmt.Sprintf("%d ranked", len(s.Ranked))}
	for i, n := range []int{nh, cor, other, len(s.Eliminated)} {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, []string{"not-held", "corrupt", "failed", "eliminated"}[i]))
		}
	}
	done := len(s.Ranked) + len(s.Excluded) + len(s.Eliminated)
	pts := fmt.Sprintf("%d points", done)
	if done < s.Planned {
		pts = fmt.Sprintf("%d of %d planned points", done, s.Planned)
	}
	st := s.State
	if s.StateDetail != "" {
		st += " (" + s.StateDetail + ")"
	}
	out := fmt.Sprintf("%s: %s (%s), %d probe runs", st, pts, strings.Join(parts, ", "), s.ProbeRuns)
	if s.Sessions > 1 {
		out += fmt.Sprintf(", %d sessions", s.Sessions)
	}
	return out
}

// effectTable lists each axis's values with their rate.
func effectTable(s *Sweep, effs []Effect) *table {
	t := &table{head: []string{"axis", "spread", "value", "points", "median " + s.RateUnit(), "vs baseline", ""},
		right: []bool{false, true, true, true, true, true, false}}
	for _, e := range effs {
		for i, v := range e.Values {
			ax, spread := "", ""
			if i == 0 {
				ax = e.Axis.Label
				if e.Spread > 0 {
					spread = fmt.Sprintf("%.1f", e.Spread)
				}
			}
			var marks []string
			if v.Original {
				marks = append(marks, "original")
			}
			if v.Best {
				marks = append(marks, "best")
			}
			n, med, pc := "none", "", ""
			switch {
			case v.Baseline:
				n, med = "baseline", s.Rate(v.Median)
			case v.Points > 0:
				n, med = strconv.Itoa(v.Points), s.Rate(v.Median)
			}
			if v.HasPct {
				pc = pct(v.Pct) + " %"
			}
			t.add(ax, spread, v.Value, n, med, pc, strings.Join(marks, ", "))
		}
	}
	return t
}

// excludedStatus is an excluded point's status, CORRUPT marked.
func excludedStatus(p *Point) string {
	if p.Status == rank.StatusCorrupt {
		return "!!! CORRUPT"
	}
	return string(p.Status)
}

// excludedTable lists the excluded points, their status without cut.
func excludedTable(s *Sweep, cut string) *table {
	t := &table{head: []string{"status", "point", "why"}}
	for _, p := range s.Excluded {
		t.add(strings.TrimPrefix(excludedStatus(p), cut), p.Label, p.why())
	}
	return t
}

// WriteText writes the terminal report of one or several results files.
func WriteText(w io.Writer, ss []*Sweep, o Options) error {
	if !o.ASCII {
		return writeText(w, ss, o)
	}
	var b strings.Builder
	err := writeText(&b, ss, o)
	if _, werr := io.WriteString(w, asciiOnly(b.String())); err == nil {
		err = werr
	}
	return err
}

// asciiOnly replaces what a terminal without UTF-8 cannot show.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r < 0x80:
			return r
		case r == '×':
			return 'x'
		case r == 'µ' || r == 'μ':
			return 'u'
		case r == '–' || r == '—' || r == '−':
			return '-'
		case r == '±':
			return '~'
		}
		return '?'
	}, s)
}

// wrapIf is wrap when the report fits a Width, else the line as it is.
func (o Options) wrapIf(prefix, text string) string {
	if o.Width > 0 {
		return wrap(prefix, text, o.Width)
	}
	return prefix + text + "\n"
}

func (o Options) textWidth() int {
	if o.Width > 0 {
		return o.Width
	}
	return width
}

func writeText(w io.Writer, ss []*Sweep, o Options) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	if isFleet(ss, o) {
		writeFleetText(w, ss, o)
		return nil
	}
	if len(ss) > 1 {
		return writeTextCompare(w, ss, o)
	}
	width := o.textWidth()
	s := ss[0]
	pts, err := rows(s, o)
	if err != nil {
		return err
	}
	writeTextHead(w, s, o, width)
	writeTextPoints(w, s, pts, o, width)
	writeTextOthers(w, s, o)
	writeTextTail(w, s, o, width)
	return nil
}

// writeTextHead writes what was swept, how, its state and its warnings.
func writeTextHead(w io.Writer, s *Sweep, o Options, width int) {
	fmt.Fprintf(w, "%s: %s, %s\n", s.File, s.Board(), s.KernelText())
	fmt.Fprint(w, o.wrapIf("probe: ", s.Probe), o.wrapIf("plan: ", s.PlanString()+"; original settings "+s.Originals()))
	fmt.Fprintf(w, "%s", wrap("state: ", stateLine(s), width))
	if !s.Started.IsZero() {
		fmt.Fprintf(w, "started: %s\n", s.Started.UTC().Format("2006-01-02 15:04 UTC"))
	}
	for _, n := range s.notices() {
		fmt.Fprint(w, wrap(n[0]+": ", n[1], width))
	}
	if _, cor, _ := s.Counts(); cor > 0 {
		fmt.Fprint(w, "\n"+wrap("!!! ", fmt.Sprintf("CORRUPT DATA at %d point%s (below): a probe run's data failed its integrity check", cor, plural(cor)), width))
	}
	fmt.Fprintln(w)
}

func writeTextPoints(w io.Writer, s *Sweep, pts []*Point, o Options, width int) {
	if s.Baseline == nil && len(pts) == 0 {
		fmt.Fprintln(w, "nothing was measured to the end: no baseline and no point")
	} else {
		t := pointTable(s, pts)
		if o.Width > 0 {
			fitPointTable(s, t, o.Width)
		}
		t.text(w, "")
		if s.Baseline == nil {
			fmt.Fprintln(w, "no baseline was measured: no differences")
		}
		for _, f := range footnotes(s, pts) {
			fmt.Fprint(w, wrap("  ", f, width))
		}
	}
	if len(s.Ranked) == 0 {
		fmt.Fprintln(w, "no point was ranked")
	}
}

// writeTextOthers writes the points not ranked and the axes' effects.
func writeTextOthers(w io.Writer, s *Sweep, o Options) {
	if len(s.Excluded) > 0 {
		fmt.Fprintf(w, "\nnot ranked (never compared, their numbers are not trusted):\n")
		excludedTable(s, "").textFit(w, "  ", o.Width)
	}
	if len(s.Eliminated) > 0 {
		title, why := s.droppedBy()
		fmt.Fprintf(w, "\n%s (%s):\n", title, strings.ToLower(why[:1])+strings.TrimSuffix(why[1:], "."))
		eliminatedTable(s).textFit(w, "  ", o.Width)
	}
	if effs := s.Effects(); len(effs) > 0 && len(s.Ranked) > 0 {
		fmt.Fprint(w, "\n", o.wrapIf("", fmt.Sprintf("effect of each axis on its own (%s; spread in points of the baseline):", effs[0].How)))
		effectTable(s, effs).textFit(w, "  ", o.Width)
	}
}

// writeTextTail writes the notes and how to make the winner permanent.
func writeTextTail(w io.Writer, s *Sweep, o Options, width int) {
	if len(s.Notes) > 0 {
		fmt.Fprintf(w, "\nnotes from the sweep:\n")
		for _, n := range s.Notes {
			fmt.Fprint(w, wrap("  ", n, width))
		}
	}
	if s.Winner() == nil {
		return
	}
	fmt.Fprintln(w)
	for _, l := range s.VerdictLines() {
		fmt.Fprint(w, o.wrapIf("", l))
	}
	line := "citune dts --results " + s.File
	if s.KernelParams != "" {
		line += " (kernel parameters: " + s.KernelParams + ")"
	}
	head := "make it permanent:"
	if s.Verdict.Kind != rank.VerdictApply {
		head = "nothing to make permanent; the original values as a fragment:"
	}
	fmt.Fprint(w, head+"\n", o.wrapIf("  ", line))
}

// fitPointTable makes the point table fit width columns: the baseline row
// loses its settings (the plan line lists them), then the least needed
// columns go, then the rate heading loses "median".
func fitPointTable(s *Sweep, t *table, width int) {
	if t.width(0) <= width {
		return
	}
	if s.Baseline != nil && len(t.rows) > 0 && len(t.rows[0]) > 1 {
		t.rows[0][1] = "baseline"
	}
	t.fit(width, 0, "95 % CI", "min", "max", "irq/s", "handler avg/max µs", "CPU %")
	if t.width(0) > width {
		if i := slices.Index(t.head, "median "+s.RateUnit()); i >= 0 {
			t.head[i] = s.RateUnit()
		}
	}
	t.fit(width, 0, "runs", "CPU ms/"+s.Amount())
}

// eliminatedTable lists the points the adaptive race dropped.
func eliminatedTable(s *Sweep) *table {
	t := &table{head: []string{"point", "runs", "median " + s.RateUnit(), "vs baseline", "why"}, right: []bool{false, true, true, true, false}}
	for _, p := range s.Eliminated {
		med := ""
		if len(p.Rates) > 0 {
			med = s.Rate(p.Median)
		}
		t.add(p.Label, strconv.Itoa(p.Runs()), med, p.Vs.Short(), p.Reason)
	}
	return t
}
