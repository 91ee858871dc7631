package sweep_test

import (
	"context"
	"testing"
	"time"

	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/results"
)

// A simulated sweep's records say when they were written (the wall clock)
// and, apart, when on the board's modelled time (sim_time); the events an
// OnEvent follower sees stay on the modelled clock (issue 24, item 20).
func TestSimulatedRecordsCarryWallAndModelledTime(t *testing.T) {
	s, _, events := reloadSetup(t)
	modelled := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	s.runner.Clock = sweep.NewSimClock(modelled, s.land)
	before := time.Now().Add(-time.Second)
	if _, err := s.runner.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	after := time.Now().Add(time.Second)
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	wall := func(what string, at time.Time) {
		t.Helper()
		if at.Before(before) || at.After(after) {
			t.Errorf("%s stamped %v, not the wall clock (%v..%v)", what, at, before, after)
		}
	}
	if len(res.Runs) == 0 || len(res.Ends) == 0 || len(res.Events) == 0 {
		t.Fatalf("runs %d, ends %d, events %d", len(res.Runs), len(res.Ends), len(res.Events))
	}
	wall("the header", res.Header.Started)
	var last time.Time
	for _, r := range res.Runs {
		wall("a run", r.Time)
		if r.SimTime == nil || r.SimTime.Before(modelled) || r.SimTime.Before(last) || r.SimTime.Year() != 2000 {
			t.Fatalf("run %s/%d: sim_time %v, want the modelled clock from %v on", r.Point, r.Seq, r.SimTime, modelled)
		}
		last = *r.SimTime
	}
	for _, e := range res.Events {
		wall("an event", e.Time)
		if e.SimTime == nil || e.SimTime.Year() != 2000 {
			t.Errorf("event %s: sim_time %v", e.Event, e.SimTime)
		}
	}
	end := res.Ends[len(res.Ends)-1]
	wall("the end", end.Time)
	if end.SimTime == nil || !end.SimTime.After(modelled) {
		t.Errorf("end sim_time %v", end.SimTime)
	}
	for _, e := range *events {
		if e.Time.Year() != 2000 {
			t.Fatalf("event %v at %v: followers must see the modelled clock", e.Kind, e.Time)
		}
	}
}
