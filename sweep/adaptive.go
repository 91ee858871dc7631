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

// adaptive races the grid's points. After the baseline, every point gets
// one run; then, round by round, the surviving points get more runs
// (up to about half of Repeats, then Repeats) and a point is dropped as
// soon as it is
// significantly slower than the leader: its mean log rate is below the
// leader's by more than z·σ·√(1/n + 1/n_leader), where σ is the pooled
// run-to-run noise (baseline and every point with two runs or more) and
// z the one-sided normal quantile at raceAlpha split over the
// comparisons of the round (Bonferroni); and, while the survivors have
// fewer than Repeats runs, a round keeps at most the faster half of its
// points (successive halving). The survivors end with Repeats runs each
// and are ranked like a grid's points; the dropped ones are recorded as
// eliminated.
func (r *Runner) adaptive(ctx context.Context) error {
	alive := slices.Clone(r.points)
	if _, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats); err != nil {
		return err
	}
	target := 0
	for round := 0; len(alive) > 0; round++ {
		target = nextTarget(target, r.Plan.Repeats)
		// Grouped by module-parameter value, every other round in the
		// opposite order: one reload per value and round at most.
		alive = r.byReload(alive, round%2 == 1)
		r.alive, r.target = alive, target
		var next []*Point
		for _, p := range alive {
			if have := r.store.Runs(p.Key); have < target {
				st, err := r.visit(ctx, p, target-have)
				if err != nil {
					return err
				}
				if st != rank.StatusOK {
					continue
				}
			}
			next = append(next, p)
		}
		alive = r.race(next, target < r.Plan.Repeats)
		done := true
		for _, p := range alive {
			if r.store.Runs(p.Key) < r.Plan.Repeats {
				done = false
			}
		}
		if done {
			break
		}
	}
	_, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats)
	return err
}

// nextTarget is the number of runs every surviving point has after the
// next round: 1, then about half of repeats, then repeats (1, 3, 5 for
// 5). Few rounds keep the visits (each with its warm-ups) few.
func nextTarget(cur, repeats int) int {
	if cur == 0 {
		return 1
	}
	half := (repeats + 1) / 2
	if cur < half && half > 1 {
		return half
	}
	return repeats
}

// race drops the points significantly slower than the leader and, when
// halve is set and more than half of the points survive that, the slower
// half of the rest (successive halving).
func (r *Runner) race(alive []*Point, halve bool) []*Point {
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
	if half := (len(cs)+1)/2 - 1; halve && keep > half {
		keep = half
	}
	for i, c := range rest {
		if i < keep {
			out = append(out, c.p)
			continue
		}
		drop(c, fmt.Sprintf("after %d run(s): %.1f %% below the leader %s, in the slower half of the %d points of this round (successive halving)",
			c.n, (1-math.Exp(-(L.mean-c.mean)))*100, leader, len(cs)))
	}
	return out
}
