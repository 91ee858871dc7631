package report

import (
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
)

// Every mark a point table can carry gets its footnote, in a fixed
// order, and only the marks the shown points carry; the tie note names
// --top when it hides tied points.
func TestFootnotesMarks(t *testing.T) {
	vs := func(sig bool, change string) *rank.Comparison {
		return &rank.Comparison{Pct: 0.4, N: 5, RefN: 5, Significant: sig, Change: change}
	}
	a := &Point{Label: "A", Rank: 1, Tied: true, Vs: vs(true, rank.ChangeNone), Original: true}
	b := &Point{Label: "B", Rank: 2, Tied: true, Vs: vs(false, rank.ChangeNone), Blocked: []string{"X"}}
	s := &Sweep{Ranked: []*Point{a, b}, Verdict: rank.Verdict{MinGainPct: 1, Family: 3}}
	got := strings.Join(footnotes(s, []*Point{a, b}), "\n")
	want := strings.Join([]string{
		"= ranks 1 to 2 are not significantly slower than the fastest; among them fewer interrupts per MiB, then less CPU per MiB, then fewer settings changed from the original, rank first",
		"n.s. = no significant difference to the baseline (the interval includes 0)",
		"~ = significant, but under the 1.0 % practical threshold (--min-gain): no change",
		"(original) = the original settings measured as a point: the sweep's noise floor",
		"(not permanent) = a change no device-tree property or kernel parameter can make permanent here: never recommended",
		"intervals: of the geometric mean rates, holding together at 95 % over the 3 points compared",
		"not measured by this probe: interrupts, interrupt handler time, CPU time",
	}, "\n")
	if got != want {
		t.Errorf("footnotes:\n%s\nwant:\n%s", got, want)
	}
	got = strings.Join(footnotes(s, []*Point{a}), "\n")
	if !strings.Contains(got, "rank first (--top 2 shows them all)") || strings.Contains(got, "n.s.") || strings.Contains(got, "not permanent") {
		t.Errorf("footnotes of A alone:\n%s", got)
	}
	if got := footnotes(&Sweep{}, nil); len(got) != 0 {
		t.Errorf("footnotes of nothing: %q", got)
	}
}
