package rank

import (
	"fmt"
	"math"
	"sync"
)

// tQuantiles memoises TQuantileF: a ranking asks for the same quantile
// (one family, the pooled degrees of freedom) once per point.
var tQuantiles sync.Map

func tQuantileMemo(p, dof float64) float64 {
	type key struct{ p, dof float64 }
	k := key{p, dof}
	if v, ok := tQuantiles.Load(k); ok {
		return v.(float64)
	}
	q := TQuantileF(p, dof)
	tQuantiles.Store(k, q)
	return q
}

// How a point is compared with the original settings.
//
// Decision: the estimate is the ratio of geometric means, exp(mean ln x
// - mean ln ref) - 1, and its interval Student's t on the difference of
// the mean log rates. Run-to-run noise of a throughput is multiplicative
// (the simulator draws it log-normal; on a board it is scheduling and bus
// contention scaling a rate), so logs make it one size across points, and
// the mean of the logs uses every run where a median of five throws most
// of them away (its efficiency is about 64 %) and a percentile bootstrap
// of five runs claims more confidence than it has. The noise is pooled
// over the baseline and every point (Noise: the race pools the same
// way), which gives the t many degrees of freedom; a side whose own
// spread is more than twice the pooled one (an unstable setting, where
// the pooled spread would flatter it) gets Welch's interval of its own
// spread instead.

// Noise is the run-to-run spread of ln(rate) pooled within groups, with
// its degrees of freedom (0: unknown).
type Noise struct {
	SD  float64 `json:"log_sd"`
	DoF int     `json:"dof"`
}

// PoolNoise pools the spread of ln(rate) within each group of at least
// two positive rates.
func PoolNoise(groups ...[]float64) Noise {
	var ss float64
	dof := 0
	for _, xs := range groups {
		if len(xs) < 2 || !positive(xs) {
			continue
		}
		_, d := LogStats(xs)
		ss += d
		dof += len(xs) - 1
	}
	if dof == 0 {
		return Noise{}
	}
	return Noise{SD: math.Sqrt(ss / float64(dof)), DoF: dof}
}

func positive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Comparison is a point's rate against a reference (the original
// settings, or another point): the relative difference of the geometric
// mean rates in percent, its confidence interval, and what it amounts to.
type Comparison struct {
	Pct float64 `json:"diff_pct"`
	Lo  float64 `json:"ci_lo_pct"`
	Hi  float64 `json:"ci_hi_pct"`
	// Level is the confidence level (0.95). With Family > 1 the
	// intervals of the Family points compared with one reference hold
	// together at Level (Bonferroni).
	Level  float64 `json:"level"`
	Family int     `json:"family,omitempty"`
	// Significant is set when the interval excludes 0.
	Significant bool `json:"significant"`
	// MinGainPct is the practical threshold: a difference smaller than it
	// is no change, significant or not.
	MinGainPct float64 `json:"min_gain_pct,omitempty"`
	// Change is what the comparison amounts to: ChangeFaster,
	// ChangeSlower, ChangeNone, or ChangeUnknown (too few runs).
	Change string `json:"change"`
	N      int    `json:"n"`
	RefN   int    `json:"ref_n"`
}

// What a comparison amounts to.
const (
	ChangeFaster  = "faster"
	ChangeSlower  = "slower"
	ChangeNone    = "no change"
	ChangeUnknown = "unknown"
)

// Valid reports whether there was enough data to compare.
func (c Comparison) Valid() bool {
	return c.N > 0 && c.RefN > 0 && !math.IsNaN(c.Pct) && !math.IsInf(c.Pct, 0)
}

// HasCI reports whether the comparison has a confidence interval.
func (c Comparison) HasCI() bool { return c.Valid() && c.N >= MinRunsForCI && c.RefN >= MinRunsForCI }

// String renders "+4.1 % (95 % CI 3.2-5.0)", "no significant difference
// (+0.3 %, 95 % CI -1.2 to 1.9)" or "no change: +0.6 % is under the
// 1.0 % threshold (95 % CI 0.2-1.0)".
func (c Comparison) String() string {
	if !c.Valid() {
		return "no comparison (no data)"
	}
	if !c.HasCI() {
		return fmt.Sprintf("%+.1f %% (too few runs for a confidence interval: %d needed each)", c.Pct, MinRunsForCI)
	}
	ci := fmt.Sprintf("%d %% CI %s", int(math.Round(c.Level*100)), ciRange(c.Lo, c.Hi))
	switch {
	case !c.Significant:
		return fmt.Sprintf("no significant difference (%+.1f %%, %s)", c.Pct, ci)
	case c.Change == ChangeNone:
		return fmt.Sprintf("no change: %+.1f %% is under the %.1f %% threshold (%s)", c.Pct, c.MinGainPct, ci)
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
// interval is given.
const MinRunsForCI = 3

// Compare is xs against ref at 95 %, one comparison on its own (the
// TUI's probe against probe): Welch's interval of the two sides' own
// spreads.
func Compare(xs, ref []float64) Comparison {
	return compare(xs, ref, Noise{}, 1, 0)
}

// compare is xs against ref with the intervals of family comparisons
// holding together at Confidence: each is a two-sided interval at
// 1 - (1-Confidence)/family, so that each one-sided error (calling a
// point faster that is not) is at most (1-Confidence)/(2 family), the
// share of one of the two looks a sweep may take (see Policy).
func compare(xs, ref []float64, nz Noise, family int, minGain float64) Comparison {
	c := Comparison{Level: Confidence, Family: family, MinGainPct: minGain, N: len(xs), RefN: len(ref), Change: ChangeUnknown}
	if len(xs) == 0 || len(ref) == 0 || !positive(xs) || !positive(ref) {
		// Nothing usable (a rate that is not positive has no log): no
		// comparison, and nothing a JSON encoder refuses.
		c.N = 0
		return c
	}
	mx, ssx := LogStats(xs)
	mr, ssr := LogStats(ref)
	d := mx - mr
	c.Pct = math.Expm1(d) * 100
	if !c.HasCI() {
		c.Lo, c.Hi = c.Pct, c.Pct
		return c
	}
	nx, nr := float64(len(xs)), float64(len(ref))
	vx, vr := ssx/(nx-1), ssr/(nr-1)
	var se, dof float64
	quantile := TQuantileF
	if nz.DoF >= 2 && vx <= 4*nz.SD*nz.SD && vr <= 4*nz.SD*nz.SD {
		se, dof = nz.SD*math.Sqrt(1/nx+1/nr), float64(nz.DoF)
		quantile = tQuantileMemo // whole degrees of freedom: few keys
	} else {
		// Welch-Satterthwaite.
		a, b := vx/nx, vr/nr
		se = math.Sqrt(a + b)
		dof = (a + b) * (a + b) / (a*a/(nx-1) + b*b/(nr-1))
	}
	if se == 0 || math.IsNaN(dof) {
		// Identical runs on both sides: the difference is exact.
		c.Lo, c.Hi = c.Pct, c.Pct
		c.Significant = d != 0
	} else {
		t := quantile(1-(1-Confidence)/2/float64(max(family, 1)), dof)
		c.Lo, c.Hi = math.Expm1(d-t*se)*100, math.Expm1(d+t*se)*100
		c.Significant = c.Lo > 0 || c.Hi < 0
	}
	switch {
	case !c.Significant || math.Abs(c.Pct) < minGain:
		c.Change = ChangeNone
	case c.Pct > 0:
		c.Change = ChangeFaster
	default:
		c.Change = ChangeSlower
	}
	return c
}

// Short is "+4.1 %", "+0.3 % n.s." (not significant) or "+0.6 % ~"
// (significant, under the practical threshold): a table cell.
func (c *Comparison) Short() string {
	if c == nil || !c.Valid() {
		return ""
	}
	s := pct(c.Pct) + " %"
	switch {
	case !c.HasCI():
	case !c.Significant:
		s += " n.s."
	case c.Change == ChangeNone:
		s += " ~"
	}
	return s
}

// Range is "+3.2 to +5.0", "" without an interval.
func (c *Comparison) Range() string {
	if c == nil || !c.HasCI() {
		return ""
	}
	return pct(c.Lo) + " to " + pct(c.Hi)
}

// CI is "95 % CI +3.2 to +5.0", "" without an interval.
func (c *Comparison) CI() string {
	if c == nil || !c.HasCI() {
		return ""
	}
	return fmt.Sprintf("%d %% CI %s", int(math.Round(c.Level*100)), c.Range())
}

// pct is a signed percentage with one decimal, never "-0.0".
func pct(x float64) string {
	s := fmt.Sprintf("%+.1f", x)
	if s == "-0.0" {
		return "+0.0"
	}
	return s
}
