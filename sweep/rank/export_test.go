package rank

// Rank is RankVisits with the baseline pooled and its visits' medians
// given (or none), for the tests.
func Rank(points []PointStats, baseline []float64, visits []float64, original map[string]string, pol Policy) Ranking {
	return rank(points, baseline, visits, nil, original, pol)
}
