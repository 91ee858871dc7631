package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep"
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

// The page is html/template: every string from a results file (names,
// notes, errors, units, the file names themselves) is escaped for the
// context it lands in, whatever it holds. The style sheet is the
// constant above; the charts are template.HTML only because svgb built
// them (svgbuild.go), escaping every value it was given. The views below
// hold plain strings and are filled by Go code; the template holds the
// markup.

// cellView is one cell of a table; Num right-aligns it.
type cellView struct {
	Text string
	Num  bool
}

type rowView struct {
	Class string
	Cells []cellView
}

type tableView struct {
	ID, Class string
	Head      []cellView
	Rows      []rowView
}

type pageView struct {
	Title   string
	CSS     template.CSS
	Files   string
	Fleet   *fleetView
	Compare *compareView
	Sweeps  []*sweepView
	Legend  []legendView
}

type legendView struct {
	Colour template.CSS
	What   string
}

type compareView struct {
	Summary, Points *tableView
	Chart           template.HTML
}

type fleetView struct {
	Heading, Summary string
	Groups           []fleetGroupView
}

type fleetGroupView struct {
	ID, Title, Plan, Probe string
	Boards, Points         *tableView
	Chart                  template.HTML
	Verdict                string
}

type sweepView struct {
	Sfx, Board, Kernel, Label string
	Plan, State               string
	Corrupt                   string
	Warnings                  []string
	Summary                   *tableView
	Footnotes                 []string
	Unit                      string
	Rates, Heatmap, Scatter   template.HTML
	HeatCaption               string
	Excluded, Eliminated      *tableView
	Effects                   *tableView
	EffectsHow                string
	DTS, KernelParams, DTSErr string
	Header                    [][2]string
	Notes                     []string
	Registers                 [][]regView
}

type regView struct{ Name, Offset, Value string }

// pageTemplate is parsed on first use, not at start-up: every citune
// command (a probe on a one-core board among them) would pay for it.
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageSource))
})

const pageSource = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta name="generator" content="citune report"/>
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<main>
<h1>{{.Title}}</h1>
<p class="sub">from {{.Files}}</p>
{{with .Fleet}}{{template "fleet" .}}{{end -}}
{{with .Compare}}{{template "compare" .}}{{end -}}
{{range .Sweeps}}{{template "sweep" .}}{{end -}}
<p class="legend" id="legend">{{range .Legend}}<span><i style="background:{{.Colour}}"></i>{{.What}}</span>{{end}}</p>
</main>
</body>
</html>
{{define "table"}}<table id="{{.ID}}" class="{{.Class}}">
<thead><tr>{{range .Head}}<th{{if .Num}} class="n"{{end}}>{{.Text}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr{{with .Class}} class="{{.}}"{{end}}>{{range .Cells}}<td{{if .Num}} class="n"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
{{end}}
{{- define "fleet"}}<section id="fleet">
<h2>Fleet: board by board</h2>
<p class="sub">{{.Heading}}</p>
<p id="fleet-summary"><strong>{{.Summary}}</strong></p>
{{range .Groups}}<h3>{{.Title}}</h3>
<p class="foot">plan: {{.Plan}}; probe: {{.Probe}}</p>
{{template "table" .Boards}}<figure id="fig-{{.ID}}"><figcaption>Median rate per board <span>(dot: median, line: min to max of the counted runs, ring: the board's winner)</span></figcaption>
{{.Chart}}</figure>
{{template "table" .Points}}<p class="verdict" id="{{.ID}}-verdict"><strong>Verdict:</strong> {{.Verdict}}</p>
{{end}}</section>
{{end}}
{{- define "compare"}}<section id="compare">
<h2>Side by side</h2>
{{template "table" .Summary}}<figure id="fig-compare"><figcaption>Difference to each file's own baseline <span>(dot: median, line: 95 % interval)</span></figcaption>
{{.Chart}}</figure>
<h3>Every point</h3>
<p class="foot">Median, difference to the file's own baseline, rank.</p>
{{template "table" .Points}}</section>
{{end}}
{{- define "sweep"}}<section class="sweep" id="sweep{{.Sfx}}">
<h2>{{.Board}}, kernel {{.Kernel}} <span class="mono">({{.Label}})</span></h2>
<p class="sub">{{.Plan}}. {{.State}}.</p>
{{with .Corrupt}}<div class="alert">{{.}}</div>
{{end}}{{range .Warnings}}<div class="warn">{{.}}</div>
{{end -}}
<h3>Baseline against the best point</h3>
{{with .Summary}}<div class="scroll">
{{template "table" .}}</div>
{{else}}<p>Nothing was measured to the end.</p>
{{end}}{{range .Footnotes}}<p class="foot">{{.}}</p>
{{end -}}
<figure id="fig-rates{{.Sfx}}"><figcaption>Rate per point <span>({{.Unit}}; dots: runs, line: min to max, diamond: median; grey band: the baseline's range)</span></figcaption>
{{.Rates}}</figure>
{{with .Heatmap}}<figure id="fig-heatmap{{$.Sfx}}"><figcaption>Heat map of the median rate <span>({{$.HeatCaption}})</span></figcaption>
{{.}}</figure>
{{end -}}
<figure id="fig-scatter{{.Sfx}}"><figcaption>Rate against interrupts per MiB <span>(the dashed line joins the points no other point beats on both)</span></figcaption>
{{.Scatter}}</figure>
{{with .Excluded}}<h3>Not ranked</h3>
<p class="foot">These points are never compared: their settings did not hold, their data were corrupt, or their probe failed.</p>
{{template "table" .}}{{end -}}
{{with .Eliminated}}<h3>Dropped by the adaptive race</h3>
<p class="foot">Clearly slower than the race's leader after fewer runs; not ranked.</p>
{{template "table" .}}{{end -}}
{{with .Effects}}<h3>Effect of each axis on its own</h3>
<p class="foot">{{$.EffectsHow}}; spread in points of the baseline.</p>
{{template "table" .}}{{end -}}
<h3>The winner as a device-tree fragment and kernel parameters</h3>
{{if .DTS}}<pre id="dts{{.Sfx}}">{{.DTS}}</pre>
{{with .KernelParams}}<p>Kernel command line: <code>{{.}}</code></p>
{{end}}{{else}}<p id="dts{{.Sfx}}">No fragment: {{.DTSErr}}.</p>
{{end -}}
<h3>The run</h3>
<table id="header{{.Sfx}}" class="kv">
<tbody>
{{range .Header}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</tbody>
</table>
{{range .Notes}}<p class="foot">Note from the sweep: {{.}}</p>
{{end -}}
<h3>Original registers</h3>
{{if .Registers}}<div class="regs-wrap" id="registers{{.Sfx}}">
{{range .Registers}}<table class="regs mono">
<thead><tr><th>register</th><th class="n">offset</th><th class="n">value</th></tr></thead>
<tbody>
{{range .}}<tr><td>{{.Name}}</td><td class="n">{{.Offset}}</td><td class="n">{{.Value}}</td></tr>
{{end}}</tbody>
</table>
{{end}}</div>
{{else}}<p id="registers{{.Sfx}}">The results file has no register snapshot.</p>
{{end}}</section>
{{end}}`

// WriteHTML writes one self-contained page: no scripts, no fonts or
// images from elsewhere; the charts are inline SVG. With several files
// the page starts with their comparison.
func WriteHTML(w io.Writer, ss []*Sweep, o Options) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	v := &pageView{Title: "citune report: " + ss[0].Board(), CSS: template.CSS(css), Legend: legend()}
	switch {
	case isFleet(ss, o):
		v.Title = fmt.Sprintf("citune report: %d boards compared", len(ss))
	case len(ss) > 1:
		v.Title = fmt.Sprintf("citune report: %d results side by side", len(ss))
	}
	var files []string
	for _, s := range ss {
		files = append(files, s.File)
	}
	v.Files = strings.Join(files, ", ")
	switch {
	case isFleet(ss, o):
		v.Fleet = htmlFleet(ss)
	case len(ss) > 1:
		c, err := htmlCompare(ss, o)
		if err != nil {
			return err
		}
		v.Compare = c
	}
	for i, s := range ss {
		sv, err := htmlSweep(s, o, i+1, len(ss) > 1)
		if err != nil {
			return err
		}
		v.Sweeps = append(v.Sweeps, sv)
	}
	// Rendered whole before anything is written: a template error
	// leaves no half page.
	var b strings.Builder
	if err := pageTemplate().Execute(&b, v); err != nil {
		return err
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func legend() []legendView {
	items := []struct{ col, what string }{
		{colBaseline, "baseline (original settings)"}, {colWinner, "winner"}, {colBetter, "significantly faster than the baseline"},
		{colSame, "no significant difference"}, {colWorse, "significantly slower"}, {colBad, "not held or corrupt: not ranked"},
	}
	var out []legendView
	for _, it := range items {
		// The colours are the constants of svg.go.
		out = append(out, legendView{template.CSS(it.col), it.what})
	}
	return out
}

// htmlTable is t for the page with the given id; rowClass gives each
// row's class.
func htmlTable(t *table, id, class string, rowClass func(i int) string) *tableView {
	v := &tableView{ID: id, Class: class}
	num := func(i int) bool { return i < len(t.right) && t.right[i] }
	for i, h := range t.head {
		v.Head = append(v.Head, cellView{h, num(i)})
	}
	for r, row := range t.rows {
		rv := rowView{}
		if rowClass != nil {
			rv.Class = rowClass(r)
		}
		for i, c := range row {
			rv.Cells = append(rv.Cells, cellView{c, num(i)})
		}
		v.Rows = append(v.Rows, rv)
	}
	return v
}

func htmlSweep(s *Sweep, o Options, n int, many bool) (*sweepView, error) {
	pts, err := rows(s, o)
	if err != nil {
		return nil, err
	}
	v := &sweepView{Board: s.Board(), Kernel: or(s.Kernel, "unknown"), Label: s.Label,
		Plan: s.PlanString(), State: stateLine(s), Unit: s.RateUnit()}
	if many {
		v.Sfx = "-" + strconv.Itoa(n)
	}
	sfx := v.Sfx
	if _, cor, _ := s.Counts(); cor > 0 {
		v.Corrupt = fmt.Sprintf("CORRUPT DATA at %d point%s: a probe run's data failed its integrity check (listed below, never ranked).", cor, plural(cor))
	}
	v.Warnings = append(v.Warnings, s.Warnings...)
	if s.InProgress != "" {
		v.Warnings = append(v.Warnings, "Cut short: "+s.InProgress+".")
	}
	if len(s.Missing) > 0 {
		v.Warnings = append(v.Warnings, fmt.Sprintf("Not measured (%d of %d planned points): %s.", len(s.Missing), s.Planned, strings.Join(s.Missing, "; ")))
	}

	// The table: baseline, best, named points.
	if s.Baseline != nil || len(pts) > 0 {
		all := pts
		if s.Baseline != nil {
			all = append([]*Point{s.Baseline}, pts...)
		}
		v.Summary = htmlTable(pointTable(s, pts), "summary"+sfx, "summary", func(i int) string {
			p := all[i]
			switch {
			case p.Baseline:
				return "base"
			case p.Status != sweep.StatusOK:
				return "bad"
			case p == s.Winner():
				return "win"
			}
			return ""
		})
		v.Footnotes = footnotes(s, pts)
	}

	// Charts.
	v.Rates = ratesChart(s, "rates"+sfx, pageWidth)
	if hm := heatmap(s, "heatmap"+sfx); hm != "" {
		ax, ay, others, _ := heatAxes(s)
		v.HeatCaption = fmt.Sprintf("%s against %s", ax.Label, ay.Label)
		if others {
			v.HeatCaption += ", best point over the other axes"
		}
		v.Heatmap = hm
	}
	v.Scatter = scatter(s, "scatter"+sfx, pageWidth)

	if len(s.Excluded) > 0 {
		t := &table{head: []string{"status", "point", "why"}}
		for _, p := range s.Excluded {
			st, what := excludedLine(s, p)
			t.add(strings.TrimPrefix(st, "!!! "), p.Label, what)
		}
		v.Excluded = htmlTable(t, "excluded"+sfx, "excluded", func(int) string { return "bad" })
	}
	if len(s.Eliminated) > 0 {
		v.Eliminated = htmlTable(eliminatedTable(s), "eliminated"+sfx, "eliminated", nil)
	}
	if effs := s.Effects(); len(effs) > 0 && len(s.Ranked) > 0 {
		v.EffectsHow = effs[0].How
		v.Effects = htmlTable(effectTable(s, effs), "effects"+sfx, "effects", nil)
	}

	v.DTS, v.KernelParams, v.DTSErr = s.DTS, s.KernelParams, s.DTSErr

	add := func(k, val string) {
		if val != "" {
			v.Header = append(v.Header, [2]string{k, val})
		}
	}
	board := s.Profile
	if s.ProfileFile != "" {
		board += " (" + s.ProfileFile + ")"
	}
	add("board", board)
	add("controller", fmt.Sprintf("%s, %s at %#x", s.Controller, s.Node, s.Base))
	add("role", s.Role)
	add("kernel", s.Kernel)
	add("target", strings.TrimSpace(s.Target+" "+s.TargetPath))
	add("probe", s.Probe)
	add("command", strings.Join(s.Command, " "))
	if !s.Started.IsZero() {
		add("started", s.Started.UTC().Format(time.RFC3339))
	}
	add("plan", s.PlanString())
	var ax []string
	for _, a := range s.Axes {
		ax = append(ax, fmt.Sprintf("%s (%s %s): %s, original %s", a.Label, a.Kind, a.Name, strings.Join(a.Values, ", "), a.Original))
	}
	add("axes", strings.Join(ax, "; "))
	add("state", stateLine(s))
	add("sessions", strconv.Itoa(s.Sessions))
	v.Notes = s.Notes

	if len(s.Registers) > 0 {
		per := (len(s.Registers) + 2) / 3
		for c := 0; c*per < len(s.Registers); c++ {
			var col []regView
			for _, r := range s.Registers[c*per : min(len(s.Registers), (c+1)*per)] {
				col = append(col, regView{r.Name, fmt.Sprintf("0x%03x", r.Offset), regs.Hex(r.Value)})
			}
			v.Registers = append(v.Registers, col)
		}
	}
	return v, nil
}

func htmlCompare(ss []*Sweep, o Options) (*compareView, error) {
	st, err := summaryTable(ss, o)
	if err != nil {
		return nil, err
	}
	return &compareView{
		Summary: htmlTable(st, "compare-summary", "summary", nil),
		Chart:   compareChart(ss, "compare-chart", pageWidth),
		Points:  htmlTable(matrixTable(ss), "compare-points", "summary", nil),
	}, nil
}
