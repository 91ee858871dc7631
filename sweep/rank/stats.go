package rank

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// Median of xs (NaN when empty).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medianInPlace is Median for a scratch slice: it sorts xs.
func medianInPlace(xs []float64) float64 {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// quantile of sorted xs by linear interpolation, q in [0,1].
func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	if lo == hi {
		return sorted[lo]
	}
	return sorted[lo] + (sorted[hi]-sorted[lo])*(pos-float64(lo))
}

// Comparison is a point's median rate against a reference (the baseline,
// or the leader): the relative difference in percent and its bootstrap
// confidence interval.
type Comparison struct {
	Pct float64 `json:"diff_pct"`
	Lo  float64 `json:"ci_lo_pct"`
	Hi  float64 `json:"ci_hi_pct"`
	// Level is the confidence level (0.95).
	Level float64 `json:"level"`
	// Significant is set when the interval excludes 0.
	Significant bool `json:"significant"`
	N           int  `json:"n"`
	RefN        int  `json:"ref_n"`
}

// Valid reports whether there was enough data to compare.
func (c Comparison) Valid() bool { return c.N > 0 && c.RefN > 0 && !math.IsNaN(c.Pct) }

// String renders "+4.1 % (95 % CI 3.2-5.0)" or "no significant
// difference (+0.3 %, 95 % CI -1.2 to 1.9)".
func (c Comparison) String() string {
	if !c.Valid() {
		return "no comparison (no data)"
	}
	lvl := int(math.Round(c.Level * 100))
	ci := fmt.Sprintf("%d %% CI %s", lvl, ciRange(c.Lo, c.Hi))
	if c.N < MinRunsForCI || c.RefN < MinRunsForCI {
		return fmt.Sprintf("%+.1f %% (too few runs for a confidence interval: %d needed each)", c.Pct, MinRunsForCI)
	}
	if !c.Significant {
		return fmt.Sprintf("no significant difference (%+.1f %%, %s)", c.Pct, ci)
	}
	return fmt.Sprintf("%+.1f %% (%s)", c.Pct, ci)
}

func ciRange(lo, hi float64) string {
	if lo >= 0 && hi >= 0 {
		return fmt.Sprintf("%.1f-%.1f", lo, hi)
	}
	return fmt.Sprintf("%.1f to %.1f", lo, hi)
}

// MinRunsForCI is the fewest runs per side for which a confidence
// interval is given: a bootstrap of the median of two runs can only
// resample those two values and claims far more confidence than it has.
const MinRunsForCI = 3

// bootstrapRounds is the number of resamples per comparison.
const bootstrapRounds = 2000

// Compare estimates median(xs)/median(ref) - 1 in percent with a
// percentile bootstrap interval at level (0.95), resampling both sides.
// seed makes the interval reproducible (the results file and the dts
// command compute the same numbers).
func Compare(xs, ref []float64, level float64, seed string) Comparison {
	c := Comparison{Level: level, N: len(xs), RefN: len(ref), Pct: math.NaN()}
	if len(xs) == 0 || len(ref) == 0 {
		return c
	}
	mr := Median(ref)
	if mr == 0 {
		return c
	}
	c.Pct = (Median(xs)/mr - 1) * 100
	if len(xs) < MinRunsForCI || len(ref) < MinRunsForCI {
		c.Lo, c.Hi = c.Pct, c.Pct
		return c
	}
	h := fnv.New64a()
	h.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
	diffs := make([]float64, bootstrapRounds)
	a := make([]float64, len(xs))
	b := make([]float64, len(ref))
	for i := range diffs {
		for j := range a {
			a[j] = xs[rng.IntN(len(xs))]
		}
		for j := range b {
			b[j] = ref[rng.IntN(len(ref))]
		}
		mb := medianInPlace(b)
		if mb == 0 {
			diffs[i] = 0
			continue
		}
		diffs[i] = (medianInPlace(a)/mb - 1) * 100
	}
	slices.Sort(diffs)
	alpha := (1 - level) / 2
	c.Lo, c.Hi = quantile(diffs, alpha), quantile(diffs, 1-alpha)
	c.Significant = c.Lo > 0 || c.Hi < 0
	return c
}

// LogStats returns the mean and the sum of squared deviations of ln(xs).
func LogStats(xs []float64) (mean, ss float64) {
	for _, x := range xs {
		mean += math.Log(x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		d := math.Log(x) - mean
		ss += d * d
	}
	return mean, ss
}

// NormalQuantile is the inverse of the standard normal CDF (Acklam's
// rational approximation, relative error below 1.2e-9).
func NormalQuantile(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	if p >= 1 {
		return math.Inf(1)
	}
	a := [...]float64{-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00}
	b := [...]float64{-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01}
	c := [...]float64{-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00}
	d := [...]float64{7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00}
	const lo, hi = 0.02425, 1 - 0.02425
	switch {
	case p < lo:
		q := math.Sqrt(-2 * math.Log(p))
		return (((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	case p > hi:
		q := math.Sqrt(-2 * math.Log(1-p))
		return -(((((c[0]*q+c[1])*q+c[2])*q+c[3])*q+c[4])*q + c[5]) / ((((d[0]*q+d[1])*q+d[2])*q+d[3])*q + 1)
	}
	q := p - 0.5
	r := q * q
	return (((((a[0]*r+a[1])*r+a[2])*r+a[3])*r+a[4])*r + a[5]) * q / (((((b[0]*r+b[1])*r+b[2])*r+b[3])*r+b[4])*r + 1)
}

// TQuantile is the p-quantile of Student's t distribution with dof
// degrees of freedom: the normal quantile corrected by the Cornish-Fisher
// expansion in 1/dof (Abramowitz and Stegun 26.7.5, four terms; within
// 1 % of the exact value for dof of 4 or more up to p = 0.9995, a
// little below it beyond). Tests with a standard deviation estimated
// from few runs need it: the normal quantile would treat the estimate
// as exact. dof < 1 is treated as 1.
func TQuantile(p float64, dof int) float64 {
	z := NormalQuantile(p)
	if math.IsInf(z, 0) {
		return z
	}
	v := float64(max(dof, 1))
	z2 := z * z
	g1 := (z2 + 1) * z / 4
	g2 := ((5*z2+16)*z2 + 3) * z / 96
	g3 := (((3*z2+19)*z2+17)*z2 - 15) * z / 384
	g4 := ((((79*z2+776)*z2+1482)*z2-1920)*z2 - 945) * z / 92160
	return z + g1/v + g2/(v*v) + g3/(v*v*v) + g4/(v*v*v*v)
}
