package simmodel

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestReloadTime(t *testing.T) {
	r := DefaultReload
	// The documented figures (README.md): about 3.3 s, 2.6 s to 4.4 s,
	// fitted to the emulated board's 2.6–3.7 s.
	if n := r.Nominal(); n != 3300*time.Millisecond {
		t.Errorf("nominal %v, want 3.3s", n)
	}
	lo, hi := r.Range()
	if lo < 2550*time.Millisecond || lo > 2650*time.Millisecond || hi < 3700*time.Millisecond || hi > 4400*time.Millisecond {
		t.Errorf("range %v..%v, want about 2.6s..4.4s (covering the measured 2.6s..3.7s)", lo, hi)
	}
	draw := func(seed uint64) []time.Duration {
		rng := rand.New(rand.NewPCG(seed, 7))
		var ds []time.Duration
		for range 2000 {
			ds = append(ds, r.Time(rng))
		}
		return ds
	}
	a, b, c := draw(1), draw(1), draw(2)
	var sum time.Duration
	differ, clipped := false, 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("draw %d: %v then %v with the same seed", i, a[i], b[i])
		}
		if a[i] != c[i] {
			differ = true
		}
		if a[i] < lo || a[i] > hi {
			t.Fatalf("draw %d: %v outside %v..%v", i, a[i], lo, hi)
		}
		if a[i] == lo || a[i] == hi {
			clipped++
		}
		sum += a[i]
	}
	if !differ {
		t.Error("seeds 1 and 2 drew the same reload times")
	}
	// 2.5 spreads either side: about 1 draw in 80 is clipped.
	if clipped > len(a)/20 {
		t.Errorf("%d of %d draws clipped", clipped, len(a))
	}
	mean := sum / time.Duration(len(a))
	if d := mean - r.Nominal(); d < -r.Nominal()/50 || d > r.Nominal()/25 {
		t.Errorf("mean of the draws %v, nominal %v", mean, r.Nominal())
	}
	if got := r.Time(nil); got != r.Nominal() {
		t.Errorf("without a generator: %v, want the nominal %v", got, r.Nominal())
	}
	still := r
	still.Spread = 0
	if got := still.Time(rand.New(rand.NewPCG(1, 1))); got != r.Nominal() {
		t.Errorf("no spread: %v", got)
	}
}
