package sweep

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

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

// adaptive races the grid's points in rounds; every round's visits are
// grouped by module-parameter value, in alternating order.
//
//  1. Screening: after the baseline, every point gets one run, without
//     warm-ups. With warm-ups in the plan that run is a screening run
//     (results.RunRecord.Screen): not among the point's rates, since it
//     was not measured as the plan asks; it only decides whether the
//     point races on. A warm-up per point here would cost a third of a
//     grid's runs (one warm-up and five runs per point) before the race
//     even starts. Without warm-ups in the plan the run counts.
//  2. The survivors are brought to about a third of Repeats (nextTarget;
//     the plan asks for 3 or more), then to Repeats.
//  3. Tie-break: when the ranking could not tell a survivor from the
//     leader, the leader and those survivors get Repeats runs more,
//     so that the winner is the faster one, not the one a tie rule
//     favours for want of runs.
//
// After every round a point is dropped as soon as it is significantly
// slower than the leader: its mean log rate is below the leader's by
// more than z·σ·√(1/n + 1/n_leader), where σ is the pooled run-to-run
// noise (baseline and every point with two runs or more) and z the
// one-sided normal quantile at raceAlpha split over the comparisons of
// the round (Bonferroni); the screening round also keeps at most the
// faster 1/screenKeep of its points (screenMin at least). During a
// visit after screening the same test, its rate split further over the
// visit's runs, ends the visit early once the point is behind the
// round's best point that already has the round's runs (behind), so a
// clearly slower point does not pay for the runs the race would drop it
// after. A point left alone goes straight to Repeats runs. The
// survivors are ranked like a grid's points (one whose last visit ended
// early but that the race kept may have fewer runs); the dropped ones
// are recorded as eliminated.
func (r *Runner) adaptive(ctx context.Context) error {
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
		alive = r.byReload(alive, round%2 == 1)
		r.alive, r.target = alive, target
		var next []*Point
		for _, p := range alive {
			if have := r.store.Runs(p.Key); have < target {
				var stop func([]float64) bool
				if round > 0 {
					stop = r.behind(p, alive, target, target-have)
				}
				st, err := r.visit(ctx, p, target-have, round == 0, stop)
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
			most = max((len(next)+screenKeep-1)/screenKeep, min(len(next), screenMin))
		}
		alive = r.race(next, most)
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

// raceRounds is the most rounds an adaptive race takes: screening, the
// steps of nextTarget, and the tie-break.
func raceRounds(repeats int) int {
	rounds := 1
	for t := 0; t < repeats; rounds++ {
		t = nextTarget(t, repeats)
	}
	return rounds
}

// tiedWithLeader is the leader (alive[0], as race orders them) and the
// points the ranking would not tell from it, or nil when there are none
// (rank.Compare, as rank.Rank calls it).
func (r *Runner) tiedWithLeader(alive []*Point) []*Point {
	if len(alive) < 2 {
		return nil
	}
	lead := r.store.Point(alive[0].Key).Rates
	out := []*Point{alive[0]}
	for _, p := range alive[1:] {
		c := rank.Compare(r.store.Point(p.Key).Rates, lead, rank.Confidence, p.Key+"|"+alive[0].Key)
		if !c.Significant {
			out = append(out, p)
		}
	}
	if len(out) < 2 {
		return nil
	}
	return out
}

// behind returns the stop test of a visit of p that brings it to
// target runs with n more: true once p's mean log rate, over its
// earlier runs and the visit's so far, is below the best of the round's
// points that already have target runs by more than the race allows,
// with the race's family-wise rate split further over the visit's n
// looks. Nil when no point has target runs yet.
func (r *Runner) behind(p *Point, alive []*Point, target, n int) func([]float64) bool {
	var lead []float64
	best := math.Inf(-1)
	for _, q := range alive {
		if q == p || r.store.Point(q.Key) == nil {
			continue
		}
		rates := r.store.Point(q.Key).Rates
		if len(rates) < target {
			continue
		}
		if m, _ := rank.LogStats(rates); m > best {
			best, lead = m, rates
		}
	}
	if lead == nil || len(alive) < 2 {
		return nil
	}
	var prev []float64
	if ps := r.store.Point(p.Key); ps != nil {
		prev = ps.Rates
	}
	z := rank.NormalQuantile(1 - raceAlpha/float64(len(alive)-1)/float64(n))
	return func(rates []float64) bool {
		sigma, _ := r.store.PooledLogSD()
		if math.IsNaN(sigma) {
			return false
		}
		sigma = max(sigma, minNoise)
		all := append(slices.Clone(prev), rates...)
		m, _ := rank.LogStats(all)
		se := sigma * math.Sqrt(1/float64(len(all))+1/float64(len(lead)))
		return best-m > z*se
	}
}

// race drops the points significantly slower than the leader and, when
// most is set and more than most points survive that, the slower ones
// beyond most (the screening round's cut).
func (r *Runner) race(alive []*Point, most int) []*Point {
	if len(alive) < 2 {
		return alive
	}
	sigma, _ := r.store.PooledLogSD()
	if math.IsNaN(sigma) {
		return alive
	}
	sigma = max(sigma, minNoise)
	type cand struct {
		p    *Point
		mean float64
		n    int
	}
	cs := make([]cand, 0, len(alive))
	for _, p := range alive {
		rates := r.store.Point(p.Key).Rates
		if len(rates) == 0 {
			rates = r.store.Screened(p.Key)
		}
		m, _ := rank.LogStats(rates)
		cs = append(cs, cand{p, m, len(rates)})
	}
	// Leader first; ties keep the shuffled order.
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(b.mean, a.mean) })
	L := cs[0]
	leader := rank.SettingsString(r.settings(L.p))
	z := rank.NormalQuantile(1 - raceAlpha/float64(len(cs)-1))
	drop := func(c cand, msg string) {
		r.store.Eliminate(c.p.Key, msg)
		_, replayed := r.elimDone[c.p.Key]
		r.emit(Event{Kind: PointEliminated, Point: c.p.Key, Settings: r.settings(c.p), Message: msg, Replayed: replayed})
	}
	out := []*Point{L.p}
	var rest []cand
	for _, c := range cs[1:] {
		se := sigma * math.Sqrt(1/float64(c.n)+1/float64(L.n))
		diff := L.mean - c.mean
		if diff <= z*se {
			rest = append(rest, c)
			continue
		}
		drop(c, fmt.Sprintf("after %d run(s): %.1f %% below the leader %s (%d runs), beyond the %.1f %% that noise explains (%.1f %% per run, %.0f %% family-wise)",
			c.n, (1-math.Exp(-diff))*100, leader, L.n, (1-math.Exp(-z*se))*100, sigma*100, raceAlpha*100))
	}
	keep := len(rest)
	if most > 0 && keep > most-1 {
		keep = most - 1
	}
	for i, c := range rest {
		if i < keep {
			out = append(out, c.p)
			continue
		}
		drop(c, fmt.Sprintf("after %d run(s): %.1f %% below the leader %s, not among the %d fastest of the %d points screened",
			c.n, (1-math.Exp(-(L.mean-c.mean)))*100, leader, most, len(cs)))
	}
	return out
}
