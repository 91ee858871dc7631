package sweep

import (
	"fmt"
	"math"

	"github.com/citune/citune/sweep/plan"
)

// This file holds the adaptive race's budget: the probe runs it may
// spend, a share (Plan.Budget) of what the grid of the same plan takes.
//
// Decision: a cap, not an estimate. Near-equal leaders can take a race
// past any share fitted to a few landscapes (bench/adaptive.sh: 38 to 42 %
// in a few seeds of a hundred), and a user plans a session around the
// runs it takes; when it runs out the points still racing are ranked on
// the runs they have, as a grid's would be.

// planBudget works out the race's budget in probe runs, raised with a note
// to the least a race needs (two baseline visits, a screening run per
// point, the leader's visit and a one-run visit for each other point the
// screening keeps) where it is smaller.
func (r *state) planBudget() {
	r.budget = 0
	if r.Plan.Budget == 0 {
		return
	}
	visit := r.Plan.Warmup + r.Plan.Repeats
	sched, _ := r.schedule()
	r.gridRuns = len(sched) * visit
	r.budget = int(math.Floor(r.Plan.Budget * float64(r.gridRuns)))
	keep := screenCut(len(r.points))
	least := 3*visit + len(r.points) + (keep-1)*(r.Plan.Warmup+1)
	if r.Plan.Warmup == 0 {
		least-- // the leader's screening run is one of its runs
	}
	if r.budget < least {
		r.notes = append(r.notes, fmt.Sprintf("adaptive race: %s of the %d probe runs a grid of these %d points takes is %d, too few to race them; at most %d, the least a race needs (two baseline visits, a screening run per point, the leader's %d runs and a run for each of the %d others the screening keeps)",
			budgetShare(r.Plan.Budget), r.gridRuns, len(r.points), r.budget, least, visit, keep-1))
		r.budget = least
		return
	}
	what := "adaptive race"
	if r.Plan.Mode == plan.ModeModel {
		what = "model search (and the race it falls back to)"
	}
	r.notes = append(r.notes, fmt.Sprintf("%s: at most %d probe runs, %s of the %d a grid of these %d points takes (warm-ups and baseline visits included)",
		what, r.budget, budgetShare(r.Plan.Budget), r.gridRuns, len(r.points)))
}

// budgetShare renders a budget share: "a third" for the default, else a
// percentage.
func budgetShare(b float64) string {
	if b == plan.DefaultBudget {
		return "a third"
	}
	return fmt.Sprintf("%.0f %%", 100*b)
}

// fit is the runs a visit of want runs after warmup warm-ups may take
// within the budget, the last baseline visit's runs kept aside: want,
// fewer, or 0 when not even one run fits.
func (r *state) fit(warmup, want int) int {
	if r.budget == 0 {
		return want
	}
	room := r.budget - r.spent - (r.Plan.Warmup + r.Plan.Repeats)
	return max(min(want, room-warmup), 0)
}
