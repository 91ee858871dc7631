package rank

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/citune/citune/units"
)

// The verdict: what a sweep recommends, decided once, here, for every
// output (the sweep's closing lines, report in every format, dts, LAVA,
// the TUI).
//
// Decision (error rates): a change is recommended only when its interval
// against the original settings lies above 0 and its estimate reaches the
// practical threshold (MinGainPct, `--min-gain`, 1 % by default as
// Criterion.rs's noise threshold). Each point's one-sided error is held to
// 2.5 %/m for the m points compared with the baseline (Bonferroni), so a
// sweep recommends a change that does nothing with at most 2.5 % chance at
// its first look; one more look (Verdict.Confirm, a bounded number of runs
// of the most promising point and the baseline) at the same per-point
// level bounds the family-wise rate at 5 % over the two. In a race, m
// counts every point with runs, the dropped ones included, so the race's
// selection is covered; a point dropped on its screening run alone is not
// counted, as no comparison uses that run.

// DefaultMinGainPct is the practical threshold without --min-gain.
const DefaultMinGainPct = 1.0

// Policy is what the verdict is decided under.
type Policy struct {
	// MinGainPct is the practical threshold in percent (0: none).
	MinGainPct float64
	// NotPermanent returns, of a point's changes from the original, those
	// no device-tree property or kernel parameter can make permanent, each
	// with why; nil: every setting can.
	NotPermanent func(changes map[string]string) []string
	// SecondLook is the point the sweep's second look measured again
	// (results.EventSecondLook): after it only that point may be
	// recommended, the others having had their look.
	SecondLook string
}

// blocked is what of settings' changes from original cannot be made
// permanent (nil: all can, or no test).
func (p Policy) blocked(settings, original map[string]string) []string {
	if p.NotPermanent == nil {
		return nil
	}
	ch := changes(settings, original)
	if len(ch) == 0 {
		return nil
	}
	return p.NotPermanent(ch)
}

// VerdictKind is what a sweep recommends.
type VerdictKind string

// Verdicts.
const (
	// VerdictApply: make Changes permanent.
	VerdictApply VerdictKind = "apply"
	// VerdictKeep: no measured point beats the original settings beyond
	// noise and the threshold; keep them.
	VerdictKeep VerdictKind = "keep"
	// VerdictNone: too little was measured to decide; Settle says what
	// would.
	VerdictNone VerdictKind = "no-decision"
)

// Verdict is the sweep's decision.
type Verdict struct {
	Kind VerdictKind `json:"kind"`
	// Point is the recommended point (apply), or the best point
	// measured (keep, no decision), with its settings and comparison.
	Point    string            `json:"point,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
	Vs       *Comparison       `json:"vs_baseline,omitempty"`
	// Changes are the settings the recommendation changes from the
	// original (apply only): what a device-tree fragment holds.
	Changes map[string]string `json:"changes,omitempty"`
	// Kept are the swept settings the recommendation leaves at their
	// original value; NoEffect those that took more than one value among
	// the points tied with it (no measurable effect).
	Kept     []string `json:"kept,omitempty"`
	NoEffect []string `json:"no_effect,omitempty"`
	// Bench is the fastest point when it is faster than the
	// recommendation but needs a setting that cannot be made permanent.
	Bench *BenchBest `json:"best_on_bench,omitempty"`
	// Confirm is the point worth more runs before deciding (keep, no
	// decision): promising, not yet significant, or too few runs.
	Confirm string `json:"confirm,omitempty"`
	// Reason says why in one sentence, Settle what would decide a
	// no-decision, Tie why the recommendation is not the fastest tied point.
	Reason string `json:"reason"`
	Settle string `json:"settle,omitempty"`
	Tie    string `json:"tie,omitempty"`
	// tie keeps Tie's figures so DetailsIn can give them per the
	// display's amount (Tie itself, for --json, is per MiB).
	tie *tieLine
	// The rule it was decided under.
	MinGainPct float64 `json:"min_gain_pct"`
	Family     int     `json:"family"`
}

// BenchBest is a faster point that cannot be made permanent.
type BenchBest struct {
	Point    string            `json:"point"`
	Settings map[string]string `json:"settings"`
	Vs       *Comparison       `json:"vs_baseline,omitempty"`
	Blocked  []string          `json:"blocked"`
}

// changes are the settings of s that differ from original.
func changes(s, original map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range s {
		if o, ok := original[k]; !ok || o != v {
			out[k] = v
		}
	}
	return out
}

// decide makes the verdict of a ranking (rank's last step).
func decide(rk *Ranking, original map[string]string, pol Policy) Verdict {
	v := Verdict{MinGainPct: pol.MinGainPct, Family: rk.Family}
	if len(rk.Ranked) == 0 {
		v.Kind, v.Reason = VerdictNone, "no point was ranked"
		v.Settle = "a sweep whose points hold their settings and complete their runs"
		return v
	}
	if rk.Baseline.Runs < MinRunsForCI {
		v.Kind = VerdictNone
		v.Reason = fmt.Sprintf("the original settings were measured %d time(s): a comparison needs %d runs", rk.Baseline.Runs, MinRunsForCI)
		v.Settle = "a sweep that measures the original settings (the baseline) at least 3 times"
		return v
	}
	var cands []*Ranked
	var bench *Ranked
	for i := range rk.Ranked {
		r := &rk.Ranked[i]
		if c := r.VsBaseline; c == nil || c.Change != ChangeFaster || r.Original {
			continue
		}
		if len(r.Blocked) > 0 {
			if bench == nil { // the first in the ranking's order
				bench = r
			}
			continue
		}
		if pol.SecondLook != "" && r.Key != pol.SecondLook {
			continue // its look was the first, which recommended nothing
		}
		cands = append(cands, r)
	}
	// A faster point the adaptive race dropped because it cannot be made
	// permanent is still the best on the bench.
	var benchX *Excluded
	for i := range rk.Excluded {
		x := &rk.Excluded[i]
		if x.Status != StatusEliminated || len(x.Blocked) == 0 || x.VsBaseline == nil || x.VsBaseline.Change != ChangeFaster {
			continue
		}
		if (bench == nil || x.logMean > bench.logMean) && (benchX == nil || x.logMean > benchX.logMean) {
			benchX = x
		}
	}
	if benchX != nil {
		bench = &Ranked{Key: benchX.Key, Settings: benchX.Settings, VsBaseline: benchX.VsBaseline, Blocked: benchX.Blocked, logMean: benchX.logMean}
	}
	if len(cands) == 0 {
		return keepOrUndecided(rk, original, pol, v, bench)
	}
	lead := cands[0]
	for _, c := range cands {
		if c.logMean > lead.logMean {
			lead = c
		}
	}
	var tied []*Ranked
	for _, c := range cands {
		if cmp := compare(c.rates, lead.rates, rk.Noise, 1, 0); c == lead || !cmp.Significant {
			tied = append(tied, c)
		}
	}
	sort.SliceStable(tied, func(i, j int) bool { return tieLess(tied[i], tied[j], original) })
	w := tied[0]
	v.Kind, v.Point, v.Settings, v.Vs = VerdictApply, w.Key, w.Settings, w.VsBaseline
	v.Changes = changes(w.Settings, original)
	for k := range w.Settings {
		if _, ch := v.Changes[k]; !ch {
			v.Kept = append(v.Kept, k)
		}
	}
	sort.Strings(v.Kept)
	for _, k := range noEffect(tied) {
		if slices.Contains(v.Kept, k) {
			v.NoEffect = append(v.NoEffect, k)
		}
	}
	v.Reason = fmt.Sprintf("faster than the original settings beyond noise and the %.1f %% threshold", pol.MinGainPct)
	if len(tied) > 1 && w != lead {
		v.tie = &tieLine{n: len(tied), lead: SettingsString(lead.Settings)}
		v.tie.reason(w, lead, original)
		v.Tie = v.tie.text(units.MiBps)
	}
	if bench != nil && bench.logMean > w.logMean {
		v.Bench = benchBest(bench)
	}
	return v
}

func benchBest(b *Ranked) *BenchBest {
	if b == nil {
		return nil
	}
	return &BenchBest{Point: b.Key, Settings: b.Settings, Vs: b.VsBaseline, Blocked: b.Blocked}
}

// keepOrUndecided is the verdict when no permanent point is faster.
func keepOrUndecided(rk *Ranking, original map[string]string, pol Policy, v Verdict, bench *Ranked) Verdict {
	var best *Ranked
	for i := range rk.Ranked {
		if r := &rk.Ranked[i]; !r.Original && (best == nil || r.logMean > best.logMean) {
			best = r
		}
	}
	v.Bench = benchBest(bench)
	if best != nil {
		v.Point, v.Settings, v.Vs = best.Key, best.Settings, best.VsBaseline
	}
	// Decision: too few runs withhold "keep" only where the estimate would
	// be a gain (else one adaptive null sweep in six would decide nothing).
	if best != nil && best.VsBaseline != nil && !best.VsBaseline.HasCI() && best.VsBaseline.Pct >= pol.MinGainPct {
		v.Kind = VerdictNone
		v.Reason = fmt.Sprintf("the fastest point other than the original settings, %s, has %d run(s): too few to tell its %+.1f %% from noise", SettingsString(best.Settings), best.Runs, best.VsBaseline.Pct)
		v.Settle = fmt.Sprintf("measure it at least %d times: a sweep of that point alone, or an adaptive sweep with a larger --budget", MinRunsForCI)
		if len(best.Blocked) == 0 {
			v.Confirm = best.Key // the sweep's second look measures it
		}
		return v
	}
	v.Kind = VerdictKeep
	v.Reason = fmt.Sprintf("no point that can be made permanent was faster than the original settings beyond noise and the %.1f %% threshold", pol.MinGainPct)
	if k := alwaysBlocked(rk, original); k != "" {
		v.Settle = fmt.Sprintf("every point swept changes %s, which cannot be made permanent: sweep it with its original value (%s) too", shortName(k), original[k])
	}
	// The most promising point, for one more look: faster on its own (its
	// 95 % interval alone above 0) but not among all the points compared
	// (about one null sweep in five: the best of ten null points).
	var conf *Ranked
	for i := range rk.Ranked {
		r := &rk.Ranked[i]
		c := r.VsBaseline
		if r.Original || len(r.Blocked) > 0 || c == nil || !c.HasCI() || c.Significant || c.Pct < pol.MinGainPct {
			continue
		}
		if alone := compare(r.rates, rk.Baseline.rates, rk.Noise, 1, 0); alone.Lo <= 0 {
			continue
		}
		if conf == nil || r.logMean > conf.logMean {
			conf = r
		}
	}
	if conf != nil {
		v.Confirm = conf.Key
	}
	return v
}

// noEffect lists the settings that take more than one value among the
// tied points.
func noEffect(tied []*Ranked) []string {
	vals := map[string]map[string]bool{}
	for _, t := range tied {
		for k, x := range t.Settings {
			if vals[k] == nil {
				vals[k] = map[string]bool{}
			}
			vals[k][x] = true
		}
	}
	var out []string
	for k, m := range vals {
		if len(m) > 1 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// Headline is the verdict in one line, the same in every output.
func (v Verdict) Headline() string {
	switch v.Kind {
	case VerdictApply:
		return fmt.Sprintf("verdict: apply %s: %s against the original settings", SettingsString(v.Changes), VsString(v.Vs))
	case VerdictKeep:
		s := "verdict: keep the original settings: " + v.Reason
		if v.Point != "" && v.Vs != nil {
			s += fmt.Sprintf(" (the fastest other point, %s: %s)", SettingsString(v.Settings), v.Vs)
		}
		return s
	}
	return "verdict: no decision: " + v.Reason
}

// Short is the verdict in a few words, for a status line: "apply ITC=8
// TXPBURST=32 (+4.1 %)", "keep the original settings", "no decision".
func (v Verdict) Short() string {
	switch v.Kind {
	case VerdictApply:
		return fmt.Sprintf("verdict: apply %s (%s)", SettingsString(v.Changes), v.Vs.Short())
	case VerdictKeep:
		return "verdict: keep the original settings"
	}
	return "verdict: no decision"
}

// Details are the verdict's further lines: what would settle it, the
// settings that did not matter, the faster point that cannot be made
// permanent, and the rule.
func (v Verdict) Details() []string { return v.DetailsIn(units.MiBps) }

// DetailsIn are Details with per-amount figures per d.Amount() (--units).
func (v Verdict) DetailsIn(d units.Display) []string {
	var out []string
	if v.Settle != "" {
		out = append(out, "to decide: "+v.Settle)
	}
	if v.tie != nil {
		out = append(out, v.tie.text(d))
	} else if v.Tie != "" {
		out = append(out, v.Tie)
	}
	if len(v.Kept) > 0 {
		out = append(out, "kept at their original values: "+strings.Join(shortNames(v.Kept), ", "))
	}
	if len(v.NoEffect) > 0 {
		out = append(out, "no measurable effect among the best points, so left at the original: "+strings.Join(shortNames(v.NoEffect), ", "))
	}
	if b := v.Bench; b != nil {
		out = append(out, fmt.Sprintf("best on the bench, cannot be made permanent: %s: %s (%s)", SettingsString(b.Settings), VsString(b.Vs), strings.Join(b.Blocked, "; ")))
	}
	if v.Family > 0 {
		out = append(out, fmt.Sprintf("rule: intervals hold together at 95 %% over the %d point(s) compared; a change needs its interval above 0 and a gain of at least %.1f %% (--min-gain)", v.Family, v.MinGainPct))
	}
	return out
}

// alwaysBlocked is a setting every point but the original settings
// changes, where each of those points is blocked (cannot be made
// permanent): the sweep never measured a point the verdict could
// recommend without it (the first by name; "" when there is none).
func alwaysBlocked(rk *Ranking, original map[string]string) string {
	var common map[string]string
	for _, r := range rk.Ranked {
		if r.Original {
			return "" // the original value was swept
		}
		if len(r.Blocked) == 0 {
			return ""
		}
		ch := changes(r.Settings, original)
		if common == nil {
			common = maps.Clone(ch)
			continue
		}
		for k := range common {
			if _, ok := ch[k]; !ok {
				delete(common, k)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(common)) {
		for _, r := range rk.Ranked {
			if slices.ContainsFunc(r.Blocked, func(b string) bool { return strings.Contains(b, k) }) {
				return k
			}
		}
	}
	return ""
}

// tieLine is why the recommendation is not the fastest of the points
// tied with it: what put it ahead in the tie order (tieLess).
type tieLine struct {
	n     int    // points tied
	lead  string // the fastest's settings
	kind  string // "irq", "cpu" or "" (other holds the words)
	w, l  float64
	other string
}

// reason says what put w ahead of lead in the tie order (tieLess):
// fewer interrupts, less CPU, fewer changed settings. A figure only w
// has also puts it ahead (cmpTol ranks a missing one last).
func (t *tieLine) reason(w, lead *Ranked, original map[string]string) {
	a, b := changedFrom(w.Settings, original), changedFrom(lead.Settings, original)
	switch {
	case cmpTol(w.IRQsPerMiB, lead.IRQsPerMiB, 0.02) < 0 && lead.IRQsPerMiB == nil:
		t.other = "its interrupts counted (the fastest's were not)"
	case cmpTol(w.IRQsPerMiB, lead.IRQsPerMiB, 0.02) < 0:
		t.kind, t.w, t.l = "irq", *w.IRQsPerMiB, *lead.IRQsPerMiB
	case cmpTol(w.CPUPerMiB, lead.CPUPerMiB, 0.05) < 0 && lead.CPUPerMiB == nil:
		t.other = "its CPU time measured (the fastest's was not)"
	case cmpTol(w.CPUPerMiB, lead.CPUPerMiB, 0.05) < 0:
		t.kind, t.w, t.l = "cpu", *w.CPUPerMiB, *lead.CPUPerMiB
	case a < b:
		t.other = fmt.Sprintf("fewer changed settings (%d against %d)", a, b)
	default:
		t.other = "its higher median rate (as fast by the mean, within noise)"
	}
}

// text is the line, per-amount figures per d.Amount().
func (t *tieLine) text(d units.Display) string {
	why := t.other
	switch t.kind {
	case "irq":
		why = fmt.Sprintf("fewer interrupts per %s (%.0f against %.0f)", d.Amount(), d.Per(t.w), d.Per(t.l))
	case "cpu":
		why = fmt.Sprintf("less CPU per %s (%.1f against %.1f ms)", d.Amount(), d.Per(t.w), d.Per(t.l))
	}
	return fmt.Sprintf("chosen among the %d points tied with the fastest (%s) for %s", t.n, t.lead, why)
}
