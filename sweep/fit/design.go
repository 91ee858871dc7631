package fit

// Design picks a screening design from the candidate points (each a
// level per factor), in their order: the fewest it finds, greedily (each
// pick covers the most not yet covered, the earliest on a tie), that see
// every pair of levels of every two factors that the candidates hold
// (strength 2: every pairwise interaction can be estimated). When that
// takes more than most points it picks instead a set that sees every
// level of every factor at least twice (strength 1: the main effects,
// each level in a balanced subset of points).
func Design(pts [][]int, most int) (picked []int, strength int) {
	if picked = cover(pts, 2); len(picked) <= most {
		return picked, 2
	}
	return cover(pts, 1), 1
}

type cell struct{ f, lf, g, lg int }

func cover(pts [][]int, strength int) []int {
	if len(pts) == 0 {
		return nil
	}
	need := map[cell]int{}
	items := func(x []int) []cell {
		var out []cell
		for f := range x {
			if strength == 1 {
				out = append(out, cell{f, x[f], -1, 0})
				continue
			}
			for g := f + 1; g < len(x); g++ {
				out = append(out, cell{f, x[f], g, x[g]})
			}
		}
		if strength == 2 && len(x) == 1 {
			out = append(out, cell{0, x[0], -1, 0})
		}
		return out
	}
	want := 1
	if strength == 1 {
		want = 2
	}
	for _, x := range pts {
		for _, c := range items(x) {
			need[c] = min(need[c]+1, want) // a level held by one point is seen once
		}
	}
	used := make([]bool, len(pts))
	var picked []int
	for {
		best, score := -1, 0
		for i, x := range pts {
			if used[i] {
				continue
			}
			s := 0
			for _, c := range items(x) {
				if need[c] > 0 {
					s++
				}
			}
			if s > score {
				best, score = i, s
			}
		}
		if best < 0 {
			return picked
		}
		used[best] = true
		picked = append(picked, best)
		for _, c := range items(pts[best]) {
			if need[c] > 0 {
				need[c]--
			}
		}
	}
}
