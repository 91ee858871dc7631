package rank_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/units"
)

// Settings are shown by field name (register dropped), paths and module
// parameters in full, ordered by what is shown.
func TestSettingsString(t *testing.T) {
	s := map[string]string{
		"USBCMD.ITC": "1", "SBUSCFG.AHBBRST": "0", "BURSTSIZE.TXPBURST": "16",
		"/sys/block/sda/queue/max_sectors_kb": "512", "ehci_hcd.park": "3",
	}
	want := "/sys/block/sda/queue/max_sectors_kb=512 AHBBRST=0 ITC=1 TXPBURST=16 ehci_hcd.park=3"
	if got := rank.SettingsString(s); got != want {
		t.Errorf("SettingsString = %q, want %q", got, want)
	}
	if got := rank.SettingsString(nil); got != "" {
		t.Errorf("no settings: %q", got)
	}
	// Two registers with a field of the same name stay apart and in a
	// stable order.
	if got := rank.SettingsString(map[string]string{"B.X": "2", "A.X": "1"}); got != "X=1 X=2" {
		t.Errorf("same short name: %q", got)
	}
}

func rates(x float64) []float64 { return []float64{x, x * 1.001, x * 0.999, x * 1.0005, x * 0.9995} }

// The table for people: the baseline with its drift, each ranked point
// with its rate, interrupts, CPU and gain, ties marked and explained,
// and every excluded point with why (corrupt data loudest).
func TestRankingFormat(t *testing.T) {
	pts := []rank.PointStats{
		{Key: "a", Settings: map[string]string{"USBCMD.ITC": "1"}, Status: rank.StatusOK, Rates: rates(40 << 20),
			IRQsPerMiB: []float64{8000, 8000, 8000}, CPUPerMiB: []float64{2.5, 2.5, 2.5}, Ignored: []string{"BURSTSIZE.TXPBURST"}},
		{Key: "b", Settings: map[string]string{"USBCMD.ITC": "8"}, Status: rank.StatusOK, Rates: rates(40 << 20),
			IRQsPerMiB: []float64{1000, 1000, 1000}},
		{Key: "c", Settings: map[string]string{"USBCMD.ITC": "64"}, Status: rank.StatusOK, Rates: rates(20 << 20)},
		{Key: "d", Settings: map[string]string{"USBCMD.ITC": "2"}, Status: rank.StatusCorrupt, Reason: "block at 0x1200000 differs"},
		{Key: "e", Settings: map[string]string{"USBCMD.ITC": "4"}, Status: rank.StatusNotHeld, Changed: []string{"ITC: 4 -> 8", "ASP: 3 -> 0"}},
		{Key: "f", Settings: map[string]string{"USBCMD.ITC": "16"}, Status: rank.StatusFailed, Reason: "probe: read /dev/sda: EIO"},
	}
	rk := rank.Rank(pts, rates(30<<20), []float64{30 << 20, 33 << 20}, nil, rank.Policy{})
	if w := rk.Winner(); w == nil || w.Key != "b" {
		t.Fatalf("winner %+v, want b (tied with a, fewer interrupts)", w)
	}
	if f := rk.Find("c"); f == nil || f.Rank != 3 || f.Tied {
		t.Errorf("Find(c) = %+v, want rank 3, not tied", f)
	}
	if rk.Find("d") != nil || rk.Find("zz") != nil {
		t.Error("Find returned an excluded or unknown point")
	}
	var b strings.Builder
	rk.Format(&b)
	out := b.String()
	for _, want := range []string{
		"baseline (original settings): 30.00 MiB/s, median of 5 runs; measured 2 times, drift +10.0 % first to last (medians 30.00 MiB/s to 33.00 MiB/s)",
		"  1= ITC=8     40.00 MiB/s  1000 irq/MiB  +33.",
		"  2= ITC=1     40.00 MiB/s  8000 irq/MiB   2.5 ms CPU/MiB  +33.",
		"(TXPBURST ignored by the hardware here)",
		"  3  ITC=64    20.00 MiB/s  -33.",
		"  = not significantly slower than the fastest",
		"!!! CORRUPT DATA at ITC=2: block at 0x1200000 differs",
		"    not-held   ITC=4: ITC: 4 -> 8; ASP: 3 -> 0",
		"    failed     ITC=16: probe: read /dev/sda: EIO",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	rk.FormatIn(&b, units.MBps)
	// Interrupts and CPU follow the unit: per MB, 1e6/2^20 of per MiB.
	if !strings.Contains(b.String(), "41.94 MB/s") || !strings.Contains(b.String(), "  7629 irq/MB   2.4 ms CPU/MB") || strings.Contains(b.String(), "MiB") {
		t.Errorf("table in MB/s:\n%s", b.String())
	}

	// Nothing ranked and no baseline: the table says so and nothing else.
	b.Reset()
	rank.Ranking{}.Format(&b)
	if b.String() != "no point was ranked\n" {
		t.Errorf("empty ranking: %q", b.String())
	}
	if (rank.Ranking{}).Winner() != nil {
		t.Error("an empty ranking has a winner")
	}
}

// A point marked ok that has no run is excluded as failed; the drift of
// the baseline is last visit against first; without baseline runs there
// is no comparison.
func TestRankEdges(t *testing.T) {
	rk := rank.Rank([]rank.PointStats{
		{Key: "z", Status: rank.StatusOK},
		{Key: "y", Status: rank.StatusOK, Rates: []float64{5}, Unit: "fps"},
		{Key: "x", Settings: map[string]string{"USBCMD.ITC": "2"}, Status: rank.StatusEliminated, Reason: "slower than the leader", Rates: []float64{1, 2, 3}},
	}, nil, []float64{100, 90, 95}, nil, rank.Policy{})
	if len(rk.Excluded) != 2 || rk.Excluded[0].Key != "x" || rk.Excluded[1].Key != "z" ||
		rk.Excluded[1].Status != rank.StatusFailed || rk.Excluded[1].Reason != "no runs" || rk.Excluded[0].Runs != 3 {
		t.Errorf("excluded %+v", rk.Excluded)
	}
	if math.Abs(rk.Baseline.DriftPct+5) > 1e-9 || rk.Baseline.Median != 0 || rk.Baseline.Unit != "fps" {
		t.Errorf("baseline %+v", rk.Baseline)
	}
	if len(rk.Ranked) != 1 || rk.Ranked[0].VsBaseline != nil || rank.VsString(rk.Ranked[0].VsBaseline) != "" {
		t.Errorf("ranked %+v: a point without baseline runs has no comparison", rk.Ranked)
	}
	var b strings.Builder
	rk.Format(&b)
	if !strings.Contains(b.String(), "    eliminated ITC=2: slower than the leader\n") || strings.Contains(b.String(), "baseline") {
		t.Errorf("eliminated point not listed:\n%s", b.String())
	}
}

// Among tied points a measured interrupt rate beats an unknown one, and
// CPU per MiB decides between equal interrupt rates (beyond 5 %).
func TestRankTieBreakUnknownsAndCPU(t *testing.T) {
	noisy := func(x float64) []float64 { return []float64{x, x * 1.03, x * 0.97, x * 1.02, x * 0.98} }
	pts := []rank.PointStats{
		{Key: "unknown", Status: rank.StatusOK, Rates: noisy(100)},
		{Key: "busy", Status: rank.StatusOK, Rates: noisy(100.1), IRQsPerMiB: []float64{500}, CPUPerMiB: []float64{4}},
		{Key: "idle", Status: rank.StatusOK, Rates: noisy(99.9), IRQsPerMiB: []float64{505}, CPUPerMiB: []float64{2}},
		{Key: "nocpu", Status: rank.StatusOK, Rates: noisy(100.05), IRQsPerMiB: []float64{502}},
	}
	rk := rank.Rank(pts, noisy(90), nil, nil, rank.Policy{})
	var keys []string
	for _, r := range rk.Ranked {
		keys = append(keys, r.Key)
		if !r.Tied {
			t.Errorf("%s not tied", r.Key)
		}
	}
	if want := []string{"idle", "busy", "nocpu", "unknown"}; !slices.Equal(keys, want) {
		t.Errorf("order %q, want %q", keys, want)
	}
}

// Comparisons with too little data say so instead of claiming a
// confidence they do not have.
func TestComparisonWithLittleData(t *testing.T) {
	if s := rank.Compare(nil, []float64{1, 2, 3}).String(); s != "no comparison (no data)" {
		t.Errorf("no runs: %q", s)
	}
	if c := rank.Compare([]float64{1, 2, 3}, []float64{0, 0, 0}); c.Valid() {
		t.Errorf("a zero reference gave a comparison: %+v", c)
	}
	c := rank.Compare([]float64{110, 112}, []float64{100, 100, 100})
	if c.Significant || c.Lo != c.Pct || c.Hi != c.Pct || !strings.HasPrefix(c.String(), "+11.0 % (too few runs for a confidence interval: 3 needed each)") {
		t.Errorf("two runs: %+v %q", c, c.String())
	}
	if !math.IsNaN(rank.Median(nil)) {
		t.Error("median of nothing is a number")
	}
	if rank.Median([]float64{3, 1, 2}) != 2 {
		t.Error("median of three")
	}
	if p := rank.Ptr(math.NaN()); p != nil {
		t.Error("Ptr(NaN) is not nil")
	}
	if p := rank.Ptr(math.Inf(1)); p != nil {
		t.Error("Ptr(+Inf) is not nil")
	}
	if p := rank.Ptr(2.5); p == nil || *p != 2.5 {
		t.Error("Ptr(2.5)")
	}
}

// The interval holds the estimate, and the same runs give the same
// numbers (the results file and `citune dts` agree).
func TestCompareReproducible(t *testing.T) {
	xs, ref := []float64{104, 99, 107, 101, 103}, []float64{100, 98, 102, 101, 97}
	a, b := rank.Compare(xs, ref), rank.Compare(xs, ref)
	if a != b {
		t.Errorf("same runs: %+v != %+v", a, b)
	}
	if a.Lo > a.Pct || a.Hi < a.Pct {
		t.Errorf("interval %v..%v does not hold the estimate %v", a.Lo, a.Hi, a.Pct)
	}
}

func TestLogStats(t *testing.T) {
	mean, ss := rank.LogStats([]float64{math.E, math.E * math.E * math.E})
	if math.Abs(mean-2) > 1e-12 || math.Abs(ss-2) > 1e-12 {
		t.Errorf("LogStats = %v, %v; want 2, 2", mean, ss)
	}
}
