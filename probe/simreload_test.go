package probe

import (
	"slices"
	"testing"
	"time"

	"github.com/citune/citune/simmodel"
)

// The sim probe's module reload times come from the model, seeded with
// the probe's seed and the reload's number, and do not disturb its runs'
// noise.
func TestSimReloadTimeSeeded(t *testing.T) {
	s, m := newSim(t, false, 0)
	draws := func(seed uint64, runs bool) ([]time.Duration, []float64) {
		p := &SimProbe{Ctl: s, Map: m, Size: 1 << 20, Xfer: DefaultSimXfer, Seed: seed}
		var ds []time.Duration
		var rates []float64
		for range 5 {
			ds = append(ds, p.ReloadTime())
			if runs {
				rates = append(rates, simRun(t, p).Rate)
			}
		}
		return ds, rates
	}
	a, ra := draws(7, true)
	b, _ := draws(7, false)
	c, _ := draws(8, false)
	if !slices.Equal(a, b) {
		t.Errorf("seed 7: %v, then %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 7 and 8 drew the same reload times %v", a)
	}
	lo, hi := simmodel.DefaultReload.Range()
	for _, d := range append(a, c...) {
		if d < lo || d > hi {
			t.Errorf("reload time %v outside %v..%v", d, lo, hi)
		}
	}
	// Runs draw the same noise with and without reloads between them.
	p := &SimProbe{Ctl: s, Map: m, Size: 1 << 20, Xfer: DefaultSimXfer, Seed: 7}
	for i := range ra {
		if r := simRun(t, p).Rate; r != ra[i] {
			t.Errorf("run %d: %v without reloads, %v with", i+1, r, ra[i])
		}
	}
	if n := (&SimProbe{}).NominalReloadTime(); n != simmodel.DefaultReload.Nominal() {
		t.Errorf("nominal %v", n)
	}
}
