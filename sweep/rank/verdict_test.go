package rank_test

import (
	"math"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
)

// runs are n rates around x with a fixed ±1 % pattern (no randomness).
func runs(x float64, n int) []float64 {
	pat := []float64{1, 1.01, 0.99, 1.005, 0.995, 1.002, 0.998}
	out := make([]float64, n)
	for i := range out {
		out[i] = x * pat[i%len(pat)]
	}
	return out
}

func pt(key string, settings map[string]string, x float64, n int) rank.PointStats {
	return rank.PointStats{Key: key, Settings: settings, Status: rank.StatusOK, Rates: runs(x, n)}
}

var orig = map[string]string{"A": "0", "S": "0", "T": "16"}

func TestVerdictKeepsWhatNothingBeats(t *testing.T) {
	pts := []rank.PointStats{
		pt("t8", map[string]string{"A": "0", "S": "0", "T": "8"}, 100.3, 5),
		pt("t16", map[string]string{"A": "0", "S": "0", "T": "16"}, 100, 5),
		pt("t32", map[string]string{"A": "0", "S": "0", "T": "32"}, 99.8, 5),
	}
	rk := rank.Rank(pts, runs(100, 10), nil, orig, rank.Policy{MinGainPct: 1})
	v := rk.Verdict
	if v.Kind != rank.VerdictKeep || len(v.Changes) != 0 {
		t.Fatalf("verdict %+v, want keep", v)
	}
	if !strings.HasPrefix(v.Headline(), "verdict: keep the original settings") {
		t.Errorf("%q", v.Headline())
	}
	if r := rk.Find("t16"); r == nil || !r.Original {
		t.Errorf("the original settings as a point are not marked: %+v", r)
	}
}

// A gain below the threshold is no change, however significant.
func TestVerdictThreshold(t *testing.T) {
	pts := []rank.PointStats{pt("a", map[string]string{"A": "3", "S": "0", "T": "16"}, 100.6, 40)}
	rk := rank.Rank(pts, runs(100, 40), nil, orig, rank.Policy{MinGainPct: 1})
	if c := rk.Ranked[0].VsBaseline; !c.Significant || c.Change != rank.ChangeNone || !strings.Contains(c.String(), "under the 1.0 % threshold") {
		t.Fatalf("%+v %q", c, c.String())
	}
	if rk.Verdict.Kind != rank.VerdictKeep {
		t.Errorf("verdict %+v, want keep", rk.Verdict)
	}
	if rk = rank.Rank(pts, runs(100, 40), nil, orig, rank.Policy{MinGainPct: 0.5}); rk.Verdict.Kind != rank.VerdictApply {
		t.Errorf("with --min-gain 0.5: %+v, want apply", rk.Verdict)
	}
}

// The fastest point needs a setting with no permanent form: it is best
// on the bench, and the recommendation is the best point that can be made
// permanent, measured as a whole (not the permanent part of the fastest).
func TestVerdictOnlyWhatCanBeMadePermanent(t *testing.T) {
	pts := []rank.PointStats{
		pt("a0s1", map[string]string{"A": "0", "S": "1", "T": "8"}, 120, 5),
		pt("a3s0", map[string]string{"A": "3", "S": "0", "T": "16"}, 110, 5),
		pt("a0s0t8", map[string]string{"A": "0", "S": "0", "T": "8"}, 89, 5),
	}
	pol := rank.Policy{MinGainPct: 1, NotPermanent: func(ch map[string]string) []string {
		if _, ok := ch["S"]; ok {
			return []string{"S: no device-tree property or kernel parameter"}
		}
		return nil
	}}
	v := rank.Rank(pts, runs(100, 10), nil, orig, pol).Verdict
	if v.Kind != rank.VerdictApply || v.Point != "a3s0" || len(v.Changes) != 1 || v.Changes["A"] != "3" {
		t.Fatalf("verdict %+v, want apply A=3 alone", v)
	}
	if v.Bench == nil || v.Bench.Point != "a0s1" || !strings.Contains(strings.Join(v.Details(), "\n"), "best on the bench, cannot be made permanent: A=0 S=1 T=8") {
		t.Errorf("bench %+v; details %q", v.Bench, v.Details())
	}
}

// Among points tied with the fastest, the one that changes less wins: an
// axis that does not matter stays at its original value, and says so.
func TestVerdictMinimalChanges(t *testing.T) {
	pts := []rank.PointStats{
		pt("a3t8", map[string]string{"A": "3", "S": "0", "T": "8"}, 110.2, 5),
		pt("a3t16", map[string]string{"A": "3", "S": "0", "T": "16"}, 110, 5),
	}
	v := rank.Rank(pts, runs(100, 10), nil, orig, rank.Policy{MinGainPct: 1}).Verdict
	if v.Kind != rank.VerdictApply || v.Point != "a3t16" || len(v.Changes) != 1 {
		t.Fatalf("verdict %+v, want a3t16", v)
	}
	if len(v.NoEffect) != 1 || v.NoEffect[0] != "T" {
		t.Errorf("no effect %v, want T", v.NoEffect)
	}
}

// Too few runs for the best point: no decision, and the sweep's second
// look is asked for it; a promising point that is not yet significant
// over the family asks for it too.
func TestVerdictNoDecisionAndConfirm(t *testing.T) {
	pts := []rank.PointStats{pt("a", map[string]string{"A": "3", "S": "0", "T": "16"}, 105, 2)}
	v := rank.Rank(pts, runs(100, 10), nil, orig, rank.Policy{MinGainPct: 1}).Verdict
	if v.Kind != rank.VerdictNone || v.Confirm != "a" || v.Settle == "" {
		t.Fatalf("verdict %+v, want no decision confirming a", v)
	}
	// Twenty points, one 2.5 % ahead on 3 runs: significant alone, not
	// among twenty.
	var many []rank.PointStats
	for i := range 19 {
		many = append(many, pt(string(rune('b'+i)), map[string]string{"A": "3", "S": "0", "T": string(rune('b' + i))}, 100, 3))
	}
	many = append(many, rank.PointStats{Key: "lead", Settings: map[string]string{"A": "7", "S": "0", "T": "16"}, Status: rank.StatusOK,
		Rates: []float64{103.4, 101.2, 102.9}})
	rk := rank.Rank(many, []float64{100, 101.1, 98.9, 100.4}, nil, orig, rank.Policy{MinGainPct: 1})
	if rk.Verdict.Kind != rank.VerdictKeep || rk.Verdict.Confirm != "lead" {
		t.Fatalf("verdict %+v (lead %+v), want keep, confirming lead", rk.Verdict, rk.Find("lead").VsBaseline)
	}
}

// Intervals widen with the number of points compared (they hold
// together): the same runs, more points, a wider interval.
func TestFamilyWidensIntervals(t *testing.T) {
	one := rank.Rank([]rank.PointStats{pt("a", map[string]string{"A": "3"}, 103, 5)}, runs(100, 10), nil, nil, rank.Policy{})
	var pts []rank.PointStats
	for i := range 10 {
		pts = append(pts, pt(string(rune('a'+i)), map[string]string{"A": string(rune('a' + i))}, 103, 5))
	}
	ten := rank.Rank(pts, runs(100, 10), nil, nil, rank.Policy{})
	w1 := one.Ranked[0].VsBaseline.Hi - one.Ranked[0].VsBaseline.Lo
	w10 := ten.Find("a").VsBaseline.Hi - ten.Find("a").VsBaseline.Lo
	if !(w10 > w1) || math.Abs(one.Ranked[0].VsBaseline.Pct-ten.Find("a").VsBaseline.Pct) > 1e-9 {
		t.Errorf("one point: %+v; ten: %+v", one.Ranked[0].VsBaseline, ten.Find("a").VsBaseline)
	}
	if ten.Family != 10 || ten.Verdict.Family != 10 {
		t.Errorf("family %d / %d, want 10", ten.Family, ten.Verdict.Family)
	}
}

// After the second look only its point may be recommended: another that
// now clears the bar had its look at the first, which found nothing.
func TestVerdictAfterTheSecondLook(t *testing.T) {
	pts := []rank.PointStats{
		pt("looked", map[string]string{"A": "3", "S": "0", "T": "16"}, 103, 15),
		pt("other", map[string]string{"A": "7", "S": "0", "T": "16"}, 110, 5),
	}
	if v := rank.Rank(pts, runs(100, 20), nil, orig, rank.Policy{MinGainPct: 1}).Verdict; v.Point != "other" {
		t.Fatalf("without a second look the faster point wins: %+v", v)
	}
	v := rank.Rank(pts, runs(100, 20), nil, orig, rank.Policy{MinGainPct: 1, SecondLook: "looked"}).Verdict
	if v.Kind != rank.VerdictApply || v.Point != "looked" {
		t.Errorf("after the second look on %q: %+v, want it alone", "looked", v)
	}
}

// The shift a visit's runs share widens the intervals: the same runs in
// visits whose means differ beyond their runs' noise give a wider
// interval than in one steady visit.
func TestVisitNoiseWidens(t *testing.T) {
	steady := [][]float64{runs(100, 5), runs(100, 5), runs(100, 5)}
	shifted := [][]float64{runs(97, 5), runs(100, 5), runs(103, 5)}
	p := []rank.PointStats{pt("a", map[string]string{"A": "3"}, 104, 5)}
	a := rank.RankVisits(p, steady, nil, rank.Policy{}).Ranked[0].VsBaseline
	b := rank.RankVisits(p, shifted, nil, rank.Policy{}).Ranked[0].VsBaseline
	if !(b.Hi-b.Lo > 2*(a.Hi-a.Lo)) {
		t.Errorf("steady visits %s, shifted %s: want the shift to widen the interval", a, b)
	}
	if !a.Significant || b.Significant {
		t.Errorf("+4 %% against steady visits %v, against visits 3 %% apart %v: want significant, then not", a.Significant, b.Significant)
	}
}

// Two baseline visits give the between-visit variance one degree of
// freedom: a shift estimated on it (t and Satterthwaite on ~1 df) made
// intervals like "+4.5 %, 95 % CI -20.8 to 38.0". Below three visits the
// shift does not enter; the baseline's own spread (Welch, where it is
// more than twice the pooled noise) carries what the two visits differ.
func TestTwoVisitsNoShiftTerm(t *testing.T) {
	two := [][]float64{runs(98, 5), runs(102, 5)}
	p := []rank.PointStats{pt("a", map[string]string{"A": "3"}, 104.5, 5), pt("b", map[string]string{"A": "1"}, 100, 5), pt("c", map[string]string{"A": "2"}, 101, 5)}
	rk := rank.RankVisits(p, two, nil, rank.Policy{})
	if rk.Visits.Tau2 != 0 {
		t.Errorf("two visits: between-visit variance %g entered, want none below three visits", rk.Visits.Tau2)
	}
	c := rk.Find("a").VsBaseline
	if w := c.Hi - c.Lo; w > 15 {
		t.Errorf("two visits 4 %% apart: %s, an interval %.1f points wide", c, w)
	}
	three := [][]float64{runs(98, 5), runs(100, 5), runs(102, 5)}
	if rk := rank.RankVisits(p, three, nil, rank.Policy{}); rk.Visits.Tau2 <= 0 {
		t.Errorf("three visits 2 %% apart each: no between-visit variance (%+v)", rk.Visits)
	}
}

// A negative threshold counts as none: the rule shows 0.
func TestNegativeMinGain(t *testing.T) {
	pts := []rank.PointStats{pt("t8", map[string]string{"A": "0", "S": "0", "T": "8"}, 103, 10)}
	rk := rank.Rank(pts, runs(100, 10), nil, orig, rank.Policy{MinGainPct: -5})
	if rk.MinGainPct != 0 || rk.Verdict.MinGainPct != 0 || rk.Verdict.Kind != rank.VerdictApply {
		t.Errorf("min gain %v, verdict %+v", rk.MinGainPct, rk.Verdict)
	}
}
