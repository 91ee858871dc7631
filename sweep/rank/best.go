package rank

import "math"

// PossiblyBest says whether the ranked point key could be the fastest by
// its runs: multiple comparisons with the best (Hsu), Bonferroni over the
// others; its mean log rate is within t·σ·√(1/n + 1/nb) of the highest of
// the others (t one-sided at (1 − Confidence)/(k − 1) on the pooled
// noise's degrees of freedom, k the ranked points).
//
// Decision: this judges a point chosen elsewhere (another search's winner
// measured again by the grid). Tied compares every point with the fastest
// as if it had not been picked from them, so on a 308-point grid a point
// equal to it in truth is called slower about one time in five
// (bench/model.sh, its only user; the ranking's order and Tied stay).
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
