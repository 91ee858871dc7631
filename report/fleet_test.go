package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
)

// The three simulated boards of gen_test.go: two i.MX6Q carriers whose
// bus prefers AHBBRST=3, an i.MX6UL board that prefers AHBBRST=7.
func TestFleetGroupsAndWinners(t *testing.T) {
	ss := load(t, "fleet-ul", "fleet-q-a", "fleet-q-b")
	if !isFleet(ss, Options{}) {
		t.Fatal("three named boards are not a fleet")
	}
	f := NewFleet(ss)
	if len(f.Groups) != 2 {
		t.Fatalf("%d groups, want 2 (imx6q, imx6ul)", len(f.Groups))
	}
	q, ul := f.Groups[0], f.Groups[1]
	if q.Profile != "imx6q" || ul.Profile != "imx6ul" {
		t.Fatalf("groups %s, %s: want imx6q first, then imx6ul", q.Profile, ul.Profile)
	}
	if got := strings.Join(q.Boards, ","); got != "sabrelite-rev-a,sabrelite-rev-b" {
		t.Errorf("imx6q boards %s", got)
	}
	for i, w := range q.Winners {
		if w == nil || w.Label != "ITC=1 AHBBRST=3" {
			t.Errorf("imx6q board %s: winner %v, want ITC=1 AHBBRST=3", q.Boards[i], w)
		}
	}
	if q.Pick != "ITC=1 AHBBRST=3" || len(q.Common) == 0 || q.PickLoss != 0 {
		t.Errorf("imx6q: pick %q (loss %.1f %%), common %v", q.Pick, q.PickLoss, q.Common)
	}
	if !strings.Contains(q.Verdict(), "one value for the SoC's dtsi") {
		t.Errorf("imx6q verdict: %s", q.Verdict())
	}
	if ul.Pick != "ITC=1 AHBBRST=7" {
		t.Errorf("imx6ul pick %q", ul.Pick)
	}
	if s := f.Summary(); !strings.HasPrefix(s, "the best setting differs between the SoCs") {
		t.Errorf("summary: %s", s)
	}
	// The spread of the baseline: the two boards' medians.
	a, b := q.Sweeps[0].Baseline.Median, q.Sweeps[1].Baseline.Median
	want := (max(a, b) - min(a, b)) / ((a + b) / 2) * 100
	if got, ok := q.Spread("baseline"); !ok || got < want-1e-9 || got > want+1e-9 {
		t.Errorf("baseline spread %.3f (%v), want %.3f", got, ok, want)
	}
	if _, ok := ul.Spread("baseline"); ok {
		t.Error("a spread over one board")
	}
	// A point one board did not hold is left out of the spread.
	if p := byLabel(q.Sweeps[1], "ITC=1 AHBBRST=2"); p == nil || p.Status != "not-held" {
		t.Fatalf("fixture: rev-b's ITC=1 AHBBRST=2 should be not-held, is %v", p)
	}
	if _, ok := q.Spread("ITC=1 AHBBRST=2"); ok {
		t.Error("a spread with only one board's trusted median")
	}
}

// A third i.MX6Q carrier that prefers AHBBRST=7: no common winner, and
// the one value for all three is the one that loses least on any board.
func TestFleetWinnerDiffers(t *testing.T) {
	ss := load(t, "fleet-q-a", "fleet-q-b", "fleet-q-c")
	f := NewFleet(ss)
	if len(f.Groups) != 1 {
		t.Fatalf("%d groups", len(f.Groups))
	}
	g := f.Groups[0]
	if len(g.Common) != 0 {
		t.Fatalf("common winners %v, want none", g.Common)
	}
	if g.Winners[2].Label != "ITC=1 AHBBRST=7" {
		t.Fatalf("rev-c winner %s", g.Winners[2].Label)
	}
	// Check the maximin by hand over every point measured on all boards.
	bestLoss, bestPoint := 101.0, ""
	for _, l := range g.Points {
		worst := 0.0
		ok := true
		for _, s := range g.Sweeps {
			p := byLabel(s, l)
			if p == nil || p.Status != "ok" {
				ok = false
				break
			}
			worst = max(worst, (1-p.Median/s.Winner().Median)*100)
		}
		if ok && worst < bestLoss {
			bestLoss, bestPoint = worst, l
		}
	}
	if g.Pick != bestPoint || g.PickLoss < bestLoss-1e-9 || g.PickLoss > bestLoss+1e-9 {
		t.Errorf("pick %s (%.2f %%), want %s (%.2f %%)", g.Pick, g.PickLoss, bestPoint, bestLoss)
	}
	v := g.Verdict()
	if !strings.Contains(v, "the winner differs between the boards of the imx6q") || !strings.Contains(v, "per-board overrides") {
		t.Errorf("verdict: %s", v)
	}
}

// Files without board names are not a fleet unless asked; the ordinary
// side-by-side report stays as it was.
func TestFleetOnlyWhenBoardsAreNamed(t *testing.T) {
	ss := load(t, "grid", "imx6ul")
	if isFleet(ss, Options{}) {
		t.Error("unnamed boards made a fleet")
	}
	if !isFleet(ss, Options{Fleet: true}) {
		t.Error("Options.Fleet ignored")
	}
	if isFleet(ss[:1], Options{Fleet: true}) {
		t.Error("one file is not a fleet")
	}
	var b bytes.Buffer
	if err := WriteText(&b, ss, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(b.String(), "fleet:") {
		t.Error("side-by-side report turned into a fleet report")
	}
}

// Several common winners: the verdict names the pick and the points tied
// with it, and leaves the group's common winners as they were.
func TestFleetVerdictTiedPick(t *testing.T) {
	apply := func() *Sweep { return &Sweep{Verdict: rank.Verdict{Kind: rank.VerdictApply}} }
	g := &FleetGroup{Profile: "imx6q", Sweeps: []*Sweep{apply(), apply()}, Boards: []string{"a", "b"},
		Winners: []*Point{{}, {}}, Common: []string{"X=1", "X=2", "X=3"}, Pick: "X=2", PickLoss: 1.5, PickWorst: "b"}
	want := "X=2 wins on every board of the imx6q (2) (tied with X=1, X=3 on every board; it loses least against each board's own winner: at most 1.5 % on b): one value for the SoC's dtsi (imx6q), no per-board overrides"
	if got := g.Verdict(); got != want {
		t.Errorf("verdict:\n%s\nwant:\n%s", got, want)
	}
	if got := strings.Join(g.Common, ","); got != "X=1,X=2,X=3" {
		t.Errorf("common winners became %s", got)
	}
}
