package rank

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/citune/citune/units"
)

// Status is how a point's measurement ended; the results file records it
// as its string. Only ok points are ranked.
type Status string

// Point statuses.
const (
	StatusOK         Status = "ok"
	StatusNotHeld    Status = "not-held"   // a setting did not stick or changed during a probe run
	StatusCorrupt    Status = "corrupt"    // a probe run failed its integrity check
	StatusFailed     Status = "failed"     // the probe or the apply step failed
	StatusEliminated Status = "eliminated" // adaptive: significantly worse than the leader, not measured further
)

// Confidence is the level of every interval citune reports.
const Confidence = 0.95

// PointStats is everything measured at one point over all its visits.
type PointStats struct {
	Key      string
	Settings map[string]string
	Ignored  []string
	Note     string
	Status   Status
	Reason   string
	Changed  []string
	Rates    []float64
	// IRQsPerMiB and CPUPerMiB (busy CPU milliseconds per MiB moved) per
	// run, where the probe measured them.
	IRQsPerMiB []float64
	CPUPerMiB  []float64
	Unit       string
	// Visits is the number of visits the rates come from (0 counts as 1).
	Visits int
}

// Ranked is a ranked point.
type Ranked struct {
	Rank       int               `json:"rank"`
	Key        string            `json:"point"`
	Settings   map[string]string `json:"settings"`
	Ignored    []string          `json:"ignored,omitempty"`
	Runs       int               `json:"runs"`
	Median     float64           `json:"median_bytes_per_s"`
	Unit       string            `json:"unit,omitempty"`
	IRQsPerMiB *float64          `json:"irqs_per_mib,omitempty"`
	CPUPerMiB  *float64          `json:"cpu_ms_per_mib,omitempty"`
	VsBaseline *Comparison       `json:"vs_baseline,omitempty"`
	// Tied is set for points not significantly slower than the fastest;
	// they are ordered by interrupts per MiB, then CPU per MiB.
	Tied bool `json:"tied_with_fastest,omitempty"`
	// Original is set for the point whose settings are the original
	// ones: measured as a point, it is the noise floor of the sweep.
	Original bool `json:"original_settings,omitempty"`
	// Blocked are the point's changes that cannot be made permanent
	// (Policy.NotPermanent), each with why: the verdict never
	// recommends such a point.
	Blocked []string `json:"blocked,omitempty"`

	rates   []float64
	logMean float64
}

// Excluded is a point that is not ranked, and why.
type Excluded struct {
	Key      string            `json:"point"`
	Settings map[string]string `json:"settings"`
	Status   Status            `json:"status"`
	Reason   string            `json:"reason,omitempty"`
	Changed  []string          `json:"changed,omitempty"`
	Runs     int               `json:"runs"`
	// Median, Unit, VsBaseline and Blocked are an eliminated point's
	// (the race dropped it on good runs, just fewer of them).
	Median     float64     `json:"median_bytes_per_s,omitempty"`
	Unit       string      `json:"unit,omitempty"`
	VsBaseline *Comparison `json:"vs_baseline,omitempty"`
	Blocked    []string    `json:"blocked,omitempty"`

	logMean float64
}

// BaselineStats is the baseline (original settings) over all its visits.
type BaselineStats struct {
	Runs   int     `json:"runs"`
	Median float64 `json:"median_bytes_per_s"`
	// Visits are the medians of each baseline measurement in order;
	// DriftPct is last against first.
	Visits   []float64 `json:"visit_medians_bytes_per_s"`
	DriftPct float64   `json:"drift_pct"`
	Unit     string    `json:"unit,omitempty"`
	rates    []float64
}

// Ranking is the outcome of a sweep.
type Ranking struct {
	Baseline BaselineStats `json:"baseline"`
	Ranked   []Ranked      `json:"ranked"`
	Excluded []Excluded    `json:"excluded,omitempty"`
	// Noise is the run-to-run spread of ln(rate) pooled over the
	// baseline and the points; Family the number of points compared with
	// the baseline (ranked and eliminated), over which the intervals hold
	// together; MinGainPct the practical threshold.
	Noise Noise `json:"noise"`
	// Visits is the between-visit noise the baseline's visits show.
	Visits     VisitNoise `json:"visit_noise"`
	Family     int        `json:"family"`
	MinGainPct float64    `json:"min_gain_pct"`
	// Verdict is the sweep's decision: what every output recommends.
	Verdict Verdict `json:"verdict"`
}

// Winner is the first ranked point, or nil.
func (r Ranking) Winner() *Ranked {
	if len(r.Ranked) == 0 {
		return nil
	}
	return &r.Ranked[0]
}

// Find returns the ranked point with key, or nil.
func (r Ranking) Find(key string) *Ranked {
	if i := slices.IndexFunc(r.Ranked, func(x Ranked) bool { return x.Key == key }); i >= 0 {
		return &r.Ranked[i]
	}
	return nil
}

// Ptr is x as an optional number: nil when x is NaN or infinite (absent
// from the results file).
func Ptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// RankVisits orders the ok points by their rate against the original
// settings (the baseline's runs, by visit) and decides the Verdict under
// pol. Points not significantly slower than the fastest are tied, ordered
// by tieLess (what does not help is best left alone). The spread of the
// visits' means beyond the run noise (drift between visits) widens every
// interval (VisitNoise), so that a drifting board's drift is not taken
// for a gain. O(n log n) in points and runs.
func RankVisits(points []PointStats, baseVisits [][]float64, original map[string]string, pol Policy) Ranking {
	var baseline, medians []float64
	for _, v := range baseVisits {
		baseline = append(baseline, v...)
		medians = append(medians, Median(v))
	}
	return rank(points, baseline, medians, baseVisits, original, pol)
}

func rank(points []PointStats, baseline []float64, visits []float64, baseVisits [][]float64, original map[string]string, pol Policy) Ranking {
	if pol.MinGainPct < 0 {
		pol.MinGainPct = 0
	}
	var rk Ranking
	rk.Baseline = BaselineStats{Runs: len(baseline), Median: Median(baseline), Visits: visits, rates: baseline}
	if len(baseline) == 0 {
		rk.Baseline.Median = 0
	}
	if len(visits) >= 2 && visits[0] != 0 {
		rk.Baseline.DriftPct = (visits[len(visits)-1]/visits[0] - 1) * 100
	}
	groups := [][]float64{baseline}
	family := 0
	for _, p := range points {
		if (p.Status == StatusOK || p.Status == StatusEliminated) && len(p.Rates) > 0 {
			groups = append(groups, p.Rates)
			family++
		}
	}
	rk.Noise = PoolNoise(groups...)
	rk.Visits = VisitNoiseOf(baseVisits, rk.Noise)
	rk.Family, rk.MinGainPct = family, pol.MinGainPct
	vs := func(p PointStats) *Comparison {
		if len(baseline) == 0 {
			return nil
		}
		c := compareVisits(p.Rates, baseline, rk.Noise, rk.Visits, max(p.Visits, 1), family, pol.MinGainPct)
		return &c
	}
	for _, p := range points {
		if p.Status != StatusOK || len(p.Rates) == 0 {
			st := p.Status
			if st == StatusOK {
				st, p.Reason = StatusFailed, "no runs"
			}
			x := Excluded{Key: p.Key, Settings: p.Settings, Status: st, Reason: p.Reason, Changed: p.Changed, Runs: len(p.Rates)}
			if st == StatusEliminated && len(p.Rates) > 0 {
				x.Median, x.Unit, x.VsBaseline, x.logMean = Median(p.Rates), p.Unit, vs(p), logMean(p.Rates)
				x.Blocked = pol.blocked(p.Settings, original)
			}
			rk.Excluded = append(rk.Excluded, x)
			continue
		}
		rk.Baseline.Unit = cmp.Or(rk.Baseline.Unit, p.Unit)
		r := Ranked{Key: p.Key, Settings: p.Settings, Ignored: p.Ignored, Runs: len(p.Rates), Median: Median(p.Rates), Unit: p.Unit,
			IRQsPerMiB: Ptr(Median(p.IRQsPerMiB)), CPUPerMiB: Ptr(Median(p.CPUPerMiB)), rates: p.Rates,
			Original: len(original) > 0 && changedFrom(p.Settings, original) == 0, VsBaseline: vs(p),
			Blocked: pol.blocked(p.Settings, original)}
		r.logMean = logMean(p.Rates)
		rk.Ranked = append(rk.Ranked, r)
	}
	sort.SliceStable(rk.Ranked, func(i, j int) bool { return rk.Ranked[i].logMean > rk.Ranked[j].logMean })
	if len(rk.Ranked) > 1 {
		best := rk.Ranked[0]
		n := 1
		for i := 1; i < len(rk.Ranked); i++ {
			c := compare(rk.Ranked[i].rates, best.rates, rk.Noise, 1, 0)
			if c.HasCI() && !c.Significant {
				rk.Ranked[i].Tied = true
				// Move it up into the tied block.
				t := rk.Ranked[i]
				copy(rk.Ranked[n+1:i+1], rk.Ranked[n:i])
				rk.Ranked[n] = t
				n++
			}
		}
		if n > 1 {
			rk.Ranked[0].Tied = true
			tier := rk.Ranked[:n]
			sort.SliceStable(tier, func(i, j int) bool { return tieLess(&tier[i], &tier[j], original) })
		}
	}
	for i := range rk.Ranked {
		rk.Ranked[i].Rank = i + 1
	}
	sort.SliceStable(rk.Excluded, func(i, j int) bool { return rk.Excluded[i].Key < rk.Excluded[j].Key })
	rk.Verdict = decide(&rk, original, pol)
	return rk
}

// logMean is the mean of ln(xs), -Inf where a rate is not positive.
func logMean(xs []float64) float64 {
	if len(xs) == 0 || !positive(xs) {
		return math.Inf(-1)
	}
	m, _ := LogStats(xs)
	return m
}

// tieLess orders tied points: fewer IRQs per MiB (beyond 2 %), then less
// CPU per MiB (beyond 5 %), then fewer settings changed from original,
// then the higher median.
func tieLess(a, b *Ranked, original map[string]string) bool {
	if c := cmpTol(a.IRQsPerMiB, b.IRQsPerMiB, 0.02); c != 0 {
		return c < 0
	}
	if c := cmpTol(a.CPUPerMiB, b.CPUPerMiB, 0.05); c != 0 {
		return c < 0
	}
	if ca, cb := changedFrom(a.Settings, original), changedFrom(b.Settings, original); ca != cb {
		return ca < cb
	}
	return a.Median > b.Median
}

// changedFrom counts the settings that differ from original.
func changedFrom(settings, original map[string]string) int {
	n := 0
	for k, v := range settings {
		if o, ok := original[k]; ok && o != v {
			n++
		}
	}
	return n
}

func cmpTol(a, b *float64, tol float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	x, y := *a, *b
	if math.Abs(x-y) <= tol*math.Max(math.Abs(x), math.Abs(y)) {
		return 0
	}
	if x < y {
		return -1
	}
	return 1
}

// SettingsString renders settings with short names, ordered by them:
// "AHBBRST=0 ITC=1 TXPBURST=16".
func SettingsString(s map[string]string) string {
	keys := slices.Collect(maps.Keys(s))
	// sort.Slice, not slices.SortFunc: a generic sort instantiated here
	// took the ARMv7 binary one 64 KiB step up (ecda316).
	sort.Slice(keys, func(i, j int) bool {
		a, b := shortName(keys[i]), shortName(keys[j])
		if a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	var out []string
	for _, k := range keys {
		out = append(out, shortName(k)+"="+s[k])
	}
	return strings.Join(out, " ")
}

// shortName drops the register from REG.FIELD; paths and module.param
// stay as they are.
func shortName(k string) string {
	if strings.HasPrefix(k, "/") {
		return k
	}
	if reg, fld, ok := strings.Cut(k, "."); ok && reg == strings.ToUpper(reg) {
		return fld
	}
	return k
}

// Format writes the ranking as a table for people, byte rates in MiB/s.
func (r Ranking) Format(b *strings.Builder) { r.FormatIn(b, units.MiBps) }

// FormatIn writes the ranking with byte rates, interrupts and CPU per
// amount in display.
func (r Ranking) FormatIn(b *strings.Builder, display units.Display) {
	bl := r.Baseline
	if bl.Runs > 0 {
		fmt.Fprintf(b, "baseline (original settings): %s, median of %d runs", display.Rate(bl.Median, bl.Unit), bl.Runs)
		if len(bl.Visits) >= 2 {
			lo, hi := slices.Min(bl.Visits), slices.Max(bl.Visits)
			fmt.Fprintf(b, "; measured %d times, drift %+.1f %% first to last (medians %s to %s)", len(bl.Visits), bl.DriftPct,
				display.Rate(lo, bl.Unit), display.Rate(hi, bl.Unit))
		}
		b.WriteString("\n")
	}
	if len(r.Ranked) == 0 {
		b.WriteString("no point was ranked\n")
	}
	// Rows stay narrow for serial consoles.
	width := 8
	for _, p := range r.Ranked {
		width = max(width, len(SettingsString(p.Settings)))
	}
	for _, p := range r.Ranked {
		tie := " "
		if p.Tied {
			tie = "="
		}
		fmt.Fprintf(b, "%3d%s %-*s %12s", p.Rank, tie, width, SettingsString(p.Settings), display.Rate(p.Median, p.Unit))
		if p.IRQsPerMiB != nil {
			fmt.Fprintf(b, " %5.0f irq/%s", display.Per(*p.IRQsPerMiB), display.Amount())
		}
		if p.CPUPerMiB != nil {
			fmt.Fprintf(b, " %5.1f ms CPU/%s", display.Per(*p.CPUPerMiB), display.Amount())
		}
		if v := VsString(p.VsBaseline); v != "" {
			fmt.Fprintf(b, "  %s", v)
		}
		if len(p.Ignored) > 0 {
			fmt.Fprintf(b, "  (%s ignored by the hardware here)", strings.Join(shortNames(p.Ignored), ", "))
		}
		if p.Original {
			b.WriteString("  (the original settings as a point: the noise floor)")
		}
		b.WriteString("\n")
	}
	if len(r.Ranked) > 1 && r.Ranked[0].Tied {
		fmt.Fprintf(b, "  = not significantly slower than the fastest; ordered by interrupts per %s,\n    then CPU per %[1]s, then fewest settings changed from the original\n", display.Amount())
	}
	if r.Family > 1 {
		fmt.Fprintf(b, "  intervals: geometric mean rates, holding together at 95 %% over %d points\n", r.Family)
	}
	for _, x := range r.Excluded {
		switch x.Status {
		case StatusCorrupt:
			fmt.Fprintf(b, "!!! CORRUPT DATA at %s: %s\n", SettingsString(x.Settings), x.Reason)
		case StatusNotHeld:
			fmt.Fprintf(b, "    not-held   %s: %s\n", SettingsString(x.Settings), strings.Join(x.Changed, "; "))
		default:
			fmt.Fprintf(b, "    %-10s %s: %s\n", x.Status, SettingsString(x.Settings), x.Reason)
		}
	}
}

// VsString is c as text, or "" without a comparison.
func VsString(c *Comparison) string {
	if c == nil {
		return ""
	}
	return c.String()
}

func shortNames(ks []string) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = shortName(k)
	}
	return out
}

// PossiblyBest says whether the ranked point key could be the fastest by
// its runs: multiple comparisons with the best (Hsu), Bonferroni over the
// others; its mean log rate is within t·σ·√(1/n + 1/nb) of the highest of
// the others (t one-sided at (1 − Confidence)/(k − 1) on the pooled
// noise's degrees of freedom, k the ranked points).
//
// Decision: this judges a point chosen elsewhere (another search's winner
// measured again by the grid). Tied compares every point with the fastest
// as if it had not been picked from them, so on a 308-point grid a point
// equal to it in truth is called slower about one time in five
// (bench/model.sh, its only user; the ranking's order and Tied stay).
func (r Ranking) PossiblyBest(key string) bool {
	p := r.Find(key)
	if p == nil || !(r.Noise.SD > 0) || r.Noise.DoF < 1 || len(r.Ranked) < 2 {
		return p != nil
	}
	best := -1
	for i := range r.Ranked {
		q := &r.Ranked[i]
		if q.Key != key && (best < 0 || q.logMean > r.Ranked[best].logMean) {
			best = i
		}
	}
	b := &r.Ranked[best]
	if p.Runs == 0 || b.Runs == 0 {
		return false
	}
	t := TQuantileF(1-(1-Confidence)/float64(len(r.Ranked)-1), float64(r.Noise.DoF))
	se := r.Noise.SD * math.Sqrt(1/float64(p.Runs)+1/float64(b.Runs))
	return p.logMean >= b.logMean-t*se
}
