package sweep

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/rank"
)

// raceAlpha is the family-wise error rate of one elimination round: the
// chance of dropping a point that is in fact as good as the leader.
const raceAlpha = 0.05

// minNoise bounds the noise estimate from below (a deterministic probe
// would otherwise make every last digit significant).
const minNoise = 0.002

// screenKeep is the share of the points the screening round keeps at
// most (1/screenKeep, rounded up): the faster ones of their one run.
// Decision (bench/adaptive.sh, seeds 1-10, 0 to 2 warm-ups): a quarter
// always held the grid's winner at 2 % noise; the race's own test alone
// keeps every point within about 8 % of the leader's one run, which
// costs a survivor two visits more.
const screenKeep = 4

// screenMin is the fewest points the screening cut keeps: in a small
// sweep one run per point is too little to pick one or two of a few.
const screenMin = 4

// screenCut is the most points the screening round keeps of n.
func screenCut(n int) int {
	return max((n+screenKeep-1)/screenKeep, min(n, screenMin))
}

// adaptive races the grid's points in rounds, each round's visits
// grouped by module-parameter value in alternating order:
//
//  1. Screening: after the baseline, one run per point without warm-ups.
//     With warm-ups in the plan it is a screening run (RunRecord.Screen),
//     not among the point's rates; it only decides whether the point races
//     on (a warm-up per point here would cost a third of a grid's runs
//     before the race starts).
//  2. The survivors go to nextTarget's steps, then Repeats; the round's
//     leader, visited first, goes straight to Repeats (the others race
//     against its runs anyway, and a visit fewer saves its warm-ups).
//  3. Tie-break: the points the ranking cannot tell from its fastest get
//     Repeats runs more (tiedWithLeader), the fastest last, so that the
//     winner is the faster one where runs can tell, not the one a tie
//     rule favours for want of runs.
//
// Every visit fits the budget (budget.go); when not one run fits, the race
// ends, the points still in it ranked on their runs (OutOfBudget).
//
// After every round a point is dropped once its mean log rate is below the
// leader's by more than t·σ·√(1/n + 1/n_leader): σ the pooled run noise, t
// Student's one-sided quantile on σ's degrees of freedom (early σ comes
// from the baseline's runs alone; the normal quantile, taking σ as exact,
// let an estimate of half the true noise drop points tied with the winner)
// at raceAlpha split over the round's comparisons (race). Before and during
// a visit the same test, split further over those looks, drops the point or
// ends the visit early (behind). The survivors are ranked like a grid's
// points; the dropped ones are recorded as eliminated.
func (r *state) adaptive(ctx context.Context) error {
	alive := slices.Clone(r.points)
	if _, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats, false, nil); err != nil {
		return err
	}
	target := 0
	for round := 0; len(alive) > 0; round++ {
		switch {
		case target >= r.Plan.Repeats:
			// The tie-break round, or the end.
			alive = r.tiedWithLeader(alive)
			if len(alive) < 2 || target > r.Plan.Repeats {
				alive = nil
				break
			}
			target = 2 * r.Plan.Repeats
		case round > 0 && len(alive) == 1:
			target = r.Plan.Repeats
		default:
			target = nextTarget(target, r.Plan.Repeats)
		}
		if len(alive) == 0 {
			break
		}
		// In the tie-break round the leader comes after the points tied
		// with it: when none of them is left in contention its own visit
		// is not needed.
		var lead, first *Point
		if target > r.Plan.Repeats {
			lead = alive[0]
			alive = append(slices.Clone(alive[1:]), lead)
		} else if round > 0 {
			first = alive[0]
		}
		alive = r.byReload(alive, round%2 == 1)
		r.alive, r.target = alive, target
		var next []*Point
		spentOut := false
		for i, p := range alive {
			if spentOut {
				next = append(next, p)
				continue
			}
			if p == lead && i > 0 {
				next = r.race(append(next, p), 0)
				if !slices.Contains(next, p) {
					continue // a challenger overtook it significantly
				}
				next = slices.DeleteFunc(next, func(q *Point) bool { return q == p })
				if len(next) == 0 && i == len(alive)-1 {
					next = append(next, p) // no tie left to break
					continue
				}
			}
			want := target
			if p == first && i == 0 {
				want = r.Plan.Repeats
			}
			if have := r.store.Runs(p.Key); have < want {
				n := r.fit(r.warmups(round == 0), want-have)
				if n == 0 {
					spentOut = true
					next = append(next, p)
					continue
				}
				var stop func([]float64) bool
				if round > 0 && p != first {
					// One look before the visit, on what p has so far
					// (its runs, or its screening run), and one after
					// every run of it.
					looks := n + 1
					if behind := r.behind(p, alive, min(target, r.Plan.Repeats), looks); behind != nil {
						if out, msg := behind(nil); out {
							r.drop(p, msg)
							continue
						}
						stop = func(rates []float64) bool { out, _ := behind(rates); return out }
					}
				}
				st, err := r.visit(ctx, p, n, round == 0, stop)
				if err != nil {
					return err
				}
				if st != rank.StatusOK {
					continue
				}
			}
			next = append(next, p)
		}
		most := 0
		if round == 0 {
			most = screenCut(len(next))
		}
		alive = r.race(next, most)
		if spentOut {
			// The points still racing are ranked on their runs; one
			// with none counted (only its screening run) cannot be.
			for _, p := range alive {
				if r.store.Runs(p.Key) == 0 {
					r.drop(p, fmt.Sprintf("not measured: the race's budget (%d probe runs) ran out before its runs after screening", r.budget))
				} else {
					r.outOfBudget++
				}
			}
			alive = nil
		}
	}
	r.alive = nil
	_, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats, false, nil)
	return err
}

// nextTarget is the number of runs every surviving point has after the
// next round: 1 (screening), then about a third of repeats but at least
// 2, then repeats (1, 2, 5 for 5). Few rounds keep the visits (each
// with its warm-ups) few; a low second target lets the race drop the
// clearly slower survivors cheaply.
func nextTarget(cur, repeats int) int {
	if cur == 0 {
		return 1
	}
	if second := max(2, (repeats+2)/3); cur < second && second < repeats {
		return second
	}
	return repeats
}

// roundsAfter is the rounds still to come in an adaptive race whose
// points have target runs, the tie-break not counted (roundsAfter(0,
// repeats)+1 is the most a race takes: screening, nextTarget's steps and
// the tie-break).
func roundsAfter(target, repeats int) int {
	rounds := 0
	for t := target; t < repeats; rounds++ {
		t = nextTarget(t, repeats)
	}
	return rounds
}

// tiedWithLeader is the points the tie-break round measures again: the
// fastest (highest median in store.Rank) first, then every point tied
// with it; nil when there is no tie to break. Decision: an earlier rule
// measured only the tied points the tie rules put ahead of the fastest
// (cheaper in a field of near-equal points, bench/adaptive.sh scenario
// 1); the budget now bounds that cost, and the narrow rule kept a point
// the grid found 4 % slower on a noisy median (scenario 2, seed 20 at 2
// warm-ups).
func (r *state) tiedWithLeader(alive []*Point) []*Point {
	if len(alive) < 2 {
		return nil
	}
	rk := r.store.Rank()
	fastest := -1
	for i, p := range rk.Ranked {
		if fastest < 0 || p.Median > rk.Ranked[fastest].Median {
			fastest = i
		}
	}
	if fastest < 0 || !rk.Ranked[fastest].Tied {
		return nil
	}
	byKey := map[string]*Point{}
	for _, p := range alive {
		byKey[p.Key] = p
	}
	out := []*Point{byKey[rk.Ranked[fastest].Key]}
	for i, x := range rk.Ranked {
		if i != fastest && x.Tied {
			out = append(out, byKey[x.Key])
		}
	}
	if slices.Contains(out, nil) {
		return nil // not a point of this race (cannot happen)
	}
	return out
}

// behind returns the stop test of a visit of p bringing it up to n-1 runs
// further, and why: true once p's mean log rate (its earlier runs, else
// its screening run, and the visit's so far) is below the best of the
// round's points with target runs by more than the race allows, its rate
// split further over n looks (one before the visit, one after each run).
// Nil when no point has target runs yet.
//
// The look before the visit saves most: after screening, t on the
// baseline's few degrees of freedom keeps points 15 to 20 % behind the
// leader's one run (bench/adaptive.sh, 2 % noise); once the leader has
// its Repeats runs, a survivor clearly behind is dropped without the
// visit (its warm-ups and a run) that would only confirm it.
func (r *state) behind(p *Point, alive []*Point, target, n int) func([]float64) (bool, string) {
	var lead []float64
	var leadPoint *Point
	best := math.Inf(-1)
	perm := r.anyPermanent(alive)
	for _, q := range alive {
		if q == p || r.store.Point(q.Key) == nil || perm && !r.permanent(q) {
			continue
		}
		rates := r.store.Point(q.Key).Rates
		if len(rates) < target {
			continue
		}
		if m, _ := rank.LogStats(rates); m > best {
			best, lead, leadPoint = m, rates, q
		}
	}
	if lead == nil || len(alive) < 2 {
		return nil
	}
	prev := r.store.Rates(p.Key)
	screened := len(prev) == 0
	if screened {
		prev = r.store.Screened(p.Key)
	}
	q := 1 - raceAlpha/float64(len(alive)-1)/float64(n)
	leader := rank.SettingsString(r.settings(leadPoint))
	return func(rates []float64) (bool, string) {
		sigma, dof, ok := r.noise()
		if !ok {
			return false, ""
		}
		t := rank.TQuantile(q, dof)
		all := prev
		if len(rates) > 0 {
			all = rates
			if !screened {
				all = append(slices.Clone(prev), rates...)
			}
		}
		if len(all) == 0 {
			return false, ""
		}
		m, _ := rank.LogStats(all)
		se := sigma * math.Sqrt(1/float64(len(all))+1/float64(len(lead)))
		if best-m <= t*se {
			return false, ""
		}
		what := fmt.Sprintf("after %d run(s)", len(all))
		if len(rates) == 0 && screened {
			what = "after its screening run"
		}
		return true, fmt.Sprintf("%s: %.1f %% below the leader %s (%d runs), beyond the %.1f %% that noise explains (%.1f %% per run, %.0f %% family-wise)",
			what, (1-math.Exp(-(best-m)))*100, leader, len(lead), (1-math.Exp(-t*se))*100, sigma*100, raceAlpha*100)
	}
}

// noise is the pooled run noise of ln(rate), at least minNoise, and its
// degrees of freedom; ok is false before any point has two runs.
func (r *state) noise() (sigma float64, dof int, ok bool) {
	sigma, dof = r.store.PooledLogSD()
	if math.IsNaN(sigma) {
		return minNoise, dof, false
	}
	return max(sigma, minNoise), dof, true
}

// drop records p as eliminated by the race, with why.
func (r *state) drop(p *Point, why string) {
	r.store.Eliminate(p.Key, why)
	_, replayed := r.elimDone[p.Key]
	r.emit(event.Event{Kind: event.PointEliminated, Point: p.Key, Settings: r.settings(p), Message: why, Replayed: replayed})
}

// race drops the points significantly slower than the leader and, when
// most is set and more than most points survive that, the slower ones
// beyond most (the screening round's cut).
func (r *state) race(alive []*Point, most int) []*Point {
	if len(alive) < 2 {
		return alive
	}
	sigma, dof, ok := r.noise()
	if !ok {
		return alive
	}
	type cand struct {
		p    *Point
		mean float64
		n    int
	}
	cs := make([]cand, 0, len(alive))
	for _, p := range alive {
		rates := r.store.Rates(p.Key)
		if len(rates) == 0 {
			rates = r.store.Screened(p.Key)
		}
		m, _ := rank.LogStats(rates)
		cs = append(cs, cand{p, m, len(rates)})
	}
	// Fastest first; ties keep the shuffled order. The leader is the
	// fastest point the verdict could recommend (every change can be made
	// permanent) where there is one.
	sort.SliceStable(cs, func(i, j int) bool { return cmp.Less(cs[j].mean, cs[i].mean) })
	li := 0
	if r.anyPermanent(alive) {
		li = slices.IndexFunc(cs, func(c cand) bool { return r.permanent(c.p) })
	}
	L := cs[li]
	if li > 0 {
		// The verdict could never recommend them: no more runs for them.
		for _, c := range cs[:li] {
			r.drop(c.p, fmt.Sprintf("after %d run(s): %.1f %% ahead of the fastest point that can be made permanent, %s, but it cannot be made permanent (%s): not raced further",
				c.n, (math.Exp(c.mean-L.mean)-1)*100, rank.SettingsString(r.settings(L.p)), strings.Join(r.policy.NotPermanent(r.changes(c.p)), "; ")))
		}
		cs = cs[li:]
		li = 0
	}
	leader := rank.SettingsString(r.settings(L.p))
	// After screening, Holm's step-down (the k-th comparison by evidence
	// at raceAlpha/(m-k), until one is not significant): the family-wise
	// rate of Bonferroni, but once the clearly slower points are out the
	// rest share it among fewer comparisons (survivors 4 to 7 % behind
	// after two runs at 2 % noise each paid a visit to be dropped a round
	// later). Screening keeps Bonferroni (most > 0): its leader is the
	// best single run of every point, ahead of its mean by about
	// σ·√(2 ln m), which the last steps of Holm's ladder would not cover.
	se := func(c cand) float64 { return sigma * math.Sqrt(1/float64(c.n)+1/float64(L.n)) }
	others := slices.Delete(slices.Clone(cs), li, li+1)
	sort.SliceStable(others, func(i, j int) bool {
		return cmp.Less((L.mean-others[j].mean)/se(others[j]), (L.mean-others[i].mean)/se(others[i]))
	})
	dropped := map[*Point]bool{}
	for k, c := range others {
		m := len(others)
		if most == 0 {
			m -= k
		}
		zk := rank.TQuantile(1-raceAlpha/float64(m), dof)
		diff := L.mean - c.mean
		if diff <= zk*se(c) {
			break
		}
		dropped[c.p] = true
		r.drop(c.p, fmt.Sprintf("after %d run(s): %.1f %% below the leader %s (%d runs), beyond the %.1f %% that noise explains (%.1f %% per run, %.0f %% family-wise)",
			c.n, (1-math.Exp(-diff))*100, leader, L.n, (1-math.Exp(-zk*se(c)))*100, sigma*100, raceAlpha*100))
	}
	out := []*Point{L.p}
	rest := slices.DeleteFunc(others, func(c cand) bool { return dropped[c.p] })
	sort.SliceStable(rest, func(i, j int) bool { return cmp.Less(rest[j].mean, rest[i].mean) })
	keep := len(rest)
	if most > 0 && keep > most-1 {
		keep = most - 1
	}
	for i, c := range rest {
		if i < keep {
			out = append(out, c.p)
			continue
		}
		r.drop(c.p, fmt.Sprintf("after %d run(s): %.1f %% below the leader %s, not among the %d fastest of the %d points screened",
			c.n, (1-math.Exp(-(L.mean-c.mean)))*100, leader, most, len(cs)))
	}
	return out
}

// permanent reports whether every change p makes from the original
// settings can be made permanent (the verdict's rule, Policy.NotPermanent).
func (r *state) permanent(p *Point) bool {
	if r.policy.NotPermanent == nil {
		return true
	}
	return len(r.policy.NotPermanent(r.changes(p))) == 0
}

// changes are the settings p changes from the original ones.
func (r *state) changes(p *Point) map[string]string {
	ch := map[string]string{}
	for i, a := range r.axes {
		if p.Values[i] != r.orig[i] {
			ch[a.Name] = p.Values[i]
		}
	}
	return ch
}

func (r *state) anyPermanent(pts []*Point) bool {
	return slices.ContainsFunc(pts, r.permanent)
}
