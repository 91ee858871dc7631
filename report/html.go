package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
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

// WriteHTML writes one self-contained page: no scripts, no fonts or
// images from elsewhere; the charts are inline SVG. With several files
// the page starts with their comparison.
func WriteHTML(w io.Writer, ss []*Sweep, o Options) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	var b strings.Builder
	title := "citune report: " + ss[0].Board()
	switch {
	case isFleet(ss, o):
		title = fmt.Sprintf("citune report: %d boards compared", len(ss))
	case len(ss) > 1:
		title = fmt.Sprintf("citune report: %d results side by side", len(ss))
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	b.WriteString("<meta name=\"generator\" content=\"citune report\"/>\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n", esc(title), css)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", esc(title))
	var files []string
	for _, s := range ss {
		files = append(files, s.File)
	}
	fmt.Fprintf(&b, "<p class=\"sub\">from %s</p>\n", esc(strings.Join(files, ", ")))
	switch {
	case isFleet(ss, o):
		htmlFleet(&b, ss)
	case len(ss) > 1:
		if err := htmlCompare(&b, ss, o); err != nil {
			return err
		}
	}
	for i, s := range ss {
		if err := htmlSweep(&b, s, o, i+1, len(ss) > 1); err != nil {
			return err
		}
	}
	b.WriteString(legend())
	b.WriteString("</main>\n</body>\n</html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func legend() string {
	items := []struct{ col, what string }{
		{colBaseline, "baseline (original settings)"}, {colWinner, "winner"}, {colBetter, "significantly faster than the baseline"},
		{colSame, "no significant difference"}, {colWorse, "significantly slower"}, {colBad, "not held or corrupt: not ranked"},
	}
	var b strings.Builder
	b.WriteString("<p class=\"legend\" id=\"legend\">")
	for _, it := range items {
		fmt.Fprintf(&b, "<span><i style=\"background:%s\"></i>%s</span>", it.col, esc(it.what))
	}
	b.WriteString("</p>\n")
	return b.String()
}

// htmlTable writes t with the given id; rowClass gives each row's class.
func htmlTable(b *strings.Builder, t *table, id, class string, rowClass func(i int) string) {
	fmt.Fprintf(b, "<table id=\"%s\" class=\"%s\">\n<thead><tr>", esc(id), esc(class))
	for i, h := range t.head {
		c := ""
		if i < len(t.right) && t.right[i] {
			c = " class=\"n\""
		}
		fmt.Fprintf(b, "<th%s>%s</th>", c, esc(h))
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for r, row := range t.rows {
		rc := ""
		if rowClass != nil {
			if c := rowClass(r); c != "" {
				rc = " class=\"" + c + "\""
			}
		}
		fmt.Fprintf(b, "<tr%s>", rc)
		for i, c := range row {
			cls := ""
			if i < len(t.right) && t.right[i] {
				cls = " class=\"n\""
			}
			fmt.Fprintf(b, "<td%s>%s</td>", cls, esc(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
}

func htmlSweep(b *strings.Builder, s *Sweep, o Options, n int, many bool) error {
	pts, err := rows(s, o)
	if err != nil {
		return err
	}
	sfx := ""
	if many {
		sfx = "-" + strconv.Itoa(n)
	}
	fmt.Fprintf(b, "<section class=\"sweep\" id=\"sweep%s\">\n", sfx)
	fmt.Fprintf(b, "<h2>%s, kernel %s <span class=\"mono\">(%s)</span></h2>\n", esc(s.Board()), esc(or(s.Kernel, "unknown")), esc(s.Label))
	fmt.Fprintf(b, "<p class=\"sub\">%s. %s.</p>\n", esc(s.PlanString()), esc(stateLine(s)))
	if _, cor, _ := s.Counts(); cor > 0 {
		fmt.Fprintf(b, "<div class=\"alert\">CORRUPT DATA at %d point%s: a probe run's data failed its integrity check (listed below, never ranked).</div>\n", cor, plural(cor))
	}
	for _, x := range s.Warnings {
		fmt.Fprintf(b, "<div class=\"warn\">%s</div>\n", esc(x))
	}
	if s.InProgress != "" {
		fmt.Fprintf(b, "<div class=\"warn\">Cut short: %s.</div>\n", esc(s.InProgress))
	}
	if len(s.Missing) > 0 {
		fmt.Fprintf(b, "<div class=\"warn\">Not measured (%d of %d planned points): %s.</div>\n", len(s.Missing), s.Planned, esc(strings.Join(s.Missing, "; ")))
	}

	// The table: baseline, best, named points.
	b.WriteString("<h3>Baseline against the best point</h3>\n")
	if s.Baseline == nil && len(pts) == 0 {
		b.WriteString("<p>Nothing was measured to the end.</p>\n")
	} else {
		all := pts
		if s.Baseline != nil {
			all = append([]*Point{s.Baseline}, pts...)
		}
		b.WriteString("<div class=\"scroll\">\n")
		htmlTable(b, pointTable(s, pts), "summary"+sfx, "summary", func(i int) string {
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
		b.WriteString("</div>\n")
		for _, f := range footnotes(s, pts) {
			fmt.Fprintf(b, "<p class=\"foot\">%s</p>\n", esc(f))
		}
	}

	// Charts.
	fmt.Fprintf(b, "<figure id=\"fig-rates%s\"><figcaption>Rate per point <span>(%s; dots: runs, line: min to max, diamond: median; grey band: the baseline's range)</span></figcaption>\n%s</figure>\n",
		sfx, esc(s.RateUnit()), ratesChart(s, "rates"+sfx, pageWidth))
	if hm := heatmap(s, "heatmap"+sfx); hm != "" {
		ax, ay, others, _ := heatAxes(s)
		cap := fmt.Sprintf("%s against %s", ax.Label, ay.Label)
		if others {
			cap += ", best point over the other axes"
		}
		fmt.Fprintf(b, "<figure id=\"fig-heatmap%s\"><figcaption>Heat map of the median rate <span>(%s)</span></figcaption>\n%s</figure>\n", sfx, esc(cap), hm)
	}
	fmt.Fprintf(b, "<figure id=\"fig-scatter%s\"><figcaption>Rate against interrupts per MiB <span>(the dashed line joins the points no other point beats on both)</span></figcaption>\n%s</figure>\n",
		sfx, scatter(s, "scatter"+sfx, pageWidth))

	if len(s.Excluded) > 0 {
		b.WriteString("<h3>Not ranked</h3>\n<p class=\"foot\">These points are never compared: their settings did not hold, their data were corrupt, or their probe failed.</p>\n")
		t := &table{head: []string{"status", "point", "why"}}
		for _, p := range s.Excluded {
			st, what := excludedLine(s, p)
			t.add(strings.TrimPrefix(st, "!!! "), p.Label, what)
		}
		htmlTable(b, t, "excluded"+sfx, "excluded", func(int) string { return "bad" })
	}
	if len(s.Eliminated) > 0 {
		b.WriteString("<h3>Dropped by the adaptive race</h3>\n<p class=\"foot\">Clearly slower than the race's leader after fewer runs; not ranked.</p>\n")
		htmlTable(b, eliminatedTable(s), "eliminated"+sfx, "eliminated", nil)
	}
	if effs := s.Effects(); len(effs) > 0 && len(s.Ranked) > 0 {
		fmt.Fprintf(b, "<h3>Effect of each axis on its own</h3>\n<p class=\"foot\">%s; spread in points of the baseline.</p>\n", esc(effs[0].How))
		htmlTable(b, effectTable(s, effs), "effects"+sfx, "effects", nil)
	}

	b.WriteString("<h3>The winner as a device-tree fragment and kernel parameters</h3>\n")
	if s.DTS != "" {
		fmt.Fprintf(b, "<pre id=\"dts%s\">%s</pre>\n", sfx, esc(s.DTS))
		if s.KernelParams != "" {
			fmt.Fprintf(b, "<p>Kernel command line: <code>%s</code></p>\n", esc(s.KernelParams))
		}
	} else {
		fmt.Fprintf(b, "<p id=\"dts%s\">No fragment: %s.</p>\n", sfx, esc(s.DTSErr))
	}

	b.WriteString("<h3>The run</h3>\n")
	kv := &table{head: []string{"", ""}}
	add := func(k, v string) {
		if v != "" {
			kv.add(k, v)
		}
	}
	add("board", s.Profile+(map[bool]string{true: " (" + s.ProfileFile + ")", false: ""}[s.ProfileFile != ""]))
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
	fmt.Fprintf(b, "<table id=\"header%s\" class=\"kv\">\n<tbody>\n", sfx)
	for _, r := range kv.rows {
		fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td></tr>\n", esc(r[0]), esc(r[1]))
	}
	b.WriteString("</tbody>\n</table>\n")
	for _, n := range s.Notes {
		fmt.Fprintf(b, "<p class=\"foot\">Note from the sweep: %s</p>\n", esc(n))
	}

	b.WriteString("<h3>Original registers</h3>\n")
	if len(s.Registers) == 0 {
		fmt.Fprintf(b, "<p id=\"registers%s\">The results file has no register snapshot.</p>\n", sfx)
	} else {
		fmt.Fprintf(b, "<div class=\"regs-wrap\" id=\"registers%s\">\n", sfx)
		per := (len(s.Registers) + 2) / 3
		for c := 0; c*per < len(s.Registers); c++ {
			b.WriteString("<table class=\"regs mono\">\n<thead><tr><th>register</th><th class=\"n\">offset</th><th class=\"n\">value</th></tr></thead>\n<tbody>\n")
			for _, r := range s.Registers[c*per : min(len(s.Registers), (c+1)*per)] {
				fmt.Fprintf(b, "<tr><td>%s</td><td class=\"n\">0x%03x</td><td class=\"n\">%s</td></tr>\n", esc(r.Name), r.Offset, regs.Hex(r.Value))
			}
			b.WriteString("</tbody>\n</table>\n")
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</section>\n")
	return nil
}

func htmlCompare(b *strings.Builder, ss []*Sweep, o Options) error {
	b.WriteString("<section id=\"compare\">\n<h2>Side by side</h2>\n")
	st, err := summaryTable(ss, o)
	if err != nil {
		return err
	}
	htmlTable(b, st, "compare-summary", "summary", nil)
	fmt.Fprintf(b, "<figure id=\"fig-compare\"><figcaption>Difference to each file's own baseline <span>(dot: median, line: 95 %% interval)</span></figcaption>\n%s</figure>\n",
		compareChart(ss, "compare-chart", pageWidth))
	b.WriteString("<h3>Every point</h3>\n<p class=\"foot\">Median, difference to the file's own baseline, rank.</p>\n")
	htmlTable(b, matrixTable(ss), "compare-points", "summary", nil)
	b.WriteString("</section>\n")
	return nil
}
