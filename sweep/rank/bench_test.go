package rank_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/citune/citune/sweep/rank"
)

// BenchmarkRank ranks and decides sweeps of 30, 300 and 3000 points of 5
// runs against 40 baseline runs: the cost grows as n log n (one pooled
// noise, one comparison per point, one sort), where the bootstrap it
// replaced resampled the pooled baseline 2000 times per point and took
// about 9 s for a 304-point file.
func BenchmarkRank(b *testing.B) {
	for _, n := range []int{30, 300, 3000} {
		rng := rand.New(rand.NewPCG(1, 2))
		noisy := func(x float64, k int) []float64 {
			out := make([]float64, k)
			for i := range out {
				out[i] = x * (1 + 0.02*rng.NormFloat64())
			}
			return out
		}
		pts := make([]rank.PointStats, n)
		for i := range pts {
			pts[i] = rank.PointStats{Key: fmt.Sprint(i), Settings: map[string]string{"A": fmt.Sprint(i)}, Status: rank.StatusOK,
				Rates: noisy(100*(1+0.1*rng.Float64()), 5), IRQsPerMiB: []float64{1000}, CPUPerMiB: []float64{2}}
		}
		base := noisy(100, 40)
		orig := map[string]string{"A": "x"}
		b.Run(fmt.Sprintf("points=%d", n), func(b *testing.B) {
			for b.Loop() {
				rank.Rank(pts, base, nil, orig, rank.Policy{MinGainPct: 1})
			}
		})
	}
}
