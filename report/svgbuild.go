package report

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// svgb builds one inline SVG chart so that nothing a results file carries
// can become markup: its lists below have no script, event handler or
// href (a name outside them panics, a bug in the chart code).
//
// Decision: a builder rather than html/template for the SVG. The charts
// are computed geometry; a template would hold as much Go as the builder,
// and html/template gives SVG attributes no context beyond HTML's.
type svgb struct{ markup }

func newSVG() *svgb {
	return &svgb{markup{kind: "svg", elements: svgElements, attrs: svgAttrs}}
}

// svgElements are the elements a chart may have.
var svgElements = &tagSet{names: "svg g title text line rect circle path defs pattern"}

// svgAttrs are the attributes a chart may set.
var svgAttrs = &tagSet{names: "xmlns id class width height viewBox role aria-label x y x1 y1 x2 y2 cx cy r d fill " +
	"fill-opacity stroke stroke-width stroke-dasharray opacity text-anchor transform style " +
	"patternUnits patternTransform"}

// tagSet is a set of names written as one string (static data), its map
// built on first use: no init code in every command (bench/startup.sh).
type tagSet struct {
	names string // separated by spaces
	once  sync.Once
	m     map[string]bool
}

func (t *tagSet) has(name string) bool {
	t.once.Do(func() {
		t.m = map[string]bool{}
		for _, n := range strings.Fields(t.names) {
			t.m[n] = true
		}
	})
	return t.m[name]
}

// markup writes the elements of one vocabulary, the page's (hb) or a
// chart's (svgb): the element and attribute names must be in its lists
// (else it panics), and every value and text is escaped.
type markup struct {
	b               strings.Builder
	kind            string // "html" or "svg", for the panics
	elements, attrs *tagSet
	skipEmpty       bool // an empty class or id is left out (the page's)
}

// tag writes the start of element name with attrs (name, value pairs).
func (m *markup) tag(name string, attrs []string) {
	m.allow(name)
	if len(attrs)%2 != 0 {
		panic("report: " + m.kind + " attributes of <" + name + "> not in pairs")
	}
	m.b.WriteString("<" + name)
	for i := 0; i < len(attrs); i += 2 {
		if !m.attrs.has(attrs[i]) {
			panic("report: " + m.kind + " attribute " + strconv.Quote(attrs[i]) + " not allowed")
		}
		if m.skipEmpty && attrs[i+1] == "" && (attrs[i] == "class" || attrs[i] == "id") {
			continue
		}
		m.b.WriteString(" " + attrs[i] + `="` + esc(attrs[i+1]) + `"`)
	}
}

// allow panics unless name is an element of the vocabulary.
func (m *markup) allow(name string) {
	if !m.elements.has(name) {
		panic("report: " + m.kind + " element " + strconv.Quote(name) + " not allowed")
	}
}

// elem writes an element without content (<meta/>, <circle/>) on a line.
func (m *markup) elem(name string, attrs ...string) {
	m.tag(name, attrs)
	m.b.WriteString("/>\n")
}

// openn writes a start tag, closen the end tags of names and eln an
// element holding escaped text, each ending its line.
func (m *markup) openn(name string, attrs ...string) {
	m.tag(name, attrs)
	m.b.WriteString(">\n")
}

func (m *markup) closen(names ...string) {
	for _, name := range names {
		m.allow(name)
		m.b.WriteString("</" + name + ">\n")
	}
}

func (m *markup) eln(name, text string, attrs ...string) {
	m.tag(name, attrs)
	m.b.WriteString(">" + esc(text) + "</" + name + ">\n")
}

// px formats a coordinate or length as the charts always have: one
// decimal.
func px(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func (b *svgb) open(id, class string, w, h float64, label string) {
	ws, hs := fmt.Sprintf("%.0f", w), fmt.Sprintf("%.0f", h)
	b.openn("svg", "xmlns", "http://www.w3.org/2000/svg", "id", id, "class", "chart "+class,
		"width", ws, "height", hs, "viewBox", "0 0 "+ws+" "+hs, "role", "img", "aria-label", label)
}

func (b *svgb) close() trustedHTML {
	b.closen("svg")
	return b.html()
}

func (b *svgb) title(s string) { b.eln("title", s) }

func (b *svgb) text(x, y float64, anchor, class, s string) {
	b.eln("text", s, "x", px(x), "y", px(y), "text-anchor", anchor, "class", class)
}

// line draws a line; extra are more attribute pairs.
func (b *svgb) line(x1, y1, x2, y2 float64, stroke string, width float64, extra ...string) {
	b.elem("line", append([]string{"x1", px(x1), "y1", px(y1), "x2", px(x2), "y2", px(y2),
		"stroke", stroke, "stroke-width", px(width)}, extra...)...)
}

// xAxis draws the vertical grid at ticks from y0 to y1, labelled below,
// and returns the scale from the ticks' range to left..left+pw.
func (b *svgb) xAxis(ticks []float64, left, pw, y0, y1 float64) func(float64) float64 {
	x0, x1 := ticks[0], ticks[len(ticks)-1]
	if x1 <= x0 {
		x1 = x0 + 1
	}
	X := func(v float64) float64 { return left + (v-x0)/(x1-x0)*pw }
	for _, t := range ticks {
		b.line(X(t), y0, X(t), y1, colGrid, 1)
		b.text(X(t), y1+16, "middle", "tick", tickLabel(t))
	}
	return X
}

// html is the chart so far: safe HTML, since everything in it went
// through the builder.
func (b *svgb) html() trustedHTML { return trustedHTML(b.b.String()) }

// esc escapes text for XML and HTML (text and quoted attribute values)
// and drops the control characters XML does not allow.
func esc(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		default:
			if r < 0x20 && r != '\n' && r != '\t' || r == 0xfffe || r == 0xffff {
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
