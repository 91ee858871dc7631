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
