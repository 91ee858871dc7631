package report

import (
	"fmt"
	"io"
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

// drop removes the columns whose cells are all empty.
func (t *table) drop() {
	n := len(t.head)
	keep := make([]bool, n)
	for _, r := range t.rows {
		for i := 0; i < n && i < len(r); i++ {
			if r[i] != "" {
				keep[i] = true
			}
		}
	}
	sel := func(cells []string) []string {
		var out []string
		for i, c := range cells {
			if i < n && keep[i] {
				out = append(out, c)
			}
		}
		return out
	}
	var right []bool
	for i, k := range keep {
		if k {
			right = append(right, i < len(t.right) && t.right[i])
		}
	}
	t.head = sel(t.head)
	for i := range t.rows {
		t.rows[i] = sel(t.rows[i])
	}
	t.right = right
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
func (t *table) text(w io.Writer, indent string) {
	ws := t.widths()
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString(indent)
		for i := range ws {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(pad(c, ws[i], i < len(t.right) && t.right[i]))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.head)
	for _, r := range t.rows {
		line(r)
	}
}

// markdown writes a GitHub-flavoured Markdown table, aligned in plain
// text too (for mailing lists).
func (t *table) markdown(w io.Writer) {
	ws := t.widths()
	for i := range ws {
		ws[i] = max(ws[i], 3)
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("|")
		for i := range ws {
			c := ""
			if i < len(cells) {
				c = strings.ReplaceAll(cells[i], "|", `\|`)
			}
			b.WriteString(" " + pad(c, ws[i], i < len(t.right) && t.right[i]) + " |")
		}
		fmt.Fprintln(w, b.String())
	}
	line(t.head)
	var b strings.Builder
	b.WriteString("|")
	for i, n := range ws {
		if i < len(t.right) && t.right[i] {
			b.WriteString(" " + strings.Repeat("-", n-1) + ": |")
		} else {
			b.WriteString(" " + strings.Repeat("-", n) + " |")
		}
	}
	fmt.Fprintln(w, b.String())
	for _, r := range t.rows {
		line(r)
	}
}

// textFit writes the table like text, within width columns when width
// is set: the widest columns narrow (to no less than 10) and their cells
// wrap onto more lines.
func (t *table) textFit(w io.Writer, indent string, width int) {
	ws := t.widths()
	if width <= 0 || t.width(len(indent)) <= width {
		t.text(w, indent)
		return
	}
	total := t.width(len(indent))
	for total > width {
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
		total--
	}
	line := func(cells []string) {
		parts := make([][]string, len(ws))
		n := 1
		for i := range ws {
			c := ""
			if i < len(cells) {
				c = cells[i]
			}
			parts[i] = strings.Split(ansi.Wrap(c, ws[i], ""), "\n")
			n = max(n, len(parts[i]))
		}
		for l := 0; l < n; l++ {
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
				b.WriteString(pad(c, ws[i], i < len(t.right) && t.right[i]))
			}
			fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		}
	}
	line(t.head)
	for _, r := range t.rows {
		line(r)
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

// fit drops the columns named in order (by heading) until the table fits
// width columns, as far as they go.
func (t *table) fit(width, indent int, order ...string) {
	for _, name := range order {
		if t.width(indent) <= width {
			return
		}
		for i, h := range t.head {
			if h == name {
				t.remove(i)
				break
			}
		}
	}
}

// remove drops column i.
func (t *table) remove(i int) {
	cut := func(cells []string) []string {
		if i >= len(cells) {
			return cells
		}
		return append(append([]string(nil), cells[:i]...), cells[i+1:]...)
	}
	t.head = cut(t.head)
	for j := range t.rows {
		t.rows[j] = cut(t.rows[j])
	}
	if i < len(t.right) {
		t.right = append(append([]bool(nil), t.right[:i]...), t.right[i+1:]...)
	}
}

// wrap breaks text into lines of at most width columns after the first
// line's prefix, indenting the continuation lines (x/ansi measures and
// breaks the words).
func wrap(prefix, text string, width int) string {
	if b := textwrap.Block(text, prefix, max(width, ansi.StringWidth(prefix)+10)); b != "" {
		return b
	}
	return prefix + "\n"
}
