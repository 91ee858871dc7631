package rank

import (
	"fmt"
	"math"
	"slices"
	"strings"
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
// Decision: the estimate is the ratio of geometric means, exp(mean ln x -
// mean ln ref) - 1, its interval Student's t on the difference of the mean
// log rates. Throughput noise is multiplicative (scheduling and bus
// contention scale a rate; the simulator draws it log-normal), so logs make
// it one size across points, and the mean of the logs uses every run where
// a median of five throws most away (about 64 % efficiency) and a
// percentile bootstrap of five runs claims more confidence than it has.
// The noise is pooled over the baseline and every point (as the race
// pools it), for many degrees of freedom; a side whose own spread is more
// than twice the pooled one (an unstable setting the pooled spread would
// flatter) gets Welch's interval instead.

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
	return !slices.ContainsFunc(xs, func(x float64) bool { return !(x > 0) || math.IsInf(x, 0) })
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
		// Two decimals where one would round to the threshold itself.
		return fmt.Sprintf("no change: %s %% is under the %.1f %% threshold (%s)", near(c.Pct, c.MinGainPct), c.MinGainPct, ci)
	}
	return fmt.Sprintf("%+.1f %% (%s)", c.Pct, ci)
}

func ciRange(lo, hi float64) string {
	if lo >= 0 && hi >= 0 {
		return bound(lo) + "-" + bound(hi)
	}
	return bound(lo) + " to " + bound(hi)
}

// bound is an interval's end with one decimal, or with as many as it
// takes not to print 0.0 for a bound that is not 0 (an interval above 0
// must not read as one that includes it).
func bound(x float64) string {
	for d := 1; d <= 4; d++ {
		if s := fmt.Sprintf("%.*f", d, x); strings.Trim(s, "-0.") != "" || x == 0 {
			return s
		}
	}
	return fmt.Sprintf("%.2g", x)
}

// near is x with one decimal, or two where one decimal would print the
// threshold t itself (0.96 under a 1.0 % threshold reads "+0.96").
func near(x, t float64) string {
	s := fmt.Sprintf("%+.1f", x)
	if math.Abs(x) < t && s == fmt.Sprintf("%+.1f", math.Copysign(t, x)) {
		return fmt.Sprintf("%+.2f", x)
	}
	return s
}

// FewRunsWarning is what citune sweep and the TUI say of a plan of fewer
// than MinRunsForCI runs a point ("" for enough).
func FewRunsWarning(repeats int) string {
	if repeats >= MinRunsForCI {
		return ""
	}
	return fmt.Sprintf("repeat %d: with fewer than %d runs per point, no difference can be told from noise (no confidence interval) unless the verdict's second look measures it again", repeats, MinRunsForCI)
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

// VisitNoise is the spread of the baseline's visit means beyond the run
// noise (one-way random effects on ln(rate)): the between-visit mean
// square MSB on DoF degrees of freedom, N0 the effective runs per visit.
// Zero value: none seen.
type VisitNoise struct {
	MSB float64 `json:"msb"`
	DoF int     `json:"dof"`
	N0  float64 `json:"n0"`
	// Tau2 is the estimated variance of a visit's shift, (MSB − σ²)/N0,
	// where it is positive.
	Tau2 float64 `json:"tau2"`
}

// VisitNoiseOf estimates the between-visit noise of visits (each a
// visit's rates) against the pooled run noise nz.
func VisitNoiseOf(visits [][]float64, nz Noise) VisitNoise {
	var means, ns []float64
	total := 0.0
	for _, v := range visits {
		if len(v) == 0 || !positive(v) {
			continue
		}
		m, _ := LogStats(v)
		means, ns = append(means, m), append(ns, float64(len(v)))
		total += float64(len(v))
	}
	k := len(means)
	if k < 2 || nz.DoF < 1 {
		return VisitNoise{}
	}
	grand := 0.0
	for i := range means {
		grand += ns[i] * means[i]
	}
	grand /= total
	ss, sq := 0.0, 0.0
	for i := range means {
		d := means[i] - grand
		ss += ns[i] * d * d
		sq += ns[i] * ns[i]
	}
	vn := VisitNoise{MSB: ss / float64(k-1), DoF: k - 1, N0: (total - sq/total) / float64(k-1)}
	if vn.DoF < minVisitDoF {
		// Decision: on one degree of freedom (two visits) the shift makes
		// t and Satterthwaite's degrees of freedom near 1 ("+4.5 %, 95 %
		// CI -20.8 to 38.0" for a point plainly faster). Below three
		// visits it does not enter: their difference stays in the
		// baseline's own spread (Welch's interval where it is more than
		// twice the pooled noise), and the runner's drift check adds a
		// visit where two disagree.
		return vn
	}
	// The shift counts only where the visits differ beyond chance (F test
	// at visitAlpha): a variance on 1 or 2 degrees of freedom would
	// otherwise widen every interval of a steady board several times.
	s2 := nz.SD * nz.SD
	if t := (vn.MSB - s2) / vn.N0; t > 0 && vn.N0 > 0 && s2 > 0 && 1-FCDF(vn.MSB/s2, float64(vn.DoF), float64(nz.DoF)) < visitAlpha {
		vn.Tau2 = t
	}
	return vn
}

// visitAlpha is the F test's level for a shift between visits;
// minVisitDoF the fewest degrees of freedom (visits less one) on which
// the shift is estimated at all.
const (
	visitAlpha  = 0.10
	minVisitDoF = 2
)

// FCDF is P(F <= x) for Fisher's F with d1 and d2 degrees of freedom.
func FCDF(x, d1, d2 float64) float64 {
	if x <= 0 {
		return 0
	}
	return regIncBeta(d1*x/(d1*x+d2), d1/2, d2/2)
}

// compare is xs against ref, each of family intervals two-sided at
// 1 - (1-Confidence)/family, so each one-sided error is at most
// (1-Confidence)/(2 family): one of the two looks a sweep may take (Policy).
func compare(xs, ref []float64, nz Noise, family int, minGain float64) Comparison {
	return compareVisits(xs, ref, nz, VisitNoise{}, 1, family, minGain)
}

// compareVisits is compare with the between-visit noise vn: each side's
// visits (pv of xs) carry a shift of variance Tau2, added to the
// difference's variance, on Satterthwaite's degrees of freedom.
func compareVisits(xs, ref []float64, nz Noise, vn VisitNoise, pv, family int, minGain float64) Comparison {
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
		if vn.Tau2 > 0 {
			// se² is σ²(1/n + 1/nr) on nz.DoF; the shift adds
			// Tau2·(1/pv + 1/V), Tau2 = (MSB − σ²)/N0.
			se2 := se * se
			w := 1/float64(pv) + 1/float64(vn.DoF+1)
			s2 := nz.SD * nz.SD
			a := se2/s2 - w/vn.N0 // weight of σ²
			b := w / vn.N0        // weight of MSB
			v := a*s2 + b*vn.MSB
			vdof := v * v / (a*a*s2*s2/float64(nz.DoF) + b*b*vn.MSB*vn.MSB/float64(vn.DoF))
			se, dof, quantile = math.Sqrt(v), vdof, TQuantileF
		}
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

// Range is the interval as String writes it ("3.2-5.0", "-1.2 to
// 1.9"), "" without one.
func (c *Comparison) Range() string {
	if c == nil || !c.HasCI() {
		return ""
	}
	return ciRange(c.Lo, c.Hi)
}

// pct is a signed percentage with one decimal, never "-0.0".
func pct(x float64) string {
	s := fmt.Sprintf("%+.1f", x)
	if s == "-0.0" {
		return "+0.0"
	}
	return s
}

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
