package tui

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/rank"
)

// label names a point by its axis values.
func (s sweepState) label(p SweepPoint, m *regs.Map) string {
	if p.Baseline {
		return "baseline"
	}
	var parts []string
	for i, a := range s.plan.Axes {
		if i < len(p.Values) && p.Values[i] != "" {
			parts = append(parts, axisLabel(m, a)+"="+p.Values[i])
		}
	}
	return strings.Join(parts, " ")
}

// ranked splits points into the ranked ones sorted by median rate and the
// rest (not held, corrupt, failed, eliminated), baselines left out.
func (s sweepState) ranked() (good, bad []SweepPoint) {
	for _, p := range s.points {
		switch {
		case p.Baseline:
		case p.Ranked():
			good = append(good, p)
		default:
			bad = append(bad, p)
		}
	}
	sort.SliceStable(good, func(i, j int) bool { return median(good[i].Rates) > median(good[j].Rates) })
	if s.bestVals != nil {
		for i, p := range good {
			if sameValues(p.Values, s.bestVals) {
				good = append(append([]SweepPoint{p}, good[:i]...), good[i+1:]...)
				break
			}
		}
	}
	return good, bad
}

func (s sweepState) best() (SweepPoint, bool) {
	good, _ := s.ranked()
	if len(good) == 0 {
		return SweepPoint{}, false
	}
	return good[0], true
}

// baseline is every baseline measurement pooled, or the point whose
// values are the starting ones.
func (m Model) baseline() (SweepPoint, bool) {
	s := m.sweep
	var pooled SweepPoint
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
			return SweepPoint{}, false
		}
		v := m.startValue(a.Ref)
		startVals = append(startVals, strconv.FormatUint(uint64(v), 10))
	}
	for _, p := range s.points {
		if sameValues(p.Values, startVals) && p.Ranked() {
			return p, true
		}
	}
	return SweepPoint{}, false
}

// bestLine says which point is best and how sure that is.
func (m Model) bestLine() string {
	s := m.sweep
	b, ok := s.best()
	if !ok {
		return "best: none yet"
	}
	line := fmt.Sprintf("best: %s  %s  ", s.label(b, m.m), fmtRate(median(b.Rates)))
	if b.Versus != "" {
		return line + b.Versus + " vs baseline"
	}
	if base, ok := m.baseline(); ok {
		if !base.Baseline && sameValues(base.Values, b.Values) {
			return line + "(the starting setting is best)"
		}
		if base.Baseline {
			return line + compare(base.Rates, b.Rates).String() + " vs baseline"
		}
		return line + compare(base.Rates, b.Rates).String() + " vs start"
	}
	good, _ := s.ranked()
	if len(good) > 1 {
		c := compare(good[1].Rates, b.Rates)
		return line + c.String() + " vs runner-up"
	}
	return line + "(only one point so far)"
}

// pointStatus says in words why a point is or is not ranked.
func pointStatus(p SweepPoint) string {
	switch p.Status {
	case rank.StatusCorrupt:
		return "CORRUPT: " + p.Reason
	case rank.StatusNotHeld, rank.StatusFailed, rank.StatusEliminated:
		return string(p.Status) + ": " + p.Reason
	}
	return "ok"
}
