package report

import (
	"strings"
	"testing"
)

// TestSVGBuilder checks that the builder escapes values and text and
// refuses elements and attributes the charts have no business writing.
func TestSVGBuilder(t *testing.T) {
	b := newSVG()
	b.openn("g", "class", `x" onload="alert(1)`)
	b.eln("text", "</text><script>alert(2)</script>", "x", px(1.25))
	b.closen("g")
	got := string(b.html())
	want := "<g class=\"x&quot; onload=&quot;alert(1)\">\n<text x=\"1.2\">&lt;/text&gt;&lt;script&gt;alert(2)&lt;/script&gt;</text>\n</g>\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if e := esc("a\x01b\x1f\tc\uffff"); e != "ab\tc" {
		t.Errorf("esc kept a character XML does not allow: %q", e)
	}
	for _, c := range []struct {
		name string
		f    func(*svgb)
	}{
		{"script element", func(b *svgb) { b.openn("script") }},
		{"foreignObject", func(b *svgb) { b.elem("foreignObject") }},
		{"end of a script", func(b *svgb) { b.closen("script") }},
		{"event handler", func(b *svgb) { b.elem("rect", "onclick", "x") }},
		{"href", func(b *svgb) { b.eln("text", "x", "href", "javascript:alert(1)") }},
		{"odd attributes", func(b *svgb) { odd := strings.Fields("x"); b.elem("rect", odd...) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "report: svg") {
					t.Errorf("no panic (%v)", r)
				}
			}()
			b := newSVG()
			c.f(b)
		})
	}
}
