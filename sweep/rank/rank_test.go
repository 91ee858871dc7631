package rank_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
)

func TestCompare(t *testing.T) {
	base := []float64{100, 101, 99, 100, 100.5}
	up := []float64{104, 105, 104.5, 103.8, 104.2}
	c := rank.Compare(up, base)
	if !c.Significant || c.Pct < 3.5 || c.Pct > 4.5 || c.Lo <= 0 {
		t.Errorf("%+v", c)
	}
	if s := c.String(); !strings.HasPrefix(s, "+4.") || !strings.Contains(s, "(95 % CI ") {
		t.Errorf("%q", s)
	}
	same := rank.Compare([]float64{100.2, 99.8, 100.9, 99.1, 100}, base)
	if same.Significant || !strings.HasPrefix(same.String(), "no significant difference") {
		t.Errorf("%+v %q", same, same.String())
	}
	down := rank.Compare([]float64{90, 91, 89}, base)
	if !down.Significant || !strings.Contains(down.String(), " to ") {
		t.Errorf("%q", down.String())
	}
	if rank.Median([]float64{3, 1, 2, 10}) != 2.5 {
		t.Error("median")
	}
}

func TestRankTieBreakByInterrupts(t *testing.T) {
	pts := []rank.PointStats{
		{Key: "a", Status: rank.StatusOK, Rates: []float64{100, 101, 99}, IRQsPerMiB: []float64{8000, 8000, 8000}},
		{Key: "b", Status: rank.StatusOK, Rates: []float64{100.5, 99.5, 100}, IRQsPerMiB: []float64{1000, 1000, 1000}},
		{Key: "c", Status: rank.StatusOK, Rates: []float64{90, 91, 89}, IRQsPerMiB: []float64{100, 100, 100}},
		{Key: "d", Status: rank.StatusNotHeld, Rates: []float64{200}, Changed: []string{"ITC: 8 -> 1"}},
	}
	rk := rank.Rank(pts, []float64{95, 96, 94}, nil, nil, rank.Policy{})
	var keys []string
	for _, r := range rk.Ranked {
		keys = append(keys, r.Key)
	}
	if !slices.Equal(keys, []string{"b", "a", "c"}) || !rk.Ranked[0].Tied || rk.Ranked[2].Tied {
		t.Errorf("ranked %q %+v", keys, rk.Ranked)
	}
	if len(rk.Excluded) != 1 || rk.Excluded[0].Key != "d" {
		t.Errorf("excluded %+v", rk.Excluded)
	}
}

// Among tied points, the one that changes fewer settings from the
// originals wins: a setting that does not help is left alone.
func TestRankTiePrefersOriginalSettings(t *testing.T) {
	rates := func(x float64) []float64 { return []float64{x, x + 0.1, x - 0.1, x + 0.05, x - 0.05} }
	pts := []rank.PointStats{
		{Key: "a", Settings: map[string]string{"AHBBRST": "7", "ITC": "1"}, Status: rank.StatusOK, Rates: rates(45.1)},
		{Key: "b", Settings: map[string]string{"AHBBRST": "2", "ITC": "1"}, Status: rank.StatusOK, Rates: rates(45.0)},
	}
	rk := rank.Rank(pts, rates(30), nil, map[string]string{"AHBBRST": "2", "ITC": "8"}, rank.Policy{})
	if !rk.Ranked[0].Tied || rk.Ranked[0].Key != "b" {
		t.Fatalf("ranked %+v, want the tied point that keeps AHBBRST first", rk.Ranked)
	}
	if rk = rank.Rank(pts, rates(30), nil, nil, rank.Policy{}); rk.Ranked[0].Key != "a" {
		t.Errorf("without originals the higher median should lead: %+v", rk.Ranked)
	}
}

// When every point swept is slower than the original settings the
// verdict keeps them, its best point only the best of the slower ones;
// a point as fast as them is no reason to change either; without a
// baseline or a ranked point there is no decision.
func TestVerdictKeepsTheOriginalSettings(t *testing.T) {
	base := []float64{100, 101, 99, 100.5, 99.5}
	slow := func(k string, x float64) rank.PointStats {
		return rank.PointStats{Key: k, Settings: map[string]string{"A": k}, Status: rank.StatusOK, Rates: []float64{x, x + 0.5, x - 0.5, x + 0.2, x - 0.2}}
	}
	rk := rank.Rank([]rank.PointStats{slow("a", 80), slow("b", 90)}, base, nil, nil, rank.Policy{})
	if v := rk.Verdict; v.Kind != rank.VerdictKeep || v.Point != "b" || rk.Winner().Key != "b" {
		t.Errorf("all slower: verdict %+v, first %s", v, rk.Winner().Key)
	}
	if v := rank.Rank([]rank.PointStats{slow("a", 80), slow("b", 100)}, base, nil, nil, rank.Policy{}).Verdict; v.Kind != rank.VerdictKeep {
		t.Errorf("a point as fast as the original settings: %+v, want keep", v)
	}
	if v := rank.Rank([]rank.PointStats{slow("a", 110)}, base, nil, nil, rank.Policy{}).Verdict; v.Kind != rank.VerdictApply || v.Point != "a" {
		t.Errorf("a faster point: %+v, want apply", v)
	}
	if v := rank.Rank([]rank.PointStats{slow("a", 80)}, nil, nil, nil, rank.Policy{}).Verdict; v.Kind != rank.VerdictNone {
		t.Errorf("no baseline to compare with: %+v, want no decision", v)
	}
	if v := rank.Rank(nil, base, nil, nil, rank.Policy{}).Verdict; v.Kind != rank.VerdictNone {
		t.Errorf("nothing ranked: %+v, want no decision", v)
	}
}

// A point is possibly the best where its runs are within the multiple-
// comparison bound of the fastest other; one far below it is not.
func TestPossiblyBest(t *testing.T) {
	var pts []rank.PointStats
	for i := range 30 {
		pts = append(pts, rank.PointStats{Key: fmt.Sprint("p", i), Status: rank.StatusOK, Rates: spread(100, 0.02, 5, uint64(i))})
	}
	pts = append(pts, rank.PointStats{Key: "slow", Status: rank.StatusOK, Rates: spread(90, 0.02, 5, 99)})
	rk := rank.Rank(pts, spread(100, 0.02, 5, 100), nil, nil, rank.Policy{})
	for i := range 30 {
		if k := fmt.Sprint("p", i); !rk.PossiblyBest(k) {
			t.Errorf("%s, the same rate as the fastest in truth: not possibly the best", k)
		}
	}
	if rk.PossiblyBest("slow") {
		t.Error("a point 10 % below the others at 2 % noise is possibly the best")
	}
}

// spread is n rates around x, log-normal of spread sd, drawn from seed.
func spread(x, sd float64, n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	out := make([]float64, n)
	for i := range out {
		out[i] = x * math.Exp(sd*rng.NormFloat64())
	}
	return out
}

// The verdict's tie line gives its interrupt figures per the --units
// amount (per MB with MB/s), while Tie, for --json, stays per MiB.
func TestVerdictTieFollowsUnits(t *testing.T) {
	pts := []rank.PointStats{
		{Key: "ITC=1", Settings: map[string]string{"ITC": "1"}, Status: rank.StatusOK, Rates: []float64{110.8, 111, 109.6, 110.6, 110.2}, IRQsPerMiB: []float64{8000, 8000, 8000, 8000, 8000}},
		{Key: "ITC=8", Settings: map[string]string{"ITC": "8"}, Status: rank.StatusOK, Rates: []float64{110.5, 109.5, 110, 110.2, 109.8}, IRQsPerMiB: []float64{1000, 1000, 1000, 1000, 1000}},
	}
	rk := rank.Rank(pts, []float64{95, 96, 94, 95.5, 94.5}, nil, map[string]string{"ITC": "2"}, rank.Policy{})
	v := rk.Verdict
	if !strings.Contains(v.Tie, "fewer interrupts per MiB (1000 against 8000)") {
		t.Fatalf("tie %q (verdict %+v)", v.Tie, v)
	}
	mb := strings.Join(v.DetailsIn("MB/s"), "\n")
	// 1000 per MiB is 953.67 per MB; 8000 is 7629.39.
	if !strings.Contains(mb, "fewer interrupts per MB (954 against 7629)") {
		t.Errorf("MB/s details:\n%s", mb)
	}
	if !slices.Equal(v.Details(), v.DetailsIn("MiB/s")) {
		t.Errorf("Details %q differ from DetailsIn(MiB/s) %q", v.Details(), v.DetailsIn("MiB/s"))
	}
}

// The fastest of the tied points without interrupt (or CPU) figures and
// the recommendation with them: the tie line says so instead of reading
// the figure the fastest does not have (it used to dereference nil).
func TestVerdictTieAgainstMissingFigures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		irq, cpu []float64
		want     string
	}{
		{"irq", []float64{1000, 1000, 1000, 1000, 1000}, nil, "for its interrupts counted (the fastest's were not)"},
		{"cpu", nil, []float64{2, 2, 2, 2, 2}, "for its CPU time measured (the fastest's was not)"},
	} {
		pts := []rank.PointStats{
			{Key: "ITC=1", Settings: map[string]string{"ITC": "1"}, Status: rank.StatusOK, Rates: []float64{110.8, 111, 109.6, 110.6, 110.2}},
			{Key: "ITC=8", Settings: map[string]string{"ITC": "8"}, Status: rank.StatusOK, Rates: []float64{110.5, 109.5, 110, 110.2, 109.8}, IRQsPerMiB: tc.irq, CPUPerMiB: tc.cpu},
		}
		v := rank.Rank(pts, []float64{95, 96, 94, 95.5, 94.5}, nil, map[string]string{"ITC": "2"}, rank.Policy{}).Verdict
		if v.Point != "ITC=8" || !strings.Contains(v.Tie, tc.want) {
			t.Errorf("%s: point %q, tie %q; want ITC=8 and %q", tc.name, v.Point, v.Tie, tc.want)
		}
	}
}
