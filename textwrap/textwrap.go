// Package textwrap is citune's one word-wrapper: it breaks text at
// spaces into lines of at most a given number of terminal columns,
// measured by charmbracelet/x/ansi (so × and µ count one column and
// escape sequences none). It does not break at hyphens, unlike
// ansi.Wordwrap, which would split flags like --mode. cmd/citune, report
// and tui all wrap through it. Imports x/ansi only.
package textwrap

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Lines breaks text (its runs of spaces collapsed) into lines of at most
// width columns: the first starts with first, the others with rest. A
// word wider than the room left stands alone on its line.
func Lines(text, first, rest string, width int) []string {
	var out []string
	line, lead := first, first
	n, ln := ansi.StringWidth(first), ansi.StringWidth(first)
	for _, w := range strings.Fields(text) {
		wl := ansi.StringWidth(w)
		if line != lead && n+1+wl > width {
			out = append(out, line)
			line, lead = rest, rest
			n, ln = ansi.StringWidth(rest), ansi.StringWidth(rest)
		}
		if line != lead {
			line += " "
			n++
		}
		line += w
		n += wl
	}
	if n > ln {
		out = append(out, line)
	}
	return out
}

// Block is Lines with a hanging indent as wide as prefix, each line
// ended by a newline ("" when text has no word).
func Block(text, prefix string, width int) string {
	lines := Lines(text, prefix, strings.Repeat(" ", ansi.StringWidth(prefix)), width)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Line breaks a line wider than width at its last space before the
// limit, keeping the spacing inside each piece (tables stay aligned,
// unlike Lines) and indenting continuation lines four columns deeper than
// the line; a word wider than the room left is cut. Each piece ends with
// a newline. cmd/citune passes its terminal output through it.
func Line(line string, width int) string {
	if width < 1 {
		return line + "\n"
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	indent := strings.Repeat(" ", min(lead+4, width/2))
	var b strings.Builder
	for ansi.StringWidth(line) > width {
		head := ansi.Truncate(line, width+1, "")
		cut := strings.LastIndexByte(head, ' ')
		if cut <= len(indent) {
			cut = len(ansi.Truncate(line, width, "")) // one long word: cut it
		}
		b.WriteString(strings.TrimRight(line[:cut], " ") + "\n")
		line = indent + strings.TrimLeft(line[cut:], " ")
	}
	b.WriteString(line + "\n")
	return b.String()
}
