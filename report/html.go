package report

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/citune/citune/regs"
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

// The page is written by the escaping builder hb (htmlbuild.go,
// htmlpage.go): every string from a results file (names, notes, errors,
// units, the file names themselves) is escaped, whatever it holds. The
// style sheet is the constant above; the charts are trustedHTML only
// because svgb built them (svgbuild.go), escaping every value it was
// given. The views below hold plain strings and are filled by Go code.

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
	CSS     string
	Files   string
	Fleet   *fleetView
	Compare *compareView
	Sweeps  []*sweepView
	Legend  []legendView
}

type legendView struct {
	Colour string
	What   string
}

type compareView struct {
	Summary, Points *tableView
	Chart           trustedHTML
}

type fleetView struct {
	Heading, Summary string
	Groups           []fleetGroupView
}

type fleetGroupView struct {
	ID, Title, Plan, Probe string
	Boards, Points         *tableView
	Chart                  trustedHTML
	Verdict                string
}

type sweepView struct {
	Sfx, Board, Kernel, Label string
	Plan, State               string
	Corrupt                   string
	Warnings                  []string
	Summary                   *tableView
	Footnotes                 []string
	Unit, Amount              string
	Rates, Heatmap, Scatter   trustedHTML
	HeatCaption               string
	Excluded, Eliminated      *tableView
	DroppedTitle, DroppedWhy  string
	Effects                   *tableView
	EffectsHow                string
	DTS, KernelParams, DTSErr string
	VerdictLines              []string
	VerdictApply              bool
	Header                    *tableView
	Notes                     []string
	Registers                 []*tableView
}

// WriteHTML writes one self-contained page: no scripts, no fonts or
// images from elsewhere; the charts are inline SVG. With several files
// the page starts with their comparison.
func WriteHTML(w io.Writer, ss []*Sweep, o Options) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	v := &pageView{Title: "citune report: " + ss[0].Board(), CSS: css, Legend: legend()}
	if ss[0].Simulated {
		v.Title = "citune report: SIMULATED " + ss[0].Board()
	}
	switch {
	case isFleet(ss, o):
		v.Title = fmt.Sprintf("citune report: %d boards compared", len(ss))
	case len(ss) > 1:
		v.Title = fmt.Sprintf("citune report: %d results side by side", len(ss))
	}
	if len(ss) > 1 && slices.ContainsFunc(ss, func(s *Sweep) bool { return s.Simulated }) {
		v.Title += " (SIMULATED ones among them)"
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
	// Rendered whole before anything is written: no half page.
	_, err := io.WriteString(w, v.render())
	return err
}

func legend() []legendView {
	// The colours are the constants of svg.go.
	return []legendView{
		{colBaseline, "baseline (original settings)"}, {colWinner, "winner"}, {colBetter, "significantly faster than the baseline"},
		{colSame, "no significant difference"}, {colWorse, "significantly slower"}, {colBad, "not held or corrupt: not ranked"},
	}
}

// htmlTable is t for the page with the given id; rowClass gives each
// row's class.
func htmlTable(t *table, id, class string, rowClass func(i int) string) *tableView {
	v := &tableView{ID: id, Class: class}
	num := t.isRight
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
	v := &sweepView{Board: s.Board(), Kernel: s.KernelText(), Label: s.Label,
		Plan: s.PlanString(), State: stateLine(s), Unit: s.RateUnit(), Amount: s.Amount()}
	if many {
		v.Sfx = "-" + strconv.Itoa(n)
	}
	v.addWarnings(s)
	v.addSummary(s, pts)
	v.addCharts(s)
	v.addTables(s)
	v.DTS, v.KernelParams, v.DTSErr = s.DTS, s.KernelParams, s.DTSErr
	v.VerdictLines, v.VerdictApply = s.VerdictLines(), s.Verdict.Kind == rank.VerdictApply
	v.addHeader(s)
	v.Notes = s.Notes
	v.addRegisters(s)
	return v, nil
}

// addWarnings sets the corrupt-data line and the warnings: the sweep's,
// a visit cut short, points not measured.
func (v *sweepView) addWarnings(s *Sweep) {
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
}

// addSummary sets the table of the baseline, the best and the named
// points, with its footnotes.
func (v *sweepView) addSummary(s *Sweep, pts []*Point) {
	if s.Baseline == nil && len(pts) == 0 {
		return
	}
	all := pts
	if s.Baseline != nil {
		all = append([]*Point{s.Baseline}, pts...)
	}
	v.Summary = htmlTable(pointTable(s, pts), "summary"+v.Sfx, "summary", func(i int) string {
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
	})
	v.Footnotes = footnotes(s, pts)
}

// addCharts sets the rates chart, the heat map (with its caption) and the
// scatter.
func (v *sweepView) addCharts(s *Sweep) {
	sfx := v.Sfx
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
}

// addTables sets the tables of the excluded and the eliminated points and
// of the settings' effects.
func (v *sweepView) addTables(s *Sweep) {
	sfx := v.Sfx
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
		v.DroppedTitle, v.DroppedWhy = "Dropped by the adaptive race", "Clearly slower than the race's leader after fewer runs; not ranked."
		if s.Mode == "model" {
			t, w := s.droppedBy()
			v.DroppedTitle, v.DroppedWhy = strings.ToUpper(t[:1])+t[1:], w
		}
	}
	if effs := s.Effects(); len(effs) > 0 && len(s.Ranked) > 0 {
		v.EffectsHow = effs[0].How
		v.Effects = htmlTable(effectTable(s, effs), "effects"+sfx, "effects", nil)
	}
}

// addHeader sets the header's key-value lines, leaving out empty values.
func (v *sweepView) addHeader(s *Sweep) {
	v.Header = &tableView{ID: "header" + v.Sfx, Class: "kv"}
	add := func(k, val string) {
		if val != "" {
			v.Header.Rows = append(v.Header.Rows, rowView{Cells: []cellView{{Text: k}, {Text: val}}})
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
	var ax []string
	for _, a := range s.Axes {
		ax = append(ax, fmt.Sprintf("%s (%s %s): %s, original %s", a.Label, a.Kind, a.Name, strings.Join(a.Values, ", "), a.Original))
	}
	add("axes", strings.Join(ax, "; "))
	add("state", stateLine(s))
	add("sessions", strconv.Itoa(s.Sessions))
}

// addRegisters sets the registers' snapshot in three columns.
func (v *sweepView) addRegisters(s *Sweep) {
	if len(s.Registers) == 0 {
		return
	}
	for col := range slices.Chunk(s.Registers, (len(s.Registers)+2)/3) {
		t := &table{head: []string{"register", "offset", "value"}, right: []bool{false, true, true}}
		for _, r := range col {
			t.add(r.Name, fmt.Sprintf("0x%03x", r.Offset), regs.Hex(r.Value))
		}
		v.Registers = append(v.Registers, htmlTable(t, "", "regs mono", nil))
	}
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
