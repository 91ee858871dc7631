package textwrap

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestLines(t *testing.T) {
	text := "sweep --axis ITC=1,8 --mode adaptive ×16 µs   spread  over several words"
	for _, width := range []int{12, 20, 40, 80} {
		lines := Lines(text, "note: ", "      ", width)
		if strings.Join(strings.Fields(strings.Join(lines, " ")), " ") != "note: "+strings.Join(strings.Fields(text), " ") {
			t.Errorf("width %d: words lost or reordered: %q", width, lines)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > width && len(strings.Fields(l)) > 1 {
				t.Errorf("width %d: line %d is %d wide: %q", width, i, w, l)
			}
			if i > 0 && !strings.HasPrefix(l, "      ") {
				t.Errorf("width %d: continuation %q not indented", width, l)
			}
			if strings.HasSuffix(l, "-") {
				t.Errorf("width %d: broke at a hyphen: %q", width, l)
			}
		}
	}
	// × and µ are one column each: the line fits exactly.
	if got := Lines("ab ×µ cd", "", "", 5); len(got) != 2 || got[0] != "ab ×µ" {
		t.Errorf("wide runes: %q", got)
	}
	// A word wider than the line stands alone.
	if got := Lines("a verylongword b", "", "", 4); len(got) != 3 || got[1] != "verylongword" {
		t.Errorf("long word: %q", got)
	}
	if Block("   ", "x: ", 20) != "" || len(Lines("", "x", "y", 10)) != 0 {
		t.Error("empty text gave lines")
	}
	if got := Block("one two three", "p: ", 9); got != "p: one\n   two\n   three\n" {
		t.Errorf("Block = %q", got)
	}
}

// Line keeps a table row's spacing, breaks at the last space that fits,
// indents continuations four columns deeper than the line and cuts a
// word that cannot fit.
func TestLine(t *testing.T) {
	if got := Line("  a    b", 20); got != "  a    b\n" {
		t.Errorf("short line changed: %q", got)
	}
	got := Line("  ITC=1    24.90 MiB/s   ×1.05 µs  spread", 24)
	for i, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if ansi.StringWidth(l) > 24 {
			t.Errorf("piece %d is %d wide: %q", i, ansi.StringWidth(l), l)
		}
		if i > 0 && !strings.HasPrefix(l, "      ") {
			t.Errorf("continuation %q not indented by 6", l)
		}
	}
	if !strings.HasPrefix(got, "  ITC=1    24.90 MiB/s\n") {
		t.Errorf("spacing not kept or broken at the wrong space: %q", got)
	}
	// The indent is at most half the width.
	if got := Line("abcdefghijkl", 5); got != "abcde\n  fgh\n  ijk\n  l\n" {
		t.Errorf("long word: %q", got)
	}
	if got := Line("x y", 0); got != "x y\n" {
		t.Errorf("width 0: %q", got)
	}
}
