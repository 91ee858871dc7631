package tui

import (
	"fmt"
	"math"
	"sort"
)

// median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

// variance is the sample variance (n-1).
func variance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	var t float64
	for _, x := range xs {
		t += (x - m) * (x - m)
	}
	return t / float64(len(xs)-1)
}

// spread is half the range of xs relative to their median, in percent:
// the "+-" shown beside a median.
func spread(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	m := median(xs)
	if m == 0 {
		return 0
	}
	return (hi - lo) / 2 / m * 100
}

// fmtSpread renders the spread of xs, or "1 run".
func fmtSpread(xs []float64) string {
	switch len(xs) {
	case 0:
		return "--"
	case 1:
		return "1 run"
	}
	return fmt.Sprintf("+-%.1f%%", spread(xs))
}

// tQuantile975 is the two-sided 95 % quantile of Student's t for df
// degrees of freedom (table for small df, normal beyond 30).
func tQuantile975(df float64) float64 {
	table := []float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	if df < 1 {
		return math.Inf(1)
	}
	if df >= 30 {
		return 1.96 // normal approximation beyond the table
	}
	return table[int(df)] // floor: conservative
}

// Comparison is B against A: the relative difference of the means with a
// Welch 95 % confidence interval, in percent of A's mean.
type Comparison struct {
	Diff, Lo, Hi float64
	// Known is false when either side has fewer than two runs.
	Known bool
}

// compare computes B against A.
func compare(a, b []float64) Comparison {
	ma, mb := mean(a), mean(b)
	if ma == 0 {
		return Comparison{}
	}
	c := Comparison{Diff: (mb - ma) / ma * 100}
	if len(a) < 2 || len(b) < 2 {
		return c
	}
	va, vb := variance(a)/float64(len(a)), variance(b)/float64(len(b))
	se := math.Sqrt(va + vb)
	if se == 0 {
		c.Lo, c.Hi, c.Known = c.Diff, c.Diff, true
		return c
	}
	df := (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
	h := tQuantile975(df) * se / ma * 100
	c.Lo, c.Hi, c.Known = c.Diff-h, c.Diff+h, true
	return c
}

// Significant reports whether the interval excludes zero.
func (c Comparison) Significant() bool { return c.Known && (c.Lo > 0 || c.Hi < 0) }

// String renders "+4.1% (95% CI 3.2..5.0)", "no significant difference
// (...)" or "+4.1% (confidence unknown: repeat >= 2)".
func (c Comparison) String() string {
	if !c.Known {
		return fmt.Sprintf("%+.1f%% (confidence unknown: needs >= 2 runs each)", c.Diff)
	}
	ci := fmt.Sprintf("95%% CI %+.1f..%+.1f", c.Lo, c.Hi)
	if !c.Significant() {
		return fmt.Sprintf("%+.1f%%, not significant (%s)", c.Diff, ci)
	}
	return fmt.Sprintf("%+.1f%% (%s)", c.Diff, ci)
}
