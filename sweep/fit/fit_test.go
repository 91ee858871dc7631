package fit

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// grid is every combination of the levels.
func grid(levels []int) [][]int {
	out := [][]int{{}}
	for _, l := range levels {
		var next [][]int
		for _, x := range out {
			for v := 0; v < l; v++ {
				next = append(next, append(slices.Clone(x), v))
			}
		}
		out = next
	}
	return out
}

// A noiseless additive response is fitted exactly and predicted at a
// combination the data never held.
func TestFitAdditive(t *testing.T) {
	levels := []int{3, 4}
	eff := [][]float64{{0, 0.1, -0.2}, {0, 0.05, 0.3, -0.1}}
	var x [][]int
	var y []float64
	for _, p := range grid(levels) {
		if p[0] == 2 && p[1] == 3 {
			continue // left out
		}
		x = append(x, p)
		y = append(y, 1+eff[0][p[0]]+eff[1][p[1]])
	}
	m := Fit(levels, nil, nil, x, y)
	if got, want := m.Predict([]int{2, 3}), 1+eff[0][2]+eff[1][3]; math.Abs(got-want) > 1e-6 {
		t.Errorf("prediction at the unseen point %g, want %g", got, want)
	}
	if m.R2() < 0.999999 || m.Rank != 6 {
		t.Errorf("R² %g, rank %d; want 1 and 6", m.R2(), m.Rank)
	}
}

// Select takes a planted interaction (as a linear-by-linear term where
// that explains it), leaves out the main effect of a factor that does
// nothing, and takes nothing else.
func TestSelectFindsTheInteraction(t *testing.T) {
	levels := []int{4, 4, 3}
	names := []string{"1", "2", "4", "8"}
	scores := [][]float64{Scores(names, num), Scores(names, num), Scores(names[:3], num)}
	rng := rand.New(rand.NewPCG(1, 2))
	var x [][]int
	var y []float64
	for _, p := range grid(levels) {
		for range 2 {
			x = append(x, p)
			// factor 2 does nothing; 0 and 1 interact through their scores
			y = append(y, 0.1*scores[0][p[0]]-0.05*scores[1][p[1]]+0.08*scores[0][p[0]]*scores[1][p[1]]+0.01*rng.NormFloat64())
		}
	}
	m := Select(levels, scores, x, y)
	if len(m.Pairs) != 1 || m.Pairs[0] != (Pair{0, 1, LinLin}) {
		t.Errorf("pairs %v, want the linear-by-linear 0×1 alone", m.Pairs)
	}
	if !m.Has(0) || !m.Has(1) || m.Has(2) {
		t.Errorf("main effects 0 %v, 1 %v, 2 %v: want 0 and 1 only", m.Has(0), m.Has(1), m.Has(2))
	}
	if r := math.Sqrt(m.RSS / float64(m.N-m.Rank)); r > 0.013 {
		t.Errorf("residual %g, want about the noise 0.01", r)
	}
}

func num(s string) (float64, bool) {
	switch s {
	case "1":
		return 1, true
	case "2":
		return 2, true
	case "4":
		return 4, true
	case "8":
		return 8, true
	}
	return 0, false
}

// The prediction's standard error is larger at a pair of levels no
// observation holds than at one that is observed.
func TestSEGrowsWhereNothingWasSeen(t *testing.T) {
	levels := []int{3, 3}
	var x [][]int
	var y []float64
	for _, p := range grid(levels) {
		if p[0] == 2 && p[1] == 2 {
			continue
		}
		x = append(x, p)
		y = append(y, float64(p[0]*p[1]))
	}
	m := Fit(levels, nil, []Pair{{0, 1, Full}}, x, y)
	seen, unseen := m.SE([]int{1, 1}), m.SE([]int{2, 2})
	if !(unseen > 2*seen) || seen > 1.5 {
		t.Errorf("SE seen %g, unseen %g: want the unseen one far larger", seen, unseen)
	}
}

// The strength-2 design sees every pair of levels the candidates hold,
// with far fewer points than the grid; past most it falls back to
// strength 1, which sees every level twice.
func TestDesignCovers(t *testing.T) {
	levels := []int{3, 7, 6, 7}
	pts := grid(levels)
	pick, strength := Design(pts, len(pts)/4)
	if strength != 2 || len(pick) > 70 {
		t.Fatalf("strength %d, %d points of %d", strength, len(pick), len(pts))
	}
	seen := map[[4]int]bool{}
	for _, i := range pick {
		x := pts[i]
		for f := range x {
			for g := f + 1; g < len(x); g++ {
				seen[[4]int{f, x[f], g, x[g]}] = true
			}
		}
	}
	for f := range levels {
		for g := f + 1; g < len(levels); g++ {
			for a := range levels[f] {
				for b := range levels[g] {
					if !seen[[4]int{f, a, g, b}] {
						t.Errorf("pair %d=%d %d=%d not in the design", f, a, g, b)
					}
				}
			}
		}
	}
	pick, strength = Design(pts, 20)
	if strength != 1 || len(pick) > 20 {
		t.Fatalf("strength %d with %d points, want 1 within 20", strength, len(pick))
	}
	count := map[[2]int]int{}
	for _, i := range pick {
		for f, v := range pts[i] {
			count[[2]int{f, v}]++
		}
	}
	for f, l := range levels {
		for v := range l {
			if count[[2]int{f, v}] < 2 {
				t.Errorf("level %d of factor %d seen %d times, want 2", v, f, count[[2]int{f, v}])
			}
		}
	}
}
