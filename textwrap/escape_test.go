package textwrap

import (
	"bytes"
	"fmt"
	"testing"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain 4.77 MiB/s × µ":  "plain 4.77 MiB/s × µ",
		"two\nlines\tand a tab": "two\nlines\tand a tab",
		"\x1b]0;pwned\x07title": `\x1b]0;pwned\x07title`,
		"\x1b[2J\x1b[Hclear":    `\x1b[2J\x1b[Hclear`,
		"cr\rover":              `cr\x0dover`,
		"del\x7f":               `del\x7f`,
		"c1 \u009b2J":           `c1 \u009b2J`,
		"raw \x9b byte":         `raw \x9b byte`,
		"bidi \u202eevil\u202c": `bidi \u202eevil\u202c`,
		"isolate \u2066x\u2069": `isolate \u2066x\u2069`,
		"nul\x00":               `nul\x00`,
		"ok é then \x1b":        `ok é then \x1b`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestEscapeWriter(t *testing.T) {
	var b bytes.Buffer
	fmt.Fprintf(EscapeWriter(&b), "%s=%d\n", "ITC\x1b[31m", 8)
	if got, want := b.String(), `ITC\x1b[31m=8`+"\n"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

func FuzzEscape(f *testing.F) {
	f.Add("a\x1b[2Jb\u202e\x9b")
	f.Fuzz(func(t *testing.T, s string) {
		e := Escape(s)
		for i := 0; i < len(e); i++ {
			if c := e[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				t.Fatalf("Escape(%q) = %q holds control byte %#x", s, e, c)
			}
		}
		for _, r := range e {
			if r >= 0x80 && r <= 0x9f || bidi(r) || r == 0xfffd && !bytes.ContainsRune([]byte(s), 0xfffd) {
				t.Fatalf("Escape(%q) = %q holds %U", s, e, r)
			}
		}
	})
}
