package tui

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// label names a point by its axis values.
func (s *sweepTab) label(p results.PointRecord) string {
	if p.Baseline {
		return "baseline"
	}
	var parts []string
	for _, a := range s.plan.Axes {
		if v := p.Settings[a.Name]; v != "" {
			parts = append(parts, axisLabel(s.m, a)+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// values are the point's values in plan order; "" for an axis the
// hardware ignores at this point.
func (s *sweepTab) values(p results.PointRecord) []string {
	vs := make([]string, len(s.plan.Axes))
	for i, a := range s.plan.Axes {
		vs[i] = p.Settings[a.Name]
	}
	return vs
}

// ranked splits points into the ranked ones sorted by median rate and the
// rest (not held, corrupt, failed, eliminated), baselines left out.
func (s *sweepTab) ranked() (good, bad []results.PointRecord) {
	for _, p := range s.points {
		switch {
		case p.Baseline:
		case rankable(p):
			good = append(good, p)
		default:
			bad = append(bad, p)
		}
	}
	sort.SliceStable(good, func(i, j int) bool { return rank.Median(good[i].Rates) > rank.Median(good[j].Rates) })
	if rk := s.ranking; rk != nil {
		// The sweep's order (its verdict is said apart).
		pos := map[string]int{}
		for i, r := range rk.Ranked {
			pos[r.Key] = i + 1
		}
		sort.SliceStable(good, func(i, j int) bool { return pos[good[i].Point] < pos[good[j].Point] })
	}
	return good, bad
}

// unit is the unit of the sweep's rates (its one probe's; "" for bytes
// per second).
func (s *sweepTab) unit() string {
	for _, p := range s.points {
		if p.Unit != "" {
			return p.Unit
		}
	}
	return ""
}

// pointRate is the point's median rate as the Sweep tab shows it.
func (s *sweepTab) pointRate(p results.PointRecord) string {
	return s.fmtRate(rank.Median(p.Rates), s.unit())
}

func (s *sweepTab) best() (results.PointRecord, bool) {
	good, _ := s.ranked()
	if len(good) == 0 {
		return results.PointRecord{}, false
	}
	return good[0], true
}

// baseline is every baseline measurement pooled, or the point whose
// values are the starting ones.
func (s *sweepTab) baseline() (results.PointRecord, bool) {
	var pooled results.PointRecord
	for _, p := range s.points {
		if p.Baseline {
			pooled.Baseline = true
			pooled.Rates = append(pooled.Rates, p.Rates...)
		}
	}
	if len(pooled.Rates) > 0 {
		return pooled, true
	}
	var startVals []string
	for _, a := range s.plan.Axes {
		if a.Ref.Reg == nil {
			return results.PointRecord{}, false
		}
		v := s.startValue(a.Ref)
		startVals = append(startVals, strconv.FormatUint(uint64(v), 10))
	}
	for _, p := range s.points {
		if slices.Equal(s.values(p), startVals) && rankable(p) {
			return p, true
		}
	}
	return results.PointRecord{}, false
}

// bestLine says which point is best and how sure that is.
func (s *sweepTab) bestLine() string {
	b, ok := s.best()
	if !ok {
		return "best: none yet"
	}
	if s.ranking != nil {
		// Finished: the verdict's headline where it applies a change,
		// else its short form (two lines at 80 columns).
		v := s.ranking.Verdict
		say := v.Short()
		if v.Kind == rank.VerdictApply {
			say = v.Headline()
		}
		line := fmt.Sprintf("best: %s %s; %s", s.label(b), s.pointRate(b), say)
		if bb := s.ranking.Verdict.Bench; bb != nil {
			line += fmt.Sprintf("; faster, not permanent: %s", rank.SettingsString(bb.Settings))
		}
		return line
	}
	line := fmt.Sprintf("best: %s  %s  ", s.label(b), s.pointRate(b))
	if v := versus(b); v != "" {
		return line + v + " vs baseline"
	}
	if base, ok := s.baseline(); ok {
		if !base.Baseline && maps.Equal(base.Settings, b.Settings) {
			return line + "(the starting setting is best)"
		}
		if base.Baseline {
			return line + rank.Compare(b.Rates, base.Rates).String() + " vs baseline"
		}
		return line + rank.Compare(b.Rates, base.Rates).String() + " vs start"
	}
	good, _ := s.ranked()
	if len(good) > 1 {
		return line + rank.Compare(b.Rates, good[1].Rates).String() + " vs runner-up"
	}
	return line + "(only one point so far)"
}

// pointStatus says in words why a point is or is not ranked.
func pointStatus(p results.PointRecord) string {
	why := pointReason(p)
	switch p.Status {
	case rank.StatusCorrupt:
		return "CORRUPT: " + why
	case rank.StatusNotHeld, rank.StatusFailed, rank.StatusEliminated:
		return string(p.Status) + ": " + why
	}
	return "ok"
}

// pointReason says why the point is not ranked ("ITC wrote 0, read 1").
func pointReason(p results.PointRecord) string {
	if len(p.Changed) > 0 {
		return strings.Join(p.Changed, "; ") + " (" + p.Reason + ")"
	}
	return p.Reason
}

// fmtSpread renders the spread of xs: half their range relative to their
// median, in percent; or "1 run".
func fmtSpread(xs []float64) string {
	switch len(xs) {
	case 0:
		return "--"
	case 1:
		return "1 run"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	spread := 0.0
	if m := rank.Median(xs); m != 0 {
		spread = (hi - lo) / 2 / m * 100
	}
	return fmt.Sprintf("+-%.1f%%", spread)
}

// fmtRate renders rate r of unit as `citune sweep` and `report` do.
func (s *shared) fmtRate(r float64, unit string) string {
	return s.cfg.ByteUnit.Rate(r, unit)
}

// amount is what interrupts and CPU are counted per (MiB, MB, Mbit).
func (s *shared) amount() string { return s.cfg.ByteUnit.Amount() }
