package textwrap

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Escape neutralises text that came from files others may have written
// (results files, profiles) before it reaches a terminal, a Markdown page
// or a LAVA log: control characters (C0 but newline and tab, DEL, C1),
// bytes that are not UTF-8 and the bidirectional overrides that reorder
// what a reader sees are shown as Go escapes (\x1b, \u202e), so no escape
// sequence retitles, clears or forges the screen.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f || bidi(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape lets clean text through Escape uncopied (a bad byte ranges
// as utf8.RuneError).
func needsEscape(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r == utf8.RuneError || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || bidi(r)
	})
}

// bidi reports the Unicode bidirectional controls.
func bidi(r rune) bool {
	return r == 0x200e || r == 0x200f || r == 0x061c || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// EscapeWriter escapes (Escape) each write to w; for output written a
// whole line or value at a time (fmt.Fprintf).
func EscapeWriter(w io.Writer) io.Writer { return escapeWriter{w} }

type escapeWriter struct{ w io.Writer }

func (e escapeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(e.w, Escape(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
