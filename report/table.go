package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/citune/citune/textwrap"
)

// table is a grid of cells rendered as aligned text or Markdown.
type table struct {
	head  []string
	rows  [][]string
	right []bool // right-aligned columns
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) isRight(i int) bool { return i < len(t.right) && t.right[i] }

// keep keeps the columns i that k accepts.
func (t *table) keep(k func(i int) bool) {
	n := len(t.head)
	sel := func(cells []string) (out []string) {
		for i, c := range cells {
			if i < n && k(i) {
				out = append(out, c)
			}
		}
		return out
	}
	var right []bool
	for i := range t.head {
		if k(i) {
			right = append(right, t.isRight(i))
		}
	}
	t.head = sel(t.head)
	for i := range t.rows {
		t.rows[i] = sel(t.rows[i])
	}
	t.right = right
}

// drop removes the columns whose cells are all empty.
func (t *table) drop() {
	k := make([]bool, len(t.head))
	for _, r := range t.rows {
		for i, c := range r {
			if i < len(k) && c != "" {
				k[i] = true
			}
		}
	}
	t.keep(func(i int) bool { return k[i] })
}

func (t *table) widths() []int {
	w := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, c := range r {
			if i < len(w) {
				w[i] = max(w[i], ansi.StringWidth(c))
			}
		}
	}
	return w
}

func pad(s string, w int, right bool) string {
	n := w - ansi.StringWidth(s)
	if n <= 0 {
		return s
	}
	if right {
		return strings.Repeat(" ", n) + s
	}
	return s + strings.Repeat(" ", n)
}

// text writes the table with two spaces between columns.
func (t *table) text(w io.Writer, indent string) { t.write(w, indent, t.widths(), false) }

// markdown writes a Markdown table, aligned in plain text too.
func (t *table) markdown(w io.Writer) {
	ws := t.widths()
	for i := range ws {
		ws[i] = max(ws[i], 3)
	}
	line := func(cell func(i int) string) {
		var b strings.Builder
		b.WriteString("|")
		for i := range ws {
			b.WriteString(" " + cell(i) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	rule := func(i int) string {
		if t.isRight(i) {
			return strings.Repeat("-", ws[i]-1) + ":"
		}
		return strings.Repeat("-", ws[i])
	}
	for r, cells := range append([][]string{t.head, nil}, t.rows...) {
		if r == 1 {
			line(rule)
			continue
		}
		line(func(i int) string {
			c := ""
			if i < len(cells) {
				c = strings.ReplaceAll(cells[i], "|", `\|`)
			}
			return pad(c, ws[i], t.isRight(i))
		})
	}
}

// textFit writes the table like text, within width columns when width
// is set: the widest columns narrow (to no less than 10) and their cells
// wrap onto more lines.
func (t *table) textFit(w io.Writer, indent string, width int) {
	ws := t.widths()
	fit := width > 0 && t.width(len(indent)) > width
	for total := t.width(len(indent)); fit && total > width; total-- {
		wi := -1
		for i := range ws {
			if ws[i] > 10 && (wi < 0 || ws[i] > ws[wi]) {
				wi = i
			}
		}
		if wi < 0 {
			break
		}
		ws[wi]--
	}
	t.write(w, indent, ws, fit)
}

// write writes the rows in columns ws wide, their cells wrapped with wrap.
func (t *table) write(w io.Writer, indent string, ws []int, wrap bool) {
	for _, cells := range append([][]string{t.head}, t.rows...) {
		parts := make([][]string, len(ws))
		n := 1
		for i := range ws {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			parts[i] = []string{c}
			if wrap {
				parts[i] = strings.Split(ansi.Wrap(c, ws[i], ""), "\n")
			}
			n = max(n, len(parts[i]))
		}
		for l := range n {
			var b strings.Builder
			b.WriteString(indent)
			for i := range ws {
				if i > 0 {
					b.WriteString("  ")
				}
				c := ""
				if l < len(parts[i]) {
					c = parts[i][l]
				}
				b.WriteString(pad(c, ws[i], t.isRight(i)))
			}
			fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		}
	}
}

// width is the width of the table as text after indent columns.
func (t *table) width(indent int) int {
	n := indent
	for i, w := range t.widths() {
		if i > 0 {
			n += 2
		}
		n += w
	}
	return n
}

// fit drops the columns named (by heading) in order until the table fits.
func (t *table) fit(width, indent int, order ...string) {
	for _, name := range order {
		if t.width(indent) <= width {
			return
		}
		if i := slices.Index(t.head, name); i >= 0 {
			t.keep(func(j int) bool { return j != i })
		}
	}
}

// wrap breaks text into lines of at most width columns after the first
// line's prefix, indenting the continuation lines.
func wrap(prefix, text string, width int) string {
	if b := textwrap.Block(text, prefix, max(width, ansi.StringWidth(prefix)+10)); b != "" {
		return b
	}
	return prefix + "\n"
}
