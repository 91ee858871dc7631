package sweep

import (
	"context"
	"sync"
	"time"
)

// Clock is a sweep's time: its durations, time left and event times,
// and its settle pauses. WallClock is this machine's; SimClock is the
// simulated board's.
type Clock interface {
	Now() time.Time
	// Sleep waits d; it fails only when ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

// WallClock is this machine's clock.
type WallClock struct{}

// Now is time.Now.
func (WallClock) Now() time.Time { return time.Now() }

// Sleep waits d, or until ctx is done.
func (WallClock) Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// ReloadModel is the simulated board's module reload time (simmodel.Reload
// through the sim probe, or sweeptest.Landscape), drawn seeded like its runs.
type ReloadModel interface {
	// ReloadTime draws the time of the next reload.
	ReloadTime() time.Duration
	// NominalReloadTime is the time without noise, for the estimate a
	// plan announces before it starts.
	NominalReloadTime() time.Duration
}

// SimClock is the clock of a sweep of the simulated board, whose probe
// takes no wall time to speak of: it starts at a wall time and advances
// only by what the board would spend (every simulated run's modelled
// Elapsed, every settle pause, every modelled module reload).
//
// Decision: one clock for everything a sweep reports, so the record
// times, the time left, an OnEvent follower's elapsed time and the
// outcome's duration cannot disagree.
type SimClock struct {
	// Reload gives each reload's time (nil: reloads take none).
	Reload ReloadModel

	mu  sync.Mutex
	now time.Time
}

// NewSimClock returns a clock that reads start until something advances
// it.
func NewSimClock(start time.Time, reload ReloadModel) *SimClock {
	return &SimClock{Reload: reload, now: start}
}

// Now is the clock's time.
func (c *SimClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock on by d (never back).
func (c *SimClock) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Sleep advances the clock by d at once; it fails only when ctx is done.
func (c *SimClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.Advance(d)
	return nil
}

// reload advances the clock by one modelled reload.
func (c *SimClock) reload() {
	if c.Reload != nil {
		c.Advance(c.Reload.ReloadTime())
	}
}

// nominalReload is the modelled time of one reload, for estimates.
func (c *SimClock) nominalReload() time.Duration {
	if c.Reload == nil {
		return 0
	}
	return c.Reload.NominalReloadTime()
}

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
