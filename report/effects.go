package report

import (
	"math"
	"sort"
	"strings"

	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
)

// Effect is one axis on its own: the rate at each of its values.
type Effect struct {
	Axis   Axis
	Values []EffectValue
	// Spread is the largest minus the smallest value's Pct (percentage
	// points of the baseline); the axes are sorted by it.
	Spread float64
	// How says how the values were summarised.
	How string
}

// EffectValue is the rate at one value of an axis.
type EffectValue struct {
	Value string
	// Points is the number of measured points with this value (ranked
	// or eliminated by the adaptive race); 0 with
	// Baseline set means the baseline stands for it (one factor at a
	// time: the original value).
	Points   int
	Baseline bool
	// Median is the median of those points' medians, Pct it against
	// the baseline's median.
	Median, Pct            float64
	HasPct, Original, Best bool
}

// Effects summarises each axis on its own. A grid (or adaptive race)
// gives each value the median over every ranked point with that value,
// whatever the other axes were; one factor at a time gives each value
// the points that changed only that axis from the original settings,
// and the original value the baseline.
func (s *Sweep) Effects() []Effect {
	var out []Effect
	for _, a := range s.Axes {
		e := Effect{Axis: a, How: "median over the measured points with that value"}
		if s.Plan.Mode == plan.ModeOFAT {
			e.How = "the points that changed this axis alone; the original value is the baseline"
		}
		byVal := map[string][]float64{}
		for _, p := range s.measured() {
			if len(p.Rates) == 0 {
				continue
			}
			v, ok := p.Settings[a.Name]
			if !ok {
				continue
			}
			if s.Plan.Mode == plan.ModeOFAT && !s.varies(p, a) {
				continue
			}
			byVal[v] = append(byVal[v], p.Median)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range a.Values {
			ev := EffectValue{Value: v, Original: v == a.Original}
			meds := byVal[v]
			switch {
			case len(meds) > 0:
				ev.Points = len(meds)
				ev.Median = rank.Median(meds)
			case s.Plan.Mode == plan.ModeOFAT && ev.Original && s.Baseline != nil:
				ev.Baseline = true
				ev.Median = s.Baseline.Median
			default:
				e.Values = append(e.Values, ev)
				continue
			}
			if s.Baseline != nil && s.Baseline.Median > 0 {
				ev.Pct = (ev.Median/s.Baseline.Median - 1) * 100
				ev.HasPct = true
				lo, hi = math.Min(lo, ev.Pct), math.Max(hi, ev.Pct)
			}
			e.Values = append(e.Values, ev)
		}
		best := -1
		for i, ev := range e.Values {
			if (ev.Points > 0 || ev.Baseline) && (best < 0 || ev.Median > e.Values[best].Median) {
				best = i
			}
		}
		if best >= 0 {
			e.Values[best].Best = true
		}
		if hi >= lo {
			e.Spread = hi - lo
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Spread > out[j].Spread })
	return out
}

// varies reports whether p changed axis a for its own sake, not as another
// axis's condition ("AHBBRST=0 so that TXPBURST takes effect").
func (s *Sweep) varies(p *Point, a Axis) bool {
	v := p.Settings[a.Name]
	if v == a.Original {
		return false
	}
	if strings.Contains(p.Note, a.Label+"="+v+" so that") {
		return false
	}
	return true
}
