package report

import (
	"fmt"
	"strings"

	"github.com/citune/citune/sweep/rank"
)

// trustedHTML is markup this package built itself with escaping builders
// (svgb, hb): the only kind of markup that may enter a page unescaped.
type trustedHTML string

// hb builds the HTML page the way svgb builds a chart (markup): its lists
// below have no script, event handler, href or src, and only trustedHTML
// (svgb's charts, the style sheet) goes in as it is.
//
// Decision: a typed builder, not html/template. html/template escaped
// as well, but text/template reaches reflect's method lookup, which
// stops the linker from dropping unused methods: it added 1.5 MiB to the
// ARMv7 board binary and broke its 7 MiB budget (bench and .ci/run).
type hb struct{ markup }

func newPage() *hb {
	return &hb{markup{kind: "html", elements: htmlElements, attrs: htmlAttrs, skipEmpty: true}}
}

// htmlElements are the elements a page may have.
var htmlElements = &tagSet{names: "html head meta title style body main h1 h2 h3 p section figure figcaption span strong " +
	"div table thead tbody tr th td pre code i"}

// htmlAttrs are the attributes a page may set.
var htmlAttrs = &tagSet{names: "lang charset name content id class style"}

// open writes a start tag; attrs are name, value pairs (an empty class or
// id is left out).
func (b *hb) open(name string, attrs ...string) { b.tag(name, attrs); b.b.WriteString(">") }

// close writes the end tags of names, in order.
func (b *hb) close(names ...string) {
	for _, name := range names {
		b.allow(name)
		b.b.WriteString("</" + name + ">")
	}
}

// el writes an element holding escaped text.
func (b *hb) el(name, text string, attrs ...string) {
	b.open(name, attrs...)
	b.text(text)
	b.close(name)
}

func (b *hb) text(s string) { b.b.WriteString(esc(s)) }

// raw writes markup this package built.
func (b *hb) raw(h trustedHTML) { b.b.WriteString(string(h)) }

func (b *hb) String() string { return b.b.String() }

// pageHead opens the page, titled, with the style sheet and the files it
// is made from.
func pageHead(b *hb, title, files string) {
	b.b.WriteString("<!DOCTYPE html>\n")
	b.openn("html", "lang", "en")
	b.openn("head")
	b.elem("meta", "charset", "utf-8")
	b.elem("meta", "name", "viewport", "content", "width=device-width, initial-scale=1")
	b.elem("meta", "name", "generator", "content", "citune report")
	b.eln("title", title)
	b.open("style")
	b.raw(trustedHTML(css))
	b.closen("style", "head")
	b.openn("body")
	b.openn("main")
	b.eln("h1", title)
	b.eln("p", "from "+files, "class", "sub")
}

// pageTail writes the colours' legend (the constants of svg.go) and
// closes the page.
func pageTail(b *hb) {
	b.open("p", "class", "legend", "id", "legend")
	for _, l := range [][2]string{
		{colBaseline, "baseline (original settings)"}, {colWinner, "winner"}, {colBetter, "significantly faster than the baseline"},
		{colSame, "no significant difference"}, {colWorse, "significantly slower"}, {colBad, "not held or corrupt: not ranked"},
	} {
		b.open("span")
		b.el("i", "", "style", "background:"+l[0])
		b.text(l[1])
		b.close("span")
	}
	b.closen("p", "main", "body", "html")
}

// render writes t with id and class; rowClass (if not nil) gives each
// row's class. A table without a head (the run's key-value lines) has a
// heading cell first in each row.
func render(b *hb, t *table, id, class string, rowClass func(i int) string) {
	b.openn("table", "id", id, "class", class)
	if t.head != nil {
		b.open("thead")
		b.open("tr")
		for i, c := range t.head {
			b.el("th", c, "class", numClass(t.isRight(i)))
		}
		b.close("tr")
		b.closen("thead")
	}
	b.openn("tbody")
	for r, row := range t.rows {
		cls := ""
		if rowClass != nil {
			cls = rowClass(r)
		}
		b.open("tr", "class", cls)
		for i, c := range row {
			tag := "td"
			if t.head == nil && i == 0 {
				tag = "th"
			}
			b.el(tag, c, "class", numClass(t.isRight(i)))
		}
		b.closen("tr")
	}
	b.closen("tbody", "table")
}

func numClass(num bool) string {
	if num {
		return "n"
	}
	return ""
}

// figure writes a chart with its caption: title, then the detail in a
// span.
func figure(b *hb, id, title, detail string, chart trustedHTML) {
	b.open("figure", "id", id)
	b.open("figcaption")
	b.text(title + " ")
	b.el("span", detail)
	b.closen("figcaption")
	b.raw(chart)
	b.closen("figure")
}

func htmlCompare(b *hb, ss []*Sweep, o Options) error {
	st, err := summaryTable(ss, o)
	if err != nil {
		return err
	}
	b.openn("section", "id", "compare")
	b.eln("h2", "Side by side")
	render(b, st, "compare-summary", "summary", nil)
	figure(b, "fig-compare", "Difference to each file's own baseline", "(dot: median, line: 95 % interval)", compareChart(ss, "compare-chart", pageWidth))
	b.eln("h3", "Every point")
	b.eln("p", "Median, difference to the file's own baseline, rank.", "class", "foot")
	render(b, matrixTable(ss), "compare-points", "summary", nil)
	b.closen("section")
	return nil
}

// htmlSweep writes the section of one file; sfx makes its ids unique on
// a page of several.
func htmlSweep(b *hb, s *Sweep, o Options, sfx string) error {
	pts, err := rows(s, o)
	if err != nil {
		return err
	}
	b.openn("section", "class", "sweep", "id", "sweep"+sfx)
	b.open("h2")
	b.text(s.Board() + ", " + s.KernelText() + " ")
	b.el("span", "("+s.Label+")", "class", "mono")
	b.closen("h2")
	b.eln("p", s.PlanString()+". "+stateLine(s)+".", "class", "sub")
	if _, cor, _ := s.Counts(); cor > 0 {
		b.eln("div", fmt.Sprintf("CORRUPT DATA at %d point%s: a probe run's data failed its integrity check (listed below, never ranked).", cor, plural(cor)), "class", "alert")
	}
	for _, w := range s.Warnings {
		b.eln("div", w, "class", "warn")
	}
	if s.InProgress != "" {
		b.eln("div", "Cut short: "+s.InProgress+".", "class", "warn")
	}
	if len(s.Missing) > 0 {
		b.eln("div", fmt.Sprintf("Not measured (%d of %d planned points): %s.", len(s.Missing), s.Planned, strings.Join(s.Missing, "; ")), "class", "warn")
	}
	b.eln("h3", "Baseline against the best point")
	if s.Baseline != nil || len(pts) > 0 {
		b.openn("div", "class", "scroll")
		render(b, pointTable(s, pts), "summary"+sfx, "summary", summaryClass(s, pts))
		b.closen("div")
		for _, f := range footnotes(s, pts) {
			b.eln("p", f, "class", "foot")
		}
	} else {
		b.eln("p", "Nothing was measured to the end.")
	}
	figure(b, "fig-rates"+sfx, "Rate per point", "("+s.RateUnit()+"; dots: runs, line: min to max, diamond: median; grey band: the baseline's range)", ratesChart(s, "rates"+sfx, pageWidth))
	if hm, caption := heatmap(s, "heatmap"+sfx); hm != "" {
		figure(b, "fig-heatmap"+sfx, "Heat map of the median rate", "("+caption+")", hm)
	}
	figure(b, "fig-scatter"+sfx, "Rate against interrupts per "+s.Amount(), "(the dashed line joins the points no other point beats on both)", scatter(s, "scatter"+sfx, pageWidth))
	otherTables(b, s, sfx)
	b.eln("h3", "The verdict")
	for _, l := range s.VerdictLines() {
		b.eln("p", l, "class", "verdict")
	}
	if s.Verdict.Kind == rank.VerdictApply {
		b.eln("h3", "The recommendation as a device-tree fragment and kernel parameters")
	} else {
		b.eln("h3", "Nothing to make permanent: the original values as a device-tree fragment")
	}
	if s.DTS != "" {
		b.eln("pre", s.DTS, "id", "dts"+sfx)
		if s.KernelParams != "" {
			b.open("p")
			b.text("Kernel command line: ")
			b.el("code", s.KernelParams)
			b.closen("p")
		}
	} else {
		b.eln("p", "No fragment: "+s.DTSErr+".", "id", "dts"+sfx)
	}
	b.eln("h3", "The run")
	render(b, headerTable(s), "header"+sfx, "kv", nil)
	for _, n := range s.Notes {
		b.eln("p", "Note from the sweep: "+n, "class", "foot")
	}
	b.eln("h3", "Original registers")
	if cols := registerTables(s); cols != nil {
		b.openn("div", "class", "regs-wrap", "id", "registers"+sfx)
		for _, col := range cols {
			render(b, col, "", "regs mono", nil)
		}
		b.closen("div")
	} else {
		b.eln("p", "The results file has no register snapshot.", "id", "registers"+sfx)
	}
	b.closen("section")
	return nil
}
