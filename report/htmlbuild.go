package report

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
