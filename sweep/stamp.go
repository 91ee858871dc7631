package sweep

import "time"

// stamp is a record's time: the wall clock, and on a SimClock the
// modelled time beside it (sim_time). Decision (issue 24): a results file
// says when it was written, as a colleague reading it expects, while the
// sweep's own arithmetic (time left, durations, an OnEvent follower's
// elapsed time, the end record's elapsed) stays on the one clock the
// SimClock comment explains; the modelled time of each record is kept
// apart, not lost.
func (r *state) stamp() (wall time.Time, sim *time.Time) {
	wall = r.wall().UTC()
	if r.sim != nil {
		t := r.Clock.Now().UTC()
		sim = &t
	}
	return wall, sim
}
