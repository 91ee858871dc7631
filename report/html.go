package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
)

// pageWidth is the width of the charts, in CSS pixels.
const pageWidth = 1080

const css = `
:root { color-scheme: light; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328; background: #fff; margin: 0; }
main { max-width: 1120px; margin: 0 auto; padding: 20px 20px 60px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 6px; padding-top: 12px; border-top: 3px solid #d0d7de; }
h3 { font-size: 15px; margin: 24px 0 8px; }
p.sub { color: #57606a; margin: 0 0 12px; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; border-radius: 6px; padding: 10px 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 6px 0 10px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e5e7eb; text-align: left; vertical-align: top; }
th { background: #f6f8fa; font-weight: 600; white-space: nowrap; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.summary { font-size: 13px; }
table.summary th, table.summary td { padding: 3px 7px; }
table.summary th { white-space: normal; vertical-align: bottom; }
table.summary td:nth-child(2) { white-space: nowrap; }
.scroll { overflow-x: auto; }
tr.base td { background: #f6f8fa; }
tr.win td { background: #dafbe1; }
tr.bad td { background: #ffebe9; }
table.kv th { text-align: left; width: 130px; background: none; }
table.regs td, table.regs th { padding: 1px 8px; }
.regs-wrap { columns: 3 300px; column-gap: 24px; }
.regs-wrap table { break-inside: avoid; margin: 0; width: 100%; }
.alert { border: 2px solid #cf222e; background: #ffebe9; color: #82071e; padding: 8px 12px; border-radius: 6px; font-weight: 600; margin: 10px 0; }
.warn { border: 1px solid #d4a72c; background: #fff8c5; padding: 6px 12px; border-radius: 6px; margin: 8px 0; }
.foot { color: #57606a; font-size: 12.5px; margin: 2px 0; }
.pos { color: #1a7f37; } .neg { color: #c4661f; } .ns { color: #57606a; }
figure { margin: 14px 0 18px; }
figcaption { font-weight: 600; margin-bottom: 4px; }
figcaption span { font-weight: normal; color: #57606a; }
svg.chart { display: block; max-width: 100%; height: auto; }
svg text { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; font-size: 12px; fill: #1f2328; }
svg text.tick { fill: #57606a; font-size: 11px; }
svg text.axis { font-weight: 600; fill: #57606a; }
svg text.small { font-size: 11px; fill: #1f2328; }
svg text.value { font-size: 12px; }
svg text.label.win { font-weight: 700; fill: #1a7f37; }
svg text.bad, svg text.cellbad { fill: #cf222e; font-weight: 700; font-size: 11px; }
svg text.note { fill: #57606a; font-size: 13px; }
svg text.cell { font-size: 14px; font-weight: 700; }
svg text.cellsmall { font-size: 11px; }
.legend span { display: inline-block; margin-right: 14px; font-size: 12.5px; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 5px; margin-right: 5px; vertical-align: -1px; }
@media print { h2 { break-before: page; } }
`

// WriteHTML writes one self-contained page: no scripts, no fonts or
// images from elsewhere; the charts are inline SVG. With several files
// the page starts with their comparison.
func WriteHTML(w io.Writer, ss []*Sweep, o Options) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	title := "citune report: " + ss[0].Board()
	if ss[0].Simulated() {
		title = "citune report: SIMULATED " + ss[0].Board()
	}
	fleet := isFleet(ss, o)
	switch {
	case fleet:
		title = fmt.Sprintf("citune report: %d boards compared", len(ss))
	case len(ss) > 1:
		title = fmt.Sprintf("citune report: %d results side by side", len(ss))
	}
	if len(ss) > 1 && slices.ContainsFunc(ss, func(s *Sweep) bool { return s.Simulated() }) {
		title += " (SIMULATED ones among them)"
	}
	files := mapf(ss, func(s *Sweep) string { return s.File })
	// Written whole to b before anything goes to w: no half page.
	b := newPage()
	pageHead(b, title, strings.Join(files, ", "))
	switch {
	case fleet:
		htmlFleet(b, ss)
	case len(ss) > 1:
		if err := htmlCompare(b, ss, o); err != nil {
			return err
		}
	}
	for i, s := range ss {
		sfx := ""
		if len(ss) > 1 {
			sfx = "-" + strconv.Itoa(i+1)
		}
		if err := htmlSweep(b, s, o, sfx); err != nil {
			return err
		}
	}
	pageTail(b)
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryClass is the class of row i of the point table of pts.
func summaryClass(s *Sweep, pts []*Point) func(i int) string {
	all := s.withBaseline(pts)
	return func(i int) string {
		p := all[i]
		switch {
		case p.Baseline:
			return "base"
		case p.Status != rank.StatusOK:
			return "bad"
		case p == s.winning():
			return "win"
		}
		return ""
	}
}

// otherTables writes the tables of the excluded and the eliminated
// points and of the settings' effects, each with its title and note.
func otherTables(b *hb, s *Sweep, sfx string) {
	section := func(t *table, id, title, foot string, rowClass func(int) string) {
		b.eln("h3", title)
		b.eln("p", foot, "class", "foot")
		render(b, t, id+sfx, id, rowClass)
	}
	if len(s.Excluded) > 0 {
		section(excludedTable(s, "!!! "), "excluded", "Not ranked",
			"These points are never compared: their settings did not hold, their data were corrupt, or their probe failed.", func(int) string { return "bad" })
	}
	if len(s.Eliminated) > 0 {
		title, why := "Dropped by the adaptive race", "Clearly slower than the race's leader after fewer runs; not ranked."
		if s.Plan.Mode == plan.ModeModel {
			t, w := s.droppedBy()
			title, why = strings.ToUpper(t[:1])+t[1:], w
		}
		section(eliminatedTable(s), "eliminated", title, why, nil)
	}
	if effs := s.Effects(); len(effs) > 0 && len(s.Ranked) > 0 {
		section(effectTable(s, effs), "effects", "Effect of each axis on its own", effs[0].How+"; spread in points of the baseline.", nil)
	}
}

// headerTable is the header's key-value lines, leaving out empty values.
func headerTable(s *Sweep) *table {
	v := &table{}
	add := func(k, val string) {
		if val != "" {
			v.add(k, val)
		}
	}
	board := s.Profile
	if s.ProfileFile != "" {
		board += " (" + s.ProfileFile + ")"
	}
	add("board", board)
	add("controller", fmt.Sprintf("%s, %s at %#x", s.Controller, s.Node, s.Base))
	add("role", s.Role)
	add("kernel", s.kernelCell())
	add("target", strings.TrimSpace(s.Target+" "+s.TargetPath))
	add("probe", s.Probe)
	add("command", strings.Join(s.Command, " "))
	if !s.Started.IsZero() {
		add("started", s.Started.UTC().Format(time.RFC3339))
	}
	add("plan", s.PlanString())
	add("axes", strings.Join(mapf(s.Axes, func(a Axis) string {
		return fmt.Sprintf("%s (%s %s): %s, original %s", a.Label, a.Kind, a.Name, strings.Join(a.Values, ", "), a.Original)
	}), "; "))
	add("state", stateLine(s))
	add("sessions", strconv.Itoa(s.Sessions))
	return v
}

// registerTables are the registers' snapshot in three columns.
func registerTables(s *Sweep) (out []*table) {
	if len(s.Snapshot.Registers) == 0 {
		return nil
	}
	// Indexes, not slices.Chunk: its instantiation cost the ARMv7
	// binary 1.6 KiB.
	per := (len(s.Snapshot.Registers) + 2) / 3
	for c := 0; c*per < len(s.Snapshot.Registers); c++ {
		t := &table{head: []string{"register", "offset", "value"}, right: []bool{false, true, true}}
		for _, r := range s.Snapshot.Registers[c*per : min(len(s.Snapshot.Registers), (c+1)*per)] {
			t.add(r.Name, fmt.Sprintf("0x%03x", r.Offset), regs.Hex(r.Value))
		}
		out = append(out, t)
	}
	return out
}

// htmlFleet writes the fleet section: each group's boards, chart and points.
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
