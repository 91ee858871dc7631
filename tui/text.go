package tui

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/lipgloss/v2"

	"github.com/citune/citune/textwrap"
)

// fit pads or cuts plain text s to exactly w columns; a cut ends in '~'.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n == w:
		return s
	case n < w:
		return s + strings.Repeat(" ", w-n)
	}
	return string([]rune(s)[:w-1]) + "~"
}

// cut shortens plain text s to at most w columns (no padding).
func cut(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	return fit(s, w)
}

// wrap breaks plain text into lines of at most w columns, indenting all
// but the first.
func wrap(text string, w int, indent string) []string {
	lines := textwrap.Lines(text, "", indent, w)
	for i := range lines {
		lines[i] = cut(lines[i], w)
	}
	return lines
}

// wrapLine keeps a line that fits as it is and wraps a longer one under
// its text (two more columns for prose).
func wrapLine(l string, w int) []string {
	if utf8.RuneCountInString(l) <= w {
		return []string{l}
	}
	body := strings.TrimLeft(l, " ")
	lead := l[:len(l)-len(body)]
	indent := lead + "  "
	if lead != "" {
		indent = lead + "   " // under the text after a flag: "  !  text"
	}
	lines := wrap(body, w-len(lead), strings.Repeat(" ", len(indent)-len(lead)))
	for i := range lines {
		lines[i] = lead + lines[i]
	}
	return lines
}

// wrapStyled wraps plain text like wrap and renders each line with st.
func wrapStyled(st lipgloss.Style, text string, w int) []string {
	lines := wrap(text, w, "  ")
	for i, l := range lines {
		lines[i] = st.Render(l)
	}
	return lines
}

// fmtDur renders a duration as m:ss or h:mm:ss.
func fmtDur(d time.Duration) string {
	d = d.Round(time.Second)
	h := int(d / time.Hour)
	m := int(d/time.Minute) % 60
	s := int(d/time.Second) % 60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}

// bar renders a progress bar of exactly w columns in ASCII: [####....].
func bar(frac float64, w int) string {
	if w < 3 {
		return fit("", w)
	}
	inner := w - 2
	frac = max(0, min(1, frac))
	n := int(frac*float64(inner) + 0.5)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", inner-n) + "]"
}

// padLines makes lines exactly h lines: cut, or padded with empty ones.
func padLines(lines []string, h int) []string {
	out := make([]string, max(h, 0))
	copy(out, lines)
	return out
}
