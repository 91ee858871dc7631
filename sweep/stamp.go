package sweep

import "time"

// stamp is a record's time: the wall clock, and on a SimClock the
// modelled time beside it (sim_time). Decision (issue 24): a results file
// says when it was written, as a reader expects; the sweep's own
// arithmetic stays on the one clock (SimClock).
func (r *state) stamp() (wall time.Time, sim *time.Time) {
	wall = r.wall().UTC()
	if r.sim != nil {
		t := r.Clock.Now().UTC()
		sim = &t
	}
	return wall, sim
}
