package sweep

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/fit"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// This file holds the model mode (`--mode model`), a structured search:
//
//  1. The baseline, then a screening design (modelDesign), one run each
//     without warm-ups, as the race screens; once warm-ups are skipped
//     (fixedcost.go) a confirmation visit admits those runs among the
//     point's rates (admitsScreen).
//  2. A fit of log rate on the axes (an axis the hardware ignores at a
//     point is a level of its own) with the pairwise interactions forward
//     selection by BIC takes (fit.Select).
//  3. The predicted top set (modelTopSet) is measured to the plan's runs
//     and the model fitted again, until the top set has its runs
//     (modelRounds at most).
//  4. Only the points with the plan's runs are ranked, by the grid's
//     ranking and verdict, the baseline measured again last; every other
//     point is recorded as eliminated with the model's prediction, so the
//     winner and the verdict rest on the confirmation runs alone.
//
// Where the model fits badly (its residual beyond the run noise and
// modelMisfit) the sweep races the points (adaptive.go) instead. Every fit
// is an event in the results file (results.ModelFit); a resumed sweep
// replays the visits and fits again to the same model.

// modelTop is the most points a round's predicted top set holds;
// modelWidth the width of that set in standard errors of a prediction;
// modelRounds the most rounds of fitting; modelMisfit the least misfit
// (the residual beyond the run noise) that makes the model fit badly.
// Decision (bench/model.sh): see its figures.
const (
	modelTop    = 5
	modelWidth  = 2.5
	modelRounds = 4
	modelMisfit = 0.01
	// modelBand is the top the fit is judged on (log rate below the
	// best prediction); modelNoiseDoF the degrees of freedom of the
	// noise estimate (the baseline's runs and the points measured more
	// than once) before it is judged at all.
	modelBand     = 0.10
	modelNoiseDoF = 10
	modelAlpha    = 0.01
	// modelTieBreaks is the most tie-break rounds (modelTieBreak).
	modelTieBreaks = 1
)

func (r *state) modelSearch(ctx context.Context) error {
	if _, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats, false, nil); err != nil {
		return err
	}
	levels, scores, xs := r.modelLevels()
	var design []*Point
	for _, k := range r.modelDesign(xs) {
		design = append(design, r.points[k])
	}
	for _, p := range r.byReload(design, false) {
		if r.store.Runs(p.Key) > 0 || len(r.store.Screened(p.Key)) > 0 {
			continue
		}
		if r.fit(0, 1) == 0 {
			break
		}
		if _, err := r.visit(ctx, p, 1, true, nil); err != nil {
			return err
		}
	}
	var top []*Point
	confirmed := map[string]bool{} // visited for their runs, not screening
	for round := 0; round < modelRounds; round++ {
		m, mf, pred := r.modelFit(round, levels, scores, xs)
		if m == nil {
			break
		}
		top = r.modelTopSet(m, xs, pred, mf)
		var todo []*Point
		for _, p := range top {
			mf.Top = append(mf.Top, p.Key)
			if r.store.Runs(p.Key) < r.Plan.Repeats {
				todo = append(todo, p)
			}
		}
		if err := r.emitModel(mf); err != nil {
			return err
		}
		if mf.Fallback != "" {
			// The race gets its whole budget on top of the runs the
			// model spent.
			if r.budget > 0 {
				r.budget += r.spent
				r.logf("model: racing the points, with a budget of %d probe runs more\n", r.budget-r.spent)
			}
			return r.adaptive(ctx)
		}
		if len(todo) == 0 {
			break
		}
		spentOut := false
		for _, p := range r.byReload(todo, round%2 == 1) {
			have := r.store.Runs(p.Key)
			if r.admitsScreen(p) {
				have += len(r.store.Screened(p.Key))
			}
			n := r.fit(r.warmups(false), r.Plan.Repeats-have)
			if n == 0 {
				spentOut = true
				break
			}
			confirmed[p.Key] = true
			if _, err := r.visit(ctx, p, n, false, nil); err != nil {
				return err
			}
		}
		if spentOut {
			break
		}
	}
	_, _, pred := r.modelFit(-1, levels, scores, xs)
	best := slices.Max(pred) // a plan has points (prepare)
	unmeasured := 0
	perm := r.anyPermanent(r.points)
	for i, p := range r.points {
		ps := r.store.Point(p.Key)
		switch {
		case ps == nil && len(r.store.Screened(p.Key)) == 0:
			unmeasured++
		case ps != nil && ps.Status != rank.StatusOK:
		case confirmed[p.Key]:
			if len(ps.Rates) < r.Plan.Repeats {
				r.outOfBudget++ // ranked on the runs the budget left it
			}
		case perm && !r.permanent(p):
			r.drop(p, fmt.Sprintf("screened only: it cannot be made permanent (%s), so the model's runs went to points that can", strings.Join(r.policy.NotPermanent(r.changes(p)), "; ")))
		default:
			r.drop(p, fmt.Sprintf("screened only: the model predicts it %.1f %% below its best point", (1-math.Exp(pred[i]-best))*100))
		}
	}
	if unmeasured > 0 {
		r.logf("model: %d of the %d points not measured (predicted below the top set)\n", unmeasured, len(r.points))
	}
	predOf := map[string]float64{}
	for i, p := range r.points {
		predOf[p.Key] = pred[i]
	}
	// The tie-break comes after the last baseline visit, whose runs join
	// the pooled noise and may turn a lead into a tie (adaptive.sh's 42
	// points, seed 1).
	if _, err := r.visit(ctx, r.baselinePoint(), r.Plan.Repeats, false, nil); err != nil {
		return err
	}
	return r.modelTieBreak(ctx, predOf)
}

// modelDesign is the screening design (indices of r.points): fit.Design
// (the fewest points a greedy cover finds that see every pair of values of
// every two axes or, where that takes more than a quarter of the points,
// every value twice) over the points where every axis takes effect, then
// the fewest collapsed points (an axis ignored) that see every level the
// design has not yet seen twice. Decision: the collapsed points stand for
// combinations where the ignored axes do not matter, so their pairs are
// not covered (on bench/model.sh's 308 points that would take all 14 of
// them, a fifth of the design); two sightings of a level still let the
// fit estimate its main effect, and the confirmation rounds measure any
// of them the model puts in its top set.
func (r *state) modelDesign(xs [][]int) []int {
	var full, sub []int
	for i, p := range r.points {
		if slices.Contains(p.Ignored, true) {
			sub = append(sub, i)
		} else {
			full = append(full, i)
		}
	}
	fx := make([][]int, len(full))
	for j, i := range full {
		fx[j] = xs[i]
	}
	pick, strength := fit.Design(fx, len(r.points)/4)
	if len(sub) == 0 { // fx is xs: its design is the one
		return pick
	}
	if len(full) == 0 || strength < 2 {
		// No pairs covered anyway: every level of every axis twice,
		// over all the points.
		pick, _ = fit.Design(xs, len(r.points)/4)
		return pick
	}
	for j, k := range pick {
		pick[j] = full[k]
	}
	seen := map[[2]int]int{}
	for _, i := range pick {
		for a, l := range xs[i] {
			seen[[2]int{a, l}]++
		}
	}
	for _, i := range sub {
		need := false
		for a, l := range xs[i] {
			need = need || seen[[2]int{a, l}] < 2
		}
		if !need {
			continue
		}
		pick = append(pick, i)
		for a, l := range xs[i] {
			seen[[2]int{a, l}]++
		}
	}
	return pick
}

// admitsScreen says whether a model sweep's visit of p admits its
// screening runs among its rates (PointRecord.ScreenAdmitted): they lacked
// only the plan's warm-ups, which the visits now show do not matter
// (fixedcost.go). A sweep resumed from a version 1 file admits none, so
// that the file stays what its version says.
func (r *state) admitsScreen(p *Point) bool {
	old := r.Resume != nil && r.Resume.Header.Version < results.VersionAdmits
	return r.Plan.Mode == plan.ModeModel && !old && r.Plan.Warmup > 0 && r.warmups(false) == 0 && len(r.store.Screened(p.Key)) > 0
}

// modelTieBreak is the race's tie-break for the model: while the ranking's
// tie rule puts another point than the fastest first among points it
// cannot tell apart, both get the plan's runs more, modelTieBreaks times
// at most (bench/model.sh: a second round cost 10 runs over the goal, and
// without it none of its 120 sweeps missed); only where the model, or the
// runs by twice the least gain, tell them apart (where neither does, as
// between TX burst lengths on a read, more runs would only confirm it).
func (r *state) modelTieBreak(ctx context.Context, pred map[string]float64) error {
	byKey := map[string]*Point{}
	for _, p := range r.points {
		byKey[p.Key] = p
	}
	for range modelTieBreaks {
		rk := r.store.Rank()
		if len(rk.Ranked) < 2 || !rk.Ranked[0].Tied {
			return nil
		}
		fastest := 0
		for i, p := range rk.Ranked {
			if p.Tied && p.Median > rk.Ranked[fastest].Median {
				fastest = i
			}
		}
		// Or where the runs put the fastest twice the least gain ahead
		// (adaptive.sh's 42 points, seed 1: predicted within 1 %, measured
		// 3 %, the grid 3.8 %, and the tie rule kept the original).
		least := r.Plan.MinGainPct() / 100
		measured := math.Log(rk.Ranked[fastest].Median / rk.Ranked[0].Median)
		if fastest == 0 || (math.Abs(pred[rk.Ranked[0].Key]-pred[rk.Ranked[fastest].Key]) < least && !(measured > 2*least)) {
			return nil
		}
		for _, k := range []string{rk.Ranked[0].Key, rk.Ranked[fastest].Key} {
			n := r.fit(r.warmups(false), r.Plan.Repeats)
			if n == 0 || byKey[k] == nil {
				return nil
			}
			if _, err := r.visit(ctx, byKey[k], n, false, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// modelLevels are the number of levels of every axis, their scores for
// the interactions linear in an axis (fit.Scores of the values' numbers)
// and each point's level per axis (an ignored axis is a level of its
// own, without a score).
func (r *state) modelLevels() ([]int, [][]float64, [][]int) {
	levels := make([]int, len(r.axes))
	names := make([][]string, len(r.axes))
	idx := make([]map[string]int, len(r.axes))
	for a := range idx {
		idx[a] = map[string]int{}
	}
	xs := make([][]int, len(r.points))
	for i, p := range r.points {
		xs[i] = make([]int, len(r.axes))
		for a, v := range p.Values {
			if p.Ignored[a] {
				v = "\x00ignored"
			}
			l, ok := idx[a][v]
			if !ok {
				l = levels[a]
				idx[a][v] = l
				levels[a]++
				names[a] = append(names[a], v)
			}
			xs[i][a] = l
		}
	}
	scores := make([][]float64, len(r.axes))
	for a := range scores {
		scores[a] = fit.Scores(names[a], func(v string) (float64, bool) {
			f, err := strconv.ParseFloat(v, 64)
			return f, err == nil
		})
	}
	return levels, scores, xs
}

// modelFit fits the model to every run of the points measured so far
// (screening runs included) and returns it, its record (Fallback set
// when it fits badly) and its prediction at every point. Nil before any
// point has a run.
func (r *state) modelFit(round int, levels []int, scores [][]float64, xs [][]int) (*fit.Model, *results.ModelFit, []float64) {
	var x [][]int
	var y []float64
	pts := 0
	means, ns := make([]float64, len(r.points)), make([]int, len(r.points))
	for i, p := range r.points {
		ps := r.store.Point(p.Key)
		if ps != nil && ps.Status != rank.StatusOK {
			continue
		}
		rates := append(slices.Clone(r.store.Rates(p.Key)), r.store.Screened(p.Key)...)
		if len(rates) > 0 {
			pts++
		}
		for _, v := range rates {
			if v > 0 {
				x = append(x, xs[i])
				y = append(y, math.Log(v))
				means[i] += math.Log(v)
				ns[i]++
			}
		}
	}
	if len(y) == 0 {
		return nil, nil, make([]float64, len(r.points))
	}
	m := fit.Select(levels, scores, x, y)
	sigma, dof, _ := r.noise()
	df := m.N - m.Rank
	resid := 0.0
	if df > 0 {
		resid = math.Sqrt(m.RSS / float64(df))
	}
	mf := &results.ModelFit{Round: round, Points: pts, Runs: m.N, R2: m.R2(), ResidualPct: 100 * resid, NoisePct: 100 * sigma}
	for a, ax := range r.axes {
		if levels[a] > 1 && m.Has(a) {
			mf.Terms = append(mf.Terms, ax.Name)
		}
	}
	for _, p := range m.Pairs {
		a, b := r.axes[p.A].Name, r.axes[p.B].Name
		switch p.Kind {
		case fit.LinLin:
			a, b = "lin "+a, "lin "+b
		case fit.CatLin:
			b = "lin " + b
		case fit.LinCat:
			a = "lin " + a
		}
		mf.Terms = append(mf.Terms, a+"×"+b)
	}
	pred := make([]float64, len(r.points))
	best := math.Inf(-1)
	for i := range r.points {
		pred[i] = m.Predict(xs[i])
		best = max(best, pred[i])
	}
	// The fit where it matters, the top: the measured points predicted
	// within modelBand of the best, their means against the predictions
	// in units of the noise (about 1 each where the model fits).
	q, k := 0.0, 0
	for i := range r.points {
		if ns[i] > 0 && best-pred[i] <= modelBand {
			e := means[i]/float64(ns[i]) - pred[i]
			q += float64(ns[i]) * e * e / (sigma * sigma)
			k++
		}
	}
	if k > 0 {
		mf.TopMisfitPct = 100 * sigma * math.Sqrt(max(q/float64(k)-1, 0))
	}
	// Judged once the noise is known (the baseline's runs alone are too
	// few) and the top holds a few points: the misfit must be beyond
	// what an estimate of the noise on its degrees of freedom explains
	// (q/k against Fisher's F at modelAlpha) and large.
	if misfit := mf.TopMisfitPct / 100; dof >= modelNoiseDoF && k >= 3 && misfit > max(sigma, modelMisfit) &&
		1-rank.FCDF(q/float64(k), float64(k), float64(dof)) < modelAlpha {
		mf.Fallback = fmt.Sprintf("its top %d points are %.1f %% off its predictions beyond the run noise", k, 100*misfit)
	}
	return m, mf, pred
}

// modelTopSet is the predicted top set: the points still in the sweep
// whose optimistic prediction (modelWidth standard errors) reaches the
// best pessimistic one, at most modelTop, in the order of prediction plus
// one standard error (a point no run has told much about comes early)
// less the verdict's least gain per setting changed (where an axis does
// not matter the points that leave it alone come first, as the tie rule
// would put them). A prediction's standard error is the noise over the
// runs per parameter (σ·√(rank/N)) with the misfit added.
func (r *state) modelTopSet(m *fit.Model, xs [][]int, pred []float64, mf *results.ModelFit) []*Point {
	sigma := math.Hypot(mf.NoisePct/100, mf.TopMisfitPct/100)
	se := make([]float64, len(r.points))
	best := math.Inf(-1)
	var cands []int
	for i, p := range r.points {
		if ps := r.store.Point(p.Key); ps == nil || ps.Status == rank.StatusOK {
			se[i] = min(sigma*m.SE(xs[i]), 1)
			cands = append(cands, i)
			best = max(best, pred[i]-modelWidth*se[i])
		}
	}
	if perm := slices.ContainsFunc(cands, func(i int) bool { return r.permanent(r.points[i]) }); perm {
		// The verdict recommends only what can be made permanent.
		cands = slices.DeleteFunc(cands, func(i int) bool { return !r.permanent(r.points[i]) })
	}
	cost := r.Plan.MinGainPct() / 100
	score := func(i int) float64 { return pred[i] + se[i] - cost*float64(len(r.changes(r.points[i]))) }
	cands = slices.DeleteFunc(cands, func(i int) bool { return pred[i]+modelWidth*se[i] < best })
	slices.SortStableFunc(cands, func(a, b int) int { return cmp.Compare(score(b), score(a)) })
	// Points that differ only in axes the model has no term for are one
	// candidate: the first, which changes the fewest settings.
	used := make([]bool, len(r.axes))
	for a := range used {
		used[a] = m.Has(a) || slices.ContainsFunc(m.Pairs, func(p fit.Pair) bool { return p.A == a || p.B == a })
	}
	seen := map[string]bool{}
	var top []*Point
	for _, i := range cands {
		sig := make([]int, len(r.axes))
		for a := range sig {
			sig[a] = -1
			if used[a] {
				sig[a] = xs[i][a]
			}
		}
		if k := fmt.Sprint(sig); !seen[k] && len(top) < modelTop {
			seen[k] = true
			top = append(top, r.points[i])
		}
	}
	return top
}

// emitModel records a fit (not again when a resumed sweep replays it).
func (r *state) emitModel(mf *results.ModelFit) error {
	replayed := r.Resume != nil && r.modelSeq < len(r.Resume.Models())
	r.modelSeq++
	r.model = mf
	return r.emit(event.Event{Kind: event.ModelFitted, Model: mf, Message: mf.String(), Replayed: replayed})
}
