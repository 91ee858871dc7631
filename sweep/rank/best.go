package rank

import "math"

// PossiblyBest says whether the ranked point key could be the fastest
// of the ranking's points by its runs: multiple comparisons with the
// best (Hsu), with Bonferroni's bound over the others. Its mean log
// rate is within t·σ·√(1/n + 1/nb) of the highest of the others, t the
// one-sided Student quantile at (1 − Confidence)/(k − 1) on the pooled
// noise's degrees of freedom, k the ranked points.
//
// Decision: this is what a sweep's data say about a point chosen
// elsewhere (another search's winner measured again by the grid). Tied
// compares every point with the fastest as if the fastest had not been
// picked from them: among many points with the same true rate the
// fastest's mean is the highest of many draws, so a point equal to it
// in truth is called significantly slower about one time in five on a
// 308-point grid (two grids of one landscape then disagree with each
// other in 2 of 20 seeds, bench/model.sh). The ranking's own order and
// Tied are unchanged; only bench/model.sh judges with this.
func (r Ranking) PossiblyBest(key string) bool {
	p := r.Find(key)
	if p == nil || !(r.Noise.SD > 0) || r.Noise.DoF < 1 || len(r.Ranked) < 2 {
		return p != nil
	}
	best := -1
	for i := range r.Ranked {
		q := &r.Ranked[i]
		if q.Key != key && (best < 0 || q.logMean > r.Ranked[best].logMean) {
			best = i
		}
	}
	b := &r.Ranked[best]
	if p.Runs == 0 || b.Runs == 0 {
		return false
	}
	t := TQuantileF(1-(1-Confidence)/float64(len(r.Ranked)-1), float64(r.Noise.DoF))
	se := r.Noise.SD * math.Sqrt(1/float64(p.Runs)+1/float64(b.Runs))
	return p.logMean >= b.logMean-t*se
}
