package sweep

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// raceAlpha is the family-wise error rate of one elimination round: the
// chance of dropping a point that is in fact as good as the leader.
const raceAlpha = 0.05

// minNoise bounds the noise estimate from below (a deterministic probe
// would otherwise make every last digit significant).
const minNoise = 0.002

// adaptive races the grid's points. After the baseline, every point gets
// one run; then, round by round, the surviving points get more runs
// (doubling up to Repeats) and a point is dropped as soon as it is
// significantly slower than the leader: its mean log rate is below the
// leader's by more than z·σ·√(1/n + 1/n_leader), where σ is the pooled
// run-to-run noise (baseline and every point with two runs or more) and
// z the one-sided normal quantile at raceAlpha split over the
// comparisons of the round (Bonferroni). The survivors end with Repeats
// runs each and are ranked like a grid's points; the dropped ones are
// recorded as eliminated.
func (r *Runner) adaptive(ctx context.Context) error {
	alive := slices.Clone(r.points)
	if _, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats); err != nil {
		return err
	}
	for round := 0; len(alive) > 0; round++ {
		target := min(r.Plan.Repeats, 1<<round)
		var next []*Point
		for _, p := range alive {
			if have := r.store.runs(p.Key); have < target {
				st, err := r.visit(ctx, p, target-have)
				if err != nil {
					return err
				}
				if st != StatusOK {
					continue
				}
			}
			next = append(next, p)
		}
		alive = r.race(next)
		done := true
		for _, p := range alive {
			if r.store.runs(p.Key) < r.Plan.Repeats {
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

// race drops the points significantly slower than the leader.
func (r *Runner) race(alive []*Point) []*Point {
	if len(alive) < 2 {
		return alive
	}
	sigma, _ := r.store.pooledLogSD()
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
	lead := -1
	for _, p := range alive {
		rates := r.store.pts[p.Key].Rates
		m, _ := logStats(rates)
		cs = append(cs, cand{p, m, len(rates)})
		if lead < 0 || m > cs[lead].mean {
			lead = len(cs) - 1
		}
	}
	L := cs[lead]
	z := normalQuantile(1 - raceAlpha/float64(len(cs)-1))
	var out []*Point
	for i, c := range cs {
		if i == lead {
			out = append(out, c.p)
			continue
		}
		se := sigma * math.Sqrt(1/float64(c.n)+1/float64(L.n))
		diff := L.mean - c.mean
		if diff <= z*se {
			out = append(out, c.p)
			continue
		}
		msg := fmt.Sprintf("after %d run(s): %.1f %% below the leader %s (%d runs), beyond the %.1f %% that noise explains (%.1f %% per run, %.0f %% family-wise)",
			c.n, (1-math.Exp(-diff))*100, SettingsString(r.settings(L.p)), L.n, (1-math.Exp(-z*se))*100, sigma*100, raceAlpha*100)
		r.store.eliminate(c.p.Key, msg)
		if _, done := r.elimDone[c.p.Key]; !done {
			r.event(EventEliminated, c.p.Key, msg)
		}
		r.logf("    dropped %s: %s\n", SettingsString(r.settings(c.p)), msg)
	}
	return out
}
