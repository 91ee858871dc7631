package sweep

import (
	"fmt"
	"math"

	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// This file holds the sweep's fixed costs and how the data decide them
// (issue 28: on a 12-point sweep baseline visits took 18 % of the board's
// time, warm-ups 13 %):
//
//   - Baseline visits by drift: after every baseline visit between points
//     the last two are compared (t on their mean log rates with the pooled
//     noise, at driftAlpha). Where they agree the interval to the next
//     doubles (to baselineMost × BaselineEvery), where they differ it
//     halves (to BaselineEvery/4), so a steady board is measured rarely
//     and a drifting one often enough for the verdict's between-visit term
//     (three visits at least, rank.VisitNoiseOf).
//   - Warm-ups by a first-run effect: every visit's first run is compared
//     with its others, pooled over the visits. Once firstRunVisits visits
//     show the effect's 95 % interval inside ± Repeats × MinGain / 2 (it
//     moves a mean by under half the least gain), warm-ups are skipped,
//     until a later first run moves the interval out. A warm-up hashes
//     every byte of a read, which may make it slower: that reads as an
//     effect and keeps the warm-ups, the conservative side.
//
// Each decision is an event; both decide from the closed visits alone, so
// a resumed sweep replays them to the same schedule.

const (
	driftAlpha     = 0.05
	baselineMost   = 4
	firstRunVisits = 3
)

// firstRun is one visit's first run against its others: d the
// difference of ln(first) from the others' mean log, m their number.
type firstRun struct {
	d float64
	m int
}

// noteFirstRun records a closed visit's first run against its others
// and decides the warm-ups again (a "warmups" event when that changes).
func (r *state) noteFirstRun(rec results.PointRecord, runs []results.RunRecord, replayed bool) error {
	if r.FixedCosts || r.Plan.Warmup == 0 || rec.Status != rank.StatusOK {
		return nil
	}
	var first float64
	var rest []float64
	for _, rr := range runs {
		if rr.Screen || rr.Error != "" || !rr.Held || rr.Run.Corrupt || !(rr.Run.Rate > 0) {
			return nil // a screening visit, or one whose runs are not all usable
		}
		switch {
		case first == 0:
			first = rr.Run.Rate
		case !rr.Warmup:
			rest = append(rest, rr.Run.Rate)
		default:
			continue // a second warm-up: the first is the first run
		}
	}
	if len(rest) == 0 {
		return nil
	}
	m, _ := rank.LogStats(rest)
	r.firstRuns = append(r.firstRuns, firstRun{d: math.Log(first) - m, m: len(rest)})
	if ps := r.store.Point(rec.Point); r.Plan.Mode == plan.ModeModel && ps != nil && ps.Visits == 1 && !rec.Baseline {
		// The point's screening runs were first runs too (no warm-up):
		// each is another look at the effect, once (a later visit no
		// longer has Visits 1); the race decides from its own visits.
		for _, v := range r.store.Screened(rec.Point) {
			if v > 0 {
				r.firstRuns = append(r.firstRuns, firstRun{d: math.Log(v) - m, m: len(rest)})
			}
		}
	}
	skip, why := r.firstRunEffect()
	if skip == r.warmSkip {
		return nil
	}
	r.warmSkip = skip
	return r.emit(event.Event{Kind: event.WarmupsDecided, Message: why, Replayed: replayed})
}

// firstRunEffect says whether the visits so far show no first-run
// effect that matters (skip the warm-ups), and why.
func (r *state) firstRunEffect() (skip bool, why string) {
	sigma, dof := r.store.PooledLogSD()
	if len(r.firstRuns) < firstRunVisits || math.IsNaN(sigma) || dof < 2 {
		return false, ""
	}
	sw, swd := 0.0, 0.0
	for _, f := range r.firstRuns {
		w := 1 / (1 + 1/float64(f.m)) // var(d) = σ²(1 + 1/m)
		sw += w
		swd += w * f.d
	}
	d := swd / sw
	half := rank.TQuantile(1-(1-rank.Confidence)/2, dof) * sigma / math.Sqrt(sw)
	bound := math.Log1p(float64(r.Plan.Repeats) * r.Plan.MinGainPct() / 200)
	effect := fmt.Sprintf("the first run of %d visits is %+.1f %% from their other runs (95 %% CI %+.1f to %+.1f %%)",
		len(r.firstRuns), 100*math.Expm1(d), 100*math.Expm1(d-half), 100*math.Expm1(d+half))
	if math.Abs(d)+half < bound {
		return true, fmt.Sprintf("warm-ups skipped: %s, inside ±%.1f %% (it would move a point's mean by under half the %.1f %% least gain)", effect, 100*math.Expm1(bound), r.Plan.MinGainPct())
	}
	return false, fmt.Sprintf("warm-ups again: %s, not inside ±%.1f %%", effect, 100*math.Expm1(bound))
}

// reschedule decides the interval to the next baseline visit after the
// baseline visit at r.sched[k] (not the first nor the last) and plans
// the visits after it again.
func (r *state) reschedule(k int) error {
	if r.FixedCosts || r.Plan.BaselineEvery == 0 {
		return nil
	}
	if r.every == 0 {
		r.every = r.Plan.BaselineEvery
	}
	vs := r.store.BaselineVisits()
	sigma, dof := r.store.PooledLogSD()
	if len(vs) < 2 || math.IsNaN(sigma) || dof < 1 || !(sigma > 0) {
		return nil
	}
	a, b := vs[len(vs)-2], vs[len(vs)-1]
	ma, _ := rank.LogStats(a)
	mb, _ := rank.LogStats(b)
	t := (mb - ma) / (sigma * math.Sqrt(1/float64(len(a))+1/float64(len(b))))
	p := 2 * (1 - rank.TCDF(math.Abs(t), float64(dof)))
	was := r.every
	what := "agree"
	if p < driftAlpha {
		what = "differ"
		r.every = max(r.every/2, r.Plan.BaselineEvery/4, 1)
	} else {
		r.every = min(2*r.every, baselineMost*r.Plan.BaselineEvery)
	}
	done := 0
	for _, p := range r.sched[:k+1] {
		if !p.Baseline {
			done++
		}
	}
	tail, _ := r.scheduleFrom(r.modKey(r.orig), r.points[done:], r.every)
	r.sched = append(r.sched[:k+1:k+1], tail...)
	r.planned = len(r.sched)
	msg := fmt.Sprintf("baseline: visits %d and %d %s (%+.1f %%, p %.2f against the run noise): next visit after %d points", len(vs)-1, len(vs), what, 100*math.Expm1(mb-ma), p, r.every)
	if r.every == was {
		msg += " (as before)"
	}
	_, replayed := r.resumed[r.visitSeq]
	return r.emit(event.Event{Kind: event.BaselineScheduled, Message: msg, Replayed: replayed})
}
