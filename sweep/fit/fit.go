// Package fit fits the additive models of a structured search (the
// sweep's model mode): a screening design that sees every axis value (and
// where affordable every pair of values) in a small subset of points, a
// least-squares fit of log rate on the axes with the pairwise
// interactions the data ask for (forward selection by BIC), and its
// predictions. Pure: imports only the standard library.
package fit

import (
	"math"
	"slices"
)

// Model is an additive model over categorical factors: an intercept, one
// effect per level of every factor (the first level the reference) and
// the chosen pairwise interactions.
type Model struct {
	// Levels is the number of levels of each factor.
	Levels []int
	// Scores are, per factor and level, a numeric score (Scores) for the
	// interactions that are linear in a factor; nil: none.
	Scores [][]float64
	// Pairs are the interactions in the model.
	Pairs []Pair
	// Without marks the factors whose main effect the model leaves out
	// (nil: none).
	Without []bool
	// N is the observations, Rank the parameters the data determine.
	N, Rank int
	// RSS and TSS are the residual and total sums of squares.
	RSS, TSS float64
	coef     []float64
	chol     []float64 // the Cholesky factor of the normal equations
}

// Pair is an interaction of factors A < B: every pair of their levels
// (Kind Full), or linear in the scores of one or both (fewer parameters
// where the data are few).
type Pair struct {
	A, B int
	Kind Kind
}

// Kind is the shape of an interaction.
type Kind int

// Interaction shapes.
const (
	Full   Kind = iota // every pair of levels: (La-1)(Lb-1) parameters
	LinLin             // score × score: 1
	CatLin             // A's levels × B's score: La-1
	LinCat             // A's score × B's levels: Lb-1
)

// width is the parameters of the interaction.
func (m *Model) width(p Pair) int {
	la, lb := m.Levels[p.A]-1, m.Levels[p.B]-1
	switch p.Kind {
	case LinLin:
		return 1
	case CatLin:
		return la
	case LinCat:
		return lb
	}
	return la * lb
}

// Has reports whether the model has factor f's main effect.
func (m *Model) Has(f int) bool { return m.Without == nil || !m.Without[f] }

// columns is the width of the design matrix.
func (m *Model) columns() int {
	k := 1
	for f, l := range m.Levels {
		if m.Has(f) {
			k += l - 1
		}
	}
	for _, p := range m.Pairs {
		k += m.width(p)
	}
	return k
}

// row fills the design row of x (level per factor) into dst.
func (m *Model) row(x []int, dst []float64) {
	clear(dst)
	dst[0] = 1
	c := 1
	for f, l := range m.Levels {
		if !m.Has(f) {
			continue
		}
		if x[f] > 0 {
			dst[c+x[f]-1] = 1
		}
		c += l - 1
	}
	for _, p := range m.Pairs {
		xa, xb := x[p.A], x[p.B]
		switch p.Kind {
		case LinLin:
			dst[c] = m.Scores[p.A][xa] * m.Scores[p.B][xb]
		case CatLin:
			if xa > 0 {
				dst[c+xa-1] = m.Scores[p.B][xb]
			}
		case LinCat:
			if xb > 0 {
				dst[c+xb-1] = m.Scores[p.A][xa]
			}
		default:
			if xa > 0 && xb > 0 {
				dst[c+(xa-1)*(m.Levels[p.B]-1)+xb-1] = 1
			}
		}
		c += m.width(p)
	}
}

// Fit fits the model with the given interactions to the observations
// (x: levels per factor, y: the response). A tiny ridge keeps effects the
// data cannot tell apart (an unseen level, an unseen pair of levels) at
// zero: such a point is predicted from the effects that are known.
func Fit(levels []int, scores [][]float64, pairs []Pair, x [][]int, y []float64) *Model {
	return fitWithout(levels, scores, pairs, nil, x, y)
}

func fitWithout(levels []int, scores [][]float64, pairs []Pair, without []bool, x [][]int, y []float64) *Model {
	m := &Model{Levels: levels, Scores: scores, Pairs: pairs, Without: without, N: len(y)}
	k := m.columns()
	a := make([]float64, k*k)
	b := make([]float64, k)
	row := make([]float64, k)
	mean := 0.0
	for i := range y {
		mean += y[i] / float64(len(y))
		m.row(x[i], row)
		for r, v := range row {
			if v == 0 {
				continue
			}
			b[r] += v * y[i]
			for c, w := range row {
				a[r*k+c] += v * w
			}
		}
	}
	m.Rank = rank(slices.Clone(a), k)
	main := k
	for _, p := range pairs {
		main -= m.width(p)
	}
	for i := 0; i < k; i++ {
		if i < main {
			a[i*k+i] += 1e-9 * float64(len(y))
		} else {
			a[i*k+i] += PairPrior
		}
	}
	m.coef = solve(a, b, k)
	m.chol = a
	for i := range y {
		e := y[i] - m.Predict(x[i])
		m.RSS += e * e
		m.TSS += (y[i] - mean) * (y[i] - mean)
	}
	return m
}

// Predict is the model's response at x.
func (m *Model) Predict(x []int) float64 {
	row := make([]float64, len(m.coef))
	m.row(x, row)
	s := 0.0
	for i, v := range row {
		s += v * m.coef[i]
	}
	return s
}

// SE is the standard error of the prediction at x in units of the run
// noise: √(xᵀ(XᵀX+Λ)⁻¹x). A point in a pair of levels no run has seen
// has a large one (about 1/√PairPrior for each such interaction).
func (m *Model) SE(x []int) float64 {
	k := len(m.coef)
	z := make([]float64, k)
	m.row(x, z)
	s := 0.0
	for i := 0; i < k; i++ {
		for p := 0; p < i; p++ {
			z[i] -= m.chol[i*k+p] * z[p]
		}
		z[i] /= m.chol[i*k+i]
		s += z[i] * z[i]
	}
	return math.Sqrt(s)
}

// PairPrior is the ridge on interaction effects, in observations: an
// interaction effect is taken to be about 1/√PairPrior = 2.5 times the
// run noise before any run has seen it (a 5 % effect at 2 % noise).
// The main effects get none (a design sees every level).
const PairPrior = 0.16

// R2 is the share of the variance the model explains (1 without any).
func (m *Model) R2() float64 {
	if m.TSS == 0 {
		return 1
	}
	return 1 - m.RSS/m.TSS
}

// BIC is the Bayesian information criterion of the fit (lower is
// better), with the parameters the data determine.
func (m *Model) BIC() float64 {
	n := float64(m.N)
	return n*math.Log(max(m.RSS, 1e-300)/n) + float64(m.Rank)*math.Log(n)
}

// Select fits the main effects and adds, one at a time, the pairwise
// interaction (of any shape the scores allow; one per pair of factors)
// that lowers the BIC most, while one does and the fit keeps a third of
// its observations (3 at least) as residual degrees of freedom: near a
// saturated fit the BIC rewards any term. Then it leaves out the main
// effects the BIC does not want (dropMain).
func Select(levels []int, scores [][]float64, x [][]int, y []float64) *Model {
	best := Fit(levels, scores, nil, x, y)
	for {
		var next *Model
		for a := range levels {
			for b := a + 1; b < len(levels); b++ {
				if levels[a] < 2 || levels[b] < 2 || slices.ContainsFunc(best.Pairs, func(p Pair) bool { return p.A == a && p.B == b }) {
					continue
				}
				for kind := Full; kind <= LinCat; kind++ {
					if kind != Full && (scores == nil || kind != CatLin && !scored(scores[a]) || kind != LinCat && !scored(scores[b])) {
						continue
					}
					m := Fit(levels, scores, append(slices.Clone(best.Pairs), Pair{a, b, kind}), x, y)
					if m.N-m.Rank < max(3, m.N/3) || m.Rank == best.Rank {
						continue
					}
					if m.BIC() < best.BIC() && (next == nil || m.BIC() < next.BIC()) {
						next = m
					}
				}
			}
		}
		if next == nil {
			return dropMain(best, x, y)
		}
		best = next
	}
}

// dropMain leaves out, one at a time, the main effect of a factor in no
// interaction whose leaving out lowers the BIC most, while one does: an
// axis the data do not show to matter predicts no difference.
func dropMain(best *Model, x [][]int, y []float64) *Model {
	for {
		var next *Model
		for f := range best.Levels {
			if !best.Has(f) || slices.ContainsFunc(best.Pairs, func(p Pair) bool { return p.A == f || p.B == f }) {
				continue
			}
			w := make([]bool, len(best.Levels))
			copy(w, best.Without)
			w[f] = true
			m := fitWithout(best.Levels, best.Scores, best.Pairs, w, x, y)
			if m.BIC() < best.BIC() && (next == nil || m.BIC() < next.BIC()) {
				next = m
			}
		}
		if next == nil {
			return best
		}
		best = next
	}
}

// scored reports whether a factor's levels have scores that differ.
func scored(s []float64) bool {
	return slices.ContainsFunc(s, func(v float64) bool { return v != 0 })
}

// Scores are the levels' scores of a factor whose level names are
// given: log2(1+v) of a number v ≥ 0, centred over the levels that
// have one; 0 for the others (an ignored axis, a name), and 0 for all
// when fewer than three levels have one (no linear term then).
func Scores(names []string, num func(string) (float64, bool)) []float64 {
	s := make([]float64, len(names))
	sum, n := 0.0, 0
	for i, v := range names {
		if f, ok := num(v); ok && f >= 0 {
			s[i] = math.Log2(1 + f)
			sum += s[i]
			n++
		} else {
			s[i] = math.NaN()
		}
	}
	for i := range s {
		if math.IsNaN(s[i]) || n < 3 {
			s[i] = 0
		} else {
			s[i] -= sum / float64(n)
		}
	}
	return s
}

// rank is the numerical rank of the k×k symmetric matrix a (destroyed).
func rank(a []float64, k int) int {
	scale := 0.0
	for i := 0; i < k; i++ {
		scale = max(scale, math.Abs(a[i*k+i]))
	}
	r := 0
	for col := 0; col < k && r < k; col++ {
		p := r
		for i := r + 1; i < k; i++ {
			if math.Abs(a[i*k+col]) > math.Abs(a[p*k+col]) {
				p = i
			}
		}
		if math.Abs(a[p*k+col]) <= 1e-9*scale {
			continue
		}
		for c := 0; c < k; c++ {
			a[p*k+c], a[r*k+c] = a[r*k+c], a[p*k+c]
		}
		for i := r + 1; i < k; i++ {
			f := a[i*k+col] / a[r*k+col]
			for c := col; c < k; c++ {
				a[i*k+c] -= f * a[r*k+c]
			}
		}
		r++
	}
	return r
}

// solve solves the symmetric positive definite system a·x = b (a is
// destroyed) by Cholesky's method.
func solve(a, b []float64, k int) []float64 {
	for j := 0; j < k; j++ {
		s := a[j*k+j]
		for p := 0; p < j; p++ {
			s -= a[j*k+p] * a[j*k+p]
		}
		d := math.Sqrt(max(s, 1e-300))
		a[j*k+j] = d
		for i := j + 1; i < k; i++ {
			s := a[i*k+j]
			for p := 0; p < j; p++ {
				s -= a[i*k+p] * a[j*k+p]
			}
			a[i*k+j] = s / d
		}
	}
	x := slices.Clone(b)
	for i := 0; i < k; i++ {
		for p := 0; p < i; p++ {
			x[i] -= a[i*k+p] * x[p]
		}
		x[i] /= a[i*k+i]
	}
	for i := k - 1; i >= 0; i-- {
		for p := i + 1; p < k; p++ {
			x[i] -= a[p*k+i] * x[p]
		}
		x[i] /= a[i*k+i]
	}
	return x
}
