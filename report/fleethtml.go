package report

// This file holds the HTML fleet section and its per-board chart.

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/citune/citune/sweep/rank"
)

func htmlFleet(b *hb, ss []*Sweep) {
	f := NewFleet(ss)
	b.openn("section", "id", "fleet")
	b.eln("h2", "Fleet: board by board")
	b.eln("p", f.heading(), "class", "sub")
	b.open("p", "id", "fleet-summary")
	b.el("strong", f.Summary())
	b.closen("p")
	for i, g := range f.Groups {
		id := fmt.Sprintf("fleet-%d", i+1)
		b.eln("h3", g.title())
		b.eln("p", "plan: "+g.Plan+"; probe: "+g.Probe, "class", "foot")
		render(b, g.boardTable(), id+"-boards", "summary", nil)
		figure(b, "fig-"+id, "Median rate per board", "(dot: median, line: min to max of the counted runs, ring: the board's winner)", fleetChart(g, id+"-chart", pageWidth))
		render(b, g.table(), id+"-points", "summary", nil)
		b.open("p", "class", "verdict", "id", id+"-verdict")
		b.el("strong", "Verdict:")
		b.text(" " + g.Verdict())
		b.closen("p")
	}
	b.closen("section")
}

// fleetChart is the group's per-board chart: for every point a row with a
// dot per board at its median, a line over its runs' range, and a ring on
// each board's winner; points a board did not trust are named at the right.
func fleetChart(g *FleetGroup, id string, width float64) trustedHTML {
	labels := append([]string{"baseline"}, g.Points...)
	s0 := g.Sweeps[0]
	names := append([]string{"baseline (" + s0.Originals() + ")"}, g.Points...)
	const bottom, right = 50.0, 200.0
	legend, ly := fleetLegend(g, width)
	top := ly + 22
	n := float64(len(g.Sweeps))
	rowH := math.Max(24, 9*(n+1))
	left := labelWidth(names, 140)
	h := top + bottom + rowH*float64(len(labels))
	b := newSVG()
	b.open(id, "fleet", width, h, "median rate per board for every point")
	b.title(fmt.Sprintf("Median rate per board, %s, with the range of the counted runs", s0.RateUnit()))
	lo, hi := fleetRange(g, labels)
	pw := width - left - right
	y1 := top + rowH*float64(len(labels))
	X := b.xAxis(niceTicks(lo, hi, 8), left, pw, top, y1)
	b.text(left+pw/2, y1+36, "middle", "axis", "median "+s0.RateUnit()+" per board")
	for k, e := range legend {
		b.elem("circle", "cx", px(e.x+5), "cy", px(e.y-4), "r", "5", "fill", fileColours[k%len(fileColours)])
		b.text(e.x+14, e.y, "start", "small", e.text)
	}
	for i, l := range labels {
		cy := top + rowH*float64(i)
		b.text(left-8, cy+rowH/2+4, "end", "label", names[i])
		fleetRow(b, g, l, cy, rowH, left+pw, X)
	}
	return b.close()
}

// legendEntry is a board's entry in the fleet chart's legend.
type legendEntry struct {
	x, y float64
	text string
}

// fleetLegend lays out the legend wrapped to width, and its last line's y.
func fleetLegend(g *FleetGroup, width float64) ([]legendEntry, float64) {
	var legend []legendEntry
	lx, ly := 10.0, 18.0
	for k, name := range g.Boards {
		l := name + " (" + g.Sweeps[k].kernelCell() + ")"
		w := float64(utf8.RuneCountInString(l))*6.6 + 40
		if lx > 10 && lx+w > width {
			lx, ly = 10, ly+18
		}
		legend = append(legend, legendEntry{lx, ly, l})
		lx += w
	}
	return legend, ly
}

// fleetRange is the range of the runs at the labelled points (or 0 to 1).
func fleetRange(g *FleetGroup, labels []string) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range g.Sweeps {
		for _, l := range labels {
			if p := g.point(s, l); p != nil && len(p.Rates) > 0 {
				lo, hi = math.Min(lo, s.RateValue(p.Min)), math.Max(hi, s.RateValue(p.Max))
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 0, 1
	}
	return lo, hi
}

// fleetRow draws the row of point l from cy, rowH high (untrusted points'
// status at xBad).
func fleetRow(b *svgb, g *FleetGroup, l string, cy, rowH, xBad float64, X func(float64) float64) {
	n := float64(len(g.Sweeps))
	for k, s := range g.Sweeps {
		col := fileColours[k%len(fileColours)]
		y := cy + rowH*(float64(k)+1)/(n+1)
		p := g.point(s, l)
		if p == nil {
			continue
		}
		b.openn("g")
		b.title(g.Boards[k] + ": " + pointTitle(s, p))
		if len(p.Rates) == 0 || (p.Status != rank.StatusOK && p.Status != rank.StatusEliminated) {
			b.eln("text", trim(g.Boards[k], 14)+": "+strings.ToUpper(string(p.Status)), "x", px(xBad+12), "y", px(y+4), "class", "bad", "text-anchor", "start")
		} else {
			b.line(X(s.RateValue(p.Min)), y, X(s.RateValue(p.Max)), y, col, 2)
			b.elem("circle", "cx", px(X(s.RateValue(p.Median))), "cy", px(y), "r", "4", "fill", col)
			if p == g.Winners[k] {
				b.elem("circle", "cx", px(X(s.RateValue(p.Median))), "cy", px(y), "r", "7", "fill", "none", "stroke", colWinner, "stroke-width", "1.5", "class", "winner")
			}
		}
		b.closen("g")
	}
}
