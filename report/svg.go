package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/citune/citune/sweep/rank"
)

// The charts are inline SVG, well-formed XML (tested).

// Colours.
const (
	colBaseline = "#222222"
	colWinner   = "#1a7f37"
	colBetter   = "#2463b5"
	colSame     = "#8c959f"
	colWorse    = "#c4661f"
	colBad      = "#cf222e"
	colGrid     = "#e5e7eb"
	colAxis     = "#57606a"
)

// fileColours tell files apart in the comparison.
var fileColours = []string{"#2463b5", "#c4661f", "#1a7f37", "#8250df", "#cf222e", "#0a7ea4"}

// charW is the width of a character of the 12 px monospace labels.
const charW = 7.3

// niceTicks returns round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Floor(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	if len(out) > 0 && out[len(out)-1] < hi {
		out = append(out, out[len(out)-1]+step)
	}
	return out
}

func tickLabel(v float64) string {
	s := fmt.Sprintf("%.2f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// colour of a point by its standing against the baseline.
func pointColour(s *Sweep, p *Point) string {
	switch {
	case p.Baseline:
		return colBaseline
	case p.Status == rank.StatusCorrupt || p.Status == rank.StatusNotHeld:
		return colBad
	case p.Status != rank.StatusOK:
		return colSame
	case p == s.winning():
		return colWinner
	case p.Vs == nil || !p.Vs.HasCI() || !p.Vs.Significant:
		return colSame
	case p.Vs.Pct > 0:
		return colBetter
	}
	return colWorse
}

func labelWidth(labels []string, min float64) float64 {
	w := min
	for _, l := range labels {
		w = math.Max(w, float64(utf8.RuneCountInString(l))*charW+16)
	}
	return w
}

// ratesChart is a dot plot: per point every counted run as a dot, the
// range as a whisker and the median as a diamond; the baseline's median
// and range run down the chart.
func ratesChart(s *Sweep, id string, width float64) trustedHTML {
	pts := s.withBaseline(append(s.measured(), s.Excluded...))
	labels := mapf(pts, func(p *Point) string { return pointName(s, p) })
	const rowH, top, bottom, right = 22.0, 30.0, 44.0, 150.0
	left := labelWidth(labels, 120)
	h := top + bottom + rowH*float64(len(pts))
	b := newSVG()
	b.open(id, "rates", width, h, "rate per point with its spread")
	b.title(fmt.Sprintf("Rate per point (%s): runs, range and median", s.RateUnit()))
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		for _, r := range p.Rates {
			lo, hi = math.Min(lo, s.RateValue(r)), math.Max(hi, s.RateValue(r))
		}
	}
	if math.IsInf(lo, 1) {
		b.text(width/2, h/2, "middle", "note", "no point was measured to the end")
		return b.close()
	}
	pad := (hi - lo) * 0.05
	pw := width - left - right
	y0, y1 := top, top+rowH*float64(len(pts))
	X := b.xAxis(niceTicks(lo-pad, hi+pad, 8), left, pw, y0, y1)
	b.text(left+pw/2, y1+36, "middle", "axis", s.RateUnit())
	if bl := s.Baseline; bl != nil && len(bl.Rates) > 0 {
		b.elem("rect", "x", px(X(s.RateValue(bl.Min))), "y", px(y0), "width", px(math.Max(1, X(s.RateValue(bl.Max))-X(s.RateValue(bl.Min)))), "height", px(y1-y0), "fill", colBaseline, "opacity", "0.08")
		b.line(X(s.RateValue(bl.Median)), y0-6, X(s.RateValue(bl.Median)), y1, colBaseline, 1, "stroke-dasharray", "4 3")
		b.text(X(s.RateValue(bl.Median)), y0-10, "middle", "small", "baseline "+s.Rate(bl.Median))
	}
	for i, p := range pts {
		cy := top + rowH*(float64(i)+0.5)
		col := pointColour(s, p)
		cls := "label"
		if p == s.winning() {
			cls = "label win"
		}
		b.text(left-8, cy+4, "end", cls, labels[i])
		b.openn("g")
		b.title(pointTitle(s, p))
		if len(p.Rates) == 0 {
			b.text(left+6, cy+4, "start", "bad", strings.ToUpper(string(p.Status))+": "+trim(p.why(), int(pw/7.5)-12))
		} else {
			b.line(X(s.RateValue(p.Min)), cy, X(s.RateValue(p.Max)), cy, col, 2)
			b.line(X(s.RateValue(p.Min)), cy-5, X(s.RateValue(p.Min)), cy+5, col, 1.5)
			b.line(X(s.RateValue(p.Max)), cy-5, X(s.RateValue(p.Max)), cy+5, col, 1.5)
			for _, r := range p.Rates {
				b.elem("circle", "cx", px(X(s.RateValue(r))), "cy", px(cy-5), "r", "2.2", "fill", col, "opacity", "0.55")
			}
			mx := X(s.RateValue(p.Median))
			b.elem("path", "d", fmt.Sprintf("M%.1f %.1f l6 6 l-6 6 l-6 -6 z", mx, cy-6), "fill", col, "stroke", "#fff", "stroke-width", "1")
			val := s.Rate(p.Median)
			if p.Vs != nil {
				val += "  " + p.Vs.Short()
			}
			b.text(left+pw+8, cy+4, "start", "value", val)
		}
		b.closen("g")
	}
	return b.close()
}

func trim(s string, n int) string {
	n = max(n, 1) // a chart narrower than its labels still renders
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// pointTitle is the tooltip of a point.
func pointTitle(s *Sweep, p *Point) string {
	t := pointName(s, p)
	if len(p.Rates) > 0 {
		t += fmt.Sprintf(": median %s %s over %d runs (%s to %s)", s.Rate(p.Median), s.RateUnit(), p.Runs(), s.Rate(p.Min), s.Rate(p.Max))
	}
	if p.Vs != nil {
		t += "; " + p.Vs.String()
	}
	if p.IRQsPerMiB.OK {
		t += fmt.Sprintf("; %.0f irq/%s", s.Per(p.IRQsPerMiB).V, s.Amount())
	}
	if p.Status != rank.StatusOK {
		t += "; " + string(p.Status) + ": " + p.why()
	}
	return t
}

// scatter plots each point's median rate against its interrupts per MiB,
// the points no other point beats on both (the Pareto front) joined.
func scatter(s *Sweep, id string, width float64) trustedHTML {
	pts := scatterPoints(s)
	const h = 420.0
	b := newSVG()
	b.open(id, "scatter", width, h, "rate against interrupts per "+s.Amount())
	b.title(fmt.Sprintf("Median rate (%s) against interrupts per %s", s.RateUnit(), s.Amount()))
	if len(pts) == 0 {
		b.text(width/2, h/2, "middle", "note", "the probe did not count interrupts: no scatter")
		return b.close()
	}
	ax := scatterScales(s, pts, width, h)
	ax.draw(b, s)
	front := paretoFront(pts)
	if len(front) > 1 {
		d := mapf(front, func(p *Point) string {
			return fmt.Sprintf("L%.1f %.1f", ax.X(s.Per(p.IRQsPerMiB).V), ax.Y(s.RateValue(p.Median)))
		})
		d[0] = "M" + d[0][1:] // the path starts with a move
		b.elem("path", "d", strings.Join(d, " "), "fill", "none", "stroke", colWinner, "stroke-width", "1.5", "stroke-dasharray", "5 4", "opacity", "0.7")
	}
	ax.drawPoints(b, s, pts, front)
	return b.close()
}

// scatterPoints are the measured points (and baseline) that counted interrupts.
func scatterPoints(s *Sweep) []*Point {
	var pts []*Point
	if s.Baseline != nil && s.Baseline.IRQsPerMiB.OK {
		pts = append(pts, s.Baseline)
	}
	for _, p := range s.measured() {
		if p.IRQsPerMiB.OK && p.IRQsPerMiB.V > 0 && len(p.Rates) > 0 {
			pts = append(pts, p)
		}
	}
	return pts
}

// scatterAxes is the scatter's plot area, its scales and their ticks.
type scatterAxes struct {
	h, left, top, pw, ph float64
	X, Y                 func(float64) float64
	xticks, yticks       []float64
	logX                 bool
	xl, xh               float64 // range of the interrupts per MiB
}

// scatterScales chooses the scales (interrupts log over a decade).
func scatterScales(s *Sweep, pts []*Point, width, h float64) *scatterAxes {
	const left, right, top, bottom = 70.0, 40.0, 24.0, 56.0
	xl, xh, yl, yh := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		x := s.Per(p.IRQsPerMiB).V
		xl, xh = math.Min(xl, x), math.Max(xh, x)
		yl, yh = math.Min(yl, s.RateValue(p.Median)), math.Max(yh, s.RateValue(p.Median))
	}
	ax := &scatterAxes{h: h, left: left, top: top, pw: width - left - right, ph: h - top - bottom, xl: xl, xh: xh}
	ax.logX = xl > 0 && xh/xl > 10
	pw, ph := ax.pw, ax.ph
	if ax.logX {
		a, z := math.Floor(math.Log10(xl)), math.Ceil(math.Log10(xh))
		for e := a; e <= z; e++ {
			for _, m := range []float64{1, 2, 5} {
				v := m * math.Pow(10, e)
				if v >= math.Pow(10, a) && v <= math.Pow(10, z) {
					ax.xticks = append(ax.xticks, v)
				}
			}
		}
		ax.X = func(v float64) float64 { return left + (math.Log10(v)-a)/(z-a)*pw }
	} else {
		pad := (xh - xl) * 0.08
		if pad == 0 {
			pad = math.Max(1, xh*0.1)
		}
		ax.xticks = niceTicks(math.Max(0, xl-pad), xh+pad, 6)
		a, z := ax.xticks[0], ax.xticks[len(ax.xticks)-1]
		ax.X = func(v float64) float64 { return left + (v-a)/(z-a)*pw }
	}
	pad := (yh - yl) * 0.08
	if pad == 0 {
		pad = math.Max(0.1, yh*0.05)
	}
	ax.yticks = niceTicks(yl-pad, yh+pad, 6)
	ya, yz := ax.yticks[0], ax.yticks[len(ax.yticks)-1]
	ax.Y = func(v float64) float64 { return top + ph - (v-ya)/(yz-ya)*ph }
	return ax
}

// draw draws the grid, the ticks, the axes and their labels.
func (ax *scatterAxes) draw(b *svgb, s *Sweep) {
	left, top, pw, ph, X, Y := ax.left, ax.top, ax.pw, ax.ph, ax.X, ax.Y
	for _, t := range ax.xticks {
		b.line(X(t), top, X(t), top+ph, colGrid, 1)
		b.text(X(t), top+ph+16, "middle", "tick", tickLabel(t))
	}
	for _, t := range ax.yticks {
		b.line(left, Y(t), left+pw, Y(t), colGrid, 1)
		b.text(left-6, Y(t)+4, "end", "tick", tickLabel(t))
	}
	b.line(left, top+ph, left+pw, top+ph, colAxis, 1)
	b.line(left, top, left, top+ph, colAxis, 1)
	xlab := "interrupts per " + s.Amount()
	switch {
	case ax.logX:
		xlab += " (log scale)"
	case ax.xh == ax.xl:
		xlab += fmt.Sprintf(" (%s at every point: the settings did not change the count)", fn(num(ax.xl, true)))
	}
	b.text(left+pw/2, ax.h-14, "middle", "axis", xlab)
	b.eln("text", s.RateUnit(), "x", "14", "y", px(top+ph/2), "text-anchor", "middle", "class", "axis", "transform", fmt.Sprintf("rotate(-90 14 %.1f)", top+ph/2))
}

// paretoFront is the ok points no other beats on rate and interrupts.
func paretoFront(pts []*Point) []*Point {
	var front []*Point
	for _, p := range pts {
		if p.Status != rank.StatusOK {
			continue
		}
		if !slices.ContainsFunc(pts, func(q *Point) bool {
			return q != p && q.Status == rank.StatusOK && q.Median >= p.Median && q.IRQsPerMiB.V <= p.IRQsPerMiB.V && (q.Median > p.Median || q.IRQsPerMiB.V < p.IRQsPerMiB.V)
		}) {
			front = append(front, p)
		}
	}
	sort.Slice(front, func(i, j int) bool { return front[i].IRQsPerMiB.V < front[j].IRQsPerMiB.V })
	return front
}

// labelBox is the extent of a placed label.
type labelBox struct{ x0, x1, y float64 }

// placeLabel returns the y of a label w wide anchored at (cx, cy), moved
// down or up until it covers none of those placed, and records it there.
func placeLabel(placed *[]labelBox, cx, cy float64, anchor string, w float64) float64 {
	x0, x1 := cx, cx+w
	if anchor == "end" {
		x0, x1 = cx-w, cx
	}
	for _, dy := range []float64{-8, 18, -22, 32, -36, 46} {
		y := cy + dy
		if !slices.ContainsFunc(*placed, func(b labelBox) bool { return x0 < b.x1 && b.x0 < x1 && math.Abs(y-b.y) < 13 }) {
			*placed = append(*placed, labelBox{x0, x1, y})
			return y
		}
	}
	return cy - 8
}

// drawPoints draws every point; the baseline, winner and front labelled.
func (ax *scatterAxes) drawPoints(b *svgb, s *Sweep, pts []*Point, front []*Point) {
	win := s.winning()
	var placed []labelBox
	for _, p := range pts {
		cx, cy := ax.X(s.Per(p.IRQsPerMiB).V), ax.Y(s.RateValue(p.Median))
		col := pointColour(s, p)
		b.openn("g")
		b.title(pointTitle(s, p))
		switch {
		case p.Baseline:
			b.elem("rect", "x", px(cx-5), "y", px(cy-5), "width", "10", "height", "10", "fill", col)
		case p == win:
			b.elem("circle", "cx", px(cx), "cy", px(cy), "r", "7", "fill", col, "stroke", "#fff", "stroke-width", "1.5")
		case p.Status != rank.StatusOK:
			b.elem("circle", "cx", px(cx), "cy", px(cy), "r", "4.5", "fill", "#ffffff", "stroke", col, "stroke-width", "1.5")
		default:
			b.elem("circle", "cx", px(cx), "cy", px(cy), "r", "5", "fill", col, "stroke", "#fff", "stroke-width", "1", "opacity", "0.9")
		}
		if p.Baseline || p == win || slices.Contains(front, p) {
			l := p.Label
			if p.Baseline {
				l = "baseline"
			}
			anchor, dx := "start", 10.0
			if cx > ax.left+ax.pw*0.7 {
				anchor, dx = "end", -10
			}
			b.text(cx+dx, placeLabel(&placed, cx+dx, cy, anchor, float64(utf8.RuneCountInString(l))*6.7), anchor, "small", l)
		}
		b.closen("g")
	}
}

// compareChart shows every point's difference to each file's own
// baseline with its interval, a colour per file.
func compareChart(ss []*Sweep, id string, width float64) trustedHTML {
	labels := compareRows(ss)
	const rowH, top, bottom, right = 26.0, 40.0, 50.0, 190.0
	left := labelWidth(labels, 140)
	h := top + bottom + rowH*float64(len(labels))
	b := newSVG()
	b.open(id, "compare", width, h, "difference to each file's baseline per point")
	b.title("Difference to each file's own baseline, %, with the 95 % interval")
	lo, hi := 0.0, 0.0
	for _, s := range ss {
		for _, p := range s.measured() {
			if p.Vs != nil {
				l, u := p.Vs.Pct, p.Vs.Pct
				if p.Vs.HasCI() {
					l, u = p.Vs.Lo, p.Vs.Hi
				}
				lo, hi = math.Min(lo, l), math.Max(hi, u)
			}
		}
	}
	pw := width - left - right
	y1 := top + rowH*float64(len(labels))
	X := b.xAxis(niceTicks(lo, hi, 8), left, pw, top, y1)
	b.line(X(0), top-4, X(0), y1, colBaseline, 1, "stroke-dasharray", "4 3")
	b.text(left+pw/2, y1+36, "middle", "axis", "% against the file's own baseline")
	// Legend.
	lx := left
	for k, s := range ss {
		col := fileColours[k%len(fileColours)]
		b.elem("circle", "cx", px(lx+5), "cy", "14", "r", "5", "fill", col)
		l := s.Label + ": " + s.Profile + ", " + s.kernelCell()
		b.text(lx+14, 18, "start", "small", l)
		lx += float64(utf8.RuneCountInString(l))*6.6 + 40
	}
	n := float64(len(ss))
	for i, l := range labels {
		cy := top + rowH*float64(i)
		b.text(left-8, cy+rowH/2+4, "end", "label", l)
		for k, s := range ss {
			col := fileColours[k%len(fileColours)]
			y := cy + rowH*(float64(k)+1)/(n+1)
			p := byLabel(s, l)
			if p == nil {
				continue
			}
			b.openn("g")
			b.title(s.Label + ": " + pointTitle(s, p))
			switch {
			case p.Status == rank.StatusEliminated && p.Vs != nil:
				b.elem("circle", "cx", px(X(p.Vs.Pct)), "cy", px(y), "r", "3.5", "fill", "#ffffff", "stroke", col, "stroke-width", "1.5")
			case p.Status != rank.StatusOK || p.Vs == nil:
				b.eln("text", trim(s.Label, 14)+": "+strings.ToUpper(string(p.Status)), "x", px(left+pw+12), "y", px(y+4), "class", "bad", "text-anchor", "start")
			default:
				if p.Vs.HasCI() {
					b.line(X(p.Vs.Lo), y, X(p.Vs.Hi), y, col, 2)
				}
				b.elem("circle", "cx", px(X(p.Vs.Pct)), "cy", px(y), "r", "4", "fill", col)
			}
			b.closen("g")
		}
	}
	return b.close()
}
