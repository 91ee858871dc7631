package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/citune/citune/sweep/plan"
)

// heatAxes picks the two axes a heat map shows: the two of a two-axis
// plan, or, for a grid of more, the two with the largest effect (each
// cell then shows the best point over the other axes). ok is false when
// there is no sensible pair.
func heatAxes(s *Sweep) (ax, ay Axis, others bool, ok bool) {
	switch {
	case len(s.Axes) == 2:
		return s.Axes[0], s.Axes[1], false, true
	case len(s.Axes) > 2 && s.Plan.Mode != plan.ModeOFAT:
		effs := s.Effects()
		return effs[0].Axis, effs[1].Axis, true, true
	}
	return Axis{}, Axis{}, false, false
}

// matches reports whether p is at value v of axis a (or ignores a).
func matches(p *Point, a Axis, v string) bool {
	got, ok := p.Settings[a.Name]
	if !ok {
		return slices.Contains(p.Ignored, a.Name)
	}
	return got == v
}

// viridis maps t in [0,1] to a colour of the viridis scale.
func viridis(t float64) (string, bool) {
	stops := [][3]float64{{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}
	t = math.Max(0, math.Min(1, t))
	x := t * float64(len(stops)-1)
	i := min(int(math.Floor(x)), len(stops)-2)
	f := x - float64(i)
	var c [3]int
	for k := 0; k < 3; k++ {
		c[k] = int(math.Round(stops[i][k] + (stops[i+1][k]-stops[i][k])*f))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2]), t > 0.6
}

// heatmap shows the median rate of each combination of two axes; its
// caption names them.
func heatmap(s *Sweep, id string) (chart trustedHTML, caption string) {
	ax, ay, others, ok := heatAxes(s)
	if !ok {
		return "", ""
	}
	cells, lo, hi := heatCells(s, ax, ay)
	const cw, ch, top = 118.0, 52.0, 44.0
	left := math.Max(90, labelWidth([]string{ay.Label}, 0)+40)
	g := heatGrid{id: id, cw: cw, ch: ch, top: top, left: left, lo: lo, hi: hi, win: s.winning()}
	w := math.Max(left+cw*float64(len(ax.Values))+150, left+470)
	h := top + ch*float64(len(ay.Values)) + 50
	b := newSVG()
	b.open(id, "heatmap", w, h, "heat map of "+ax.Label+" against "+ay.Label)
	title := fmt.Sprintf("Median rate (%s) by %s and %s", s.RateUnit(), ax.Label, ay.Label)
	caption = ax.Label + " against " + ay.Label
	if others {
		title += "; best point over the other axes"
		caption += ", best point over the other axes"
	}
	b.title(title)
	g.labels(b, ax, ay)
	for j := range ay.Values {
		for i := range ax.Values {
			atBaseline := !others && s.Baseline != nil && ax.Values[i] == ax.Original && ay.Values[j] == ay.Original
			g.cell(b, s, cells[j][i], left+cw*float64(i), top+ch*float64(j), atBaseline)
		}
	}
	b.openn("defs")
	b.openn("pattern", "id", id+"-hatch", "width", "8", "height", "8", "patternUnits", "userSpaceOnUse", "patternTransform", "rotate(45)")
	b.elem("rect", "width", "8", "height", "8", "fill", "#ffebe9")
	b.elem("line", "x1", "0", "y1", "0", "x2", "0", "y2", "8", "stroke", colBad, "stroke-width", "2", "opacity", "0.35")
	b.closen("pattern", "defs")
	g.scale(b, s, len(ax.Values), len(ay.Values))
	b.text(left, h-24, "start", "small", "green frame: the winner; hatched: not ranked (not held or corrupt)")
	if len(s.Eliminated) > 0 {
		b.text(left, h-8, "start", "small", "faded: dropped by the adaptive race after fewer runs")
	}
	return b.close(), caption
}

// heatCell is what one cell of the heat map shows: the best ranked point
// there, else the best eliminated one, else the first excluded one.
type heatCell struct {
	p, elim, bad *Point
}

// heatCells fills the grid (rows by ay) and the range of its colours.
func heatCells(s *Sweep, ax, ay Axis) (cells [][]heatCell, lo, hi float64) {
	cells = make([][]heatCell, len(ay.Values))
	lo, hi = math.Inf(1), math.Inf(-1)
	for j, vy := range ay.Values {
		cells[j] = make([]heatCell, len(ax.Values))
		for i, vx := range ax.Values {
			at := func(p *Point) bool { return matches(p, ax, vx) && matches(p, ay, vy) }
			c := heatCell{p: best(s.Ranked, at), elim: best(s.Eliminated, func(p *Point) bool { return len(p.Rates) > 0 && at(p) })}
			if k := slices.IndexFunc(s.Excluded, at); k >= 0 {
				c.bad = s.Excluded[k]
			}
			for _, p := range []*Point{c.p, c.elim} {
				if p != nil {
					lo, hi = math.Min(lo, p.Median), math.Max(hi, p.Median)
				}
			}
			cells[j][i] = c
		}
	}
	return cells, lo, hi
}

// best is the first point of ps with the highest median ok accepts, or nil.
func best(ps []*Point, ok func(*Point) bool) (b *Point) {
	for _, p := range ps {
		if ok(p) && (b == nil || p.Median > b.Median) {
			b = p
		}
	}
	return b
}

// heatGrid is the heat map's layout, colour range and winner to frame.
type heatGrid struct {
	id                string
	cw, ch, top, left float64
	lo, hi            float64
	win               *Point
}

// labels writes the axes' names and values ("(orig)" marks the original).
func (g heatGrid) labels(b *svgb, ax, ay Axis) {
	left, top, cw, ch := g.left, g.top, g.cw, g.ch
	b.text(left+cw*float64(len(ax.Values))/2, 16, "middle", "axis", ax.Label)
	orig := func(a Axis, v string) string {
		if v == a.Original {
			return v + " (orig)"
		}
		return v
	}
	for i, v := range ax.Values {
		b.text(left+cw*(float64(i)+0.5), top-8, "middle", "tick", orig(ax, v))
	}
	b.eln("text", ay.Label, "x", px(14.0), "y", px(top+ch*float64(len(ay.Values))/2), "text-anchor", "middle", "class", "axis", "transform", fmt.Sprintf("rotate(-90 %.1f %.1f)", 14.0, top+ch*float64(len(ay.Values))/2))
	for j, v := range ay.Values {
		b.text(left-8, top+ch*(float64(j)+0.5)+4, "end", "tick", orig(ay, v))
	}
}

// shade is the position of median m in the colour range.
func (g heatGrid) shade(m float64) float64 {
	if g.hi > g.lo {
		return (m - g.lo) / (g.hi - g.lo)
	}
	return 0.5
}

// cell draws the cell c at (x, y); atBaseline says the cell is the
// original settings', which shows the baseline when nothing else is there.
func (g heatGrid) cell(b *svgb, s *Sweep, c heatCell, x, y float64, atBaseline bool) {
	cw, ch := g.cw, g.ch
	rect := func(fill string, extra ...string) {
		b.elem("rect", append(append([]string{"x", px(x), "y", px(y), "width", px(cw), "height", px(ch), "fill", fill}, extra...), "stroke", "#ffffff", "stroke-width", "2")...)
	}
	// label writes a line of the cell dy below its middle.
	label := func(dy float64, class, text string, style ...string) {
		b.eln("text", text, append([]string{"x", px(x + cw/2), "y", px(y + ch/2 + dy), "text-anchor", "middle", "class", class}, style...)...)
	}
	b.openn("g")
	switch {
	case c.p != nil:
		fill, light := viridis(g.shade(c.p.Median))
		fg := "fill:#ffffff"
		if light {
			fg = "fill:#111111"
		}
		b.title(pointTitle(s, c.p))
		rect(fill)
		label(-2, "cell", s.Rate(c.p.Median), "style", fg)
		if c.p.Vs != nil {
			label(14, "cellsmall", c.p.Vs.Short(), "style", fg)
		}
		if c.p == g.win {
			b.elem("rect", "x", px(x+2.5), "y", px(y+2.5), "width", px(cw-5), "height", px(ch-5), "fill", "none", "stroke", colWinner, "stroke-width", "3")
		}
	case c.elim != nil:
		// Faded: fewer runs, dropped by the adaptive race.
		fill, _ := viridis(g.shade(c.elim.Median))
		b.title(pointTitle(s, c.elim))
		rect(fill, "fill-opacity", "0.35")
		label(-2, "cell", s.Rate(c.elim.Median), "style", "fill:#424a53")
		label(14, "cellsmall", "eliminated", "style", "fill:#424a53")
	case c.bad != nil:
		b.title(pointTitle(s, c.bad))
		rect(fmt.Sprintf("url(#%s-hatch)", g.id))
		label(4, "cellbad", strings.ToUpper(string(c.bad.Status)))
	case atBaseline:
		b.title(pointTitle(s, s.Baseline))
		rect("#f6f8fa")
		label(-2, "cell", s.Rate(s.Baseline.Median))
		label(14, "cellsmall", "baseline")
	default:
		b.title("not measured")
		rect("#f6f8fa")
		label(4, "tick", "not measured")
	}
	b.closen("g")
}

// scale draws the colour scale beside an nx × ny grid, if any is coloured.
func (g heatGrid) scale(b *svgb, s *Sweep, nx, ny int) {
	if !(g.hi >= g.lo && !math.IsInf(g.lo, 1)) {
		return
	}
	sx := g.left + g.cw*float64(nx) + 30
	sh := g.ch * float64(ny)
	top := g.top
	for k := 0; k < 20; k++ {
		fill, _ := viridis(1 - float64(k)/19)
		b.elem("rect", "x", px(sx), "y", px(top+sh*float64(k)/20), "width", "14", "height", fmt.Sprintf("%.2f", sh/20+0.5), "fill", fill)
	}
	b.text(sx+20, top+10, "start", "tick", s.Rate(g.hi))
	b.text(sx+20, top+sh, "start", "tick", s.Rate(g.lo))
	b.text(sx+20, top+sh/2+4, "start", "tick", s.RateUnit())
}
