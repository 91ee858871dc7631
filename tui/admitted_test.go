package tui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// A model sweep's file whose visits admit screening runs: the Sweep tab
// shows each ranked point with the runs and median its rank stands on,
// as citune report does.
func TestLoadedPointsCountAdmittedRuns(t *testing.T) {
	res, err := results.Load("../report/testdata/admitted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	admits := false
	for _, p := range res.Points {
		admits = admits || p.ScreenAdmitted
	}
	if !admits {
		t.Fatal("the fixture admits no screening run: the test shows nothing")
	}
	var s sweepTab
	s.addVisits(res)
	rk := res.Rank(rank.Policy{})
	if len(rk.Ranked) == 0 {
		t.Fatal("nothing ranked")
	}
	for _, want := range rk.Ranked {
		i := s.find(want.Settings)
		if i < 0 {
			t.Errorf("%s: not on the tab", want.Key)
			continue
		}
		p := s.points[i]
		if len(p.Rates) != want.Runs || rank.Median(p.Rates) != want.Median {
			t.Errorf("%s: the tab shows %d runs, median %.0f; the ranking %d runs, median %.0f", want.Key, len(p.Rates), rank.Median(p.Rates), want.Runs, want.Median)
		}
	}
	// The points the model only screened are dropped with its reason, as
	// citune report shows them, not "ok".
	dropped := 0
	for _, ex := range rk.Excluded {
		if ex.Status != rank.StatusEliminated {
			continue
		}
		dropped++
		i := s.find(ex.Settings)
		if i < 0 {
			t.Errorf("%s: not on the tab", ex.Key)
			continue
		}
		if p := s.points[i]; p.Status != rank.StatusEliminated || p.Reason != ex.Reason {
			t.Errorf("%s: the tab shows %q %q; the ranking %q %q", ex.Key, p.Status, p.Reason, ex.Status, ex.Reason)
		}
	}
	if dropped == 0 {
		t.Error("the fixture drops no point: the test shows less than it says")
	}
}

// The same while the tab follows a model sweep live.
func TestLivePointsCountAdmittedRuns(t *testing.T) {
	admitted := 0
	for seed := int64(1); seed <= 3; seed++ {
		e := newEnv(t, false)
		sr := &testSweeper{Target: e.target, Prober: newSimMeasure(t, e), ProbeName: "sim", Out: filepath.Join(t.TempDir(), "r.jsonl"),
			Adjust:   func(p *plan.Plan) { p.Settle, p.Warmup, p.Seed = 0, 1, seed },
			NewClock: stoppedClock}
		pl, err := parsePlan("AHBBRST=0,2,3,7 TXPBURST=4,8,16,32 RXPBURST=8,16,32 ITC=1,2,8,64 mode=model repeat=5", e.target.Profile.Map)
		if err != nil {
			t.Fatal(err)
		}
		s := sweepTab{plan: pl}
		var end *results.EndRecord
		if _, err := sr.Run(context.Background(), pl.Plan, false, func(ev event.Event) {
			if ev.Kind == event.SweepEnded {
				end = ev.End
			}
			if p := s.follow(ev); p != nil && p.ScreenAdmitted {
				admitted++
			}
		}); err != nil || end == nil {
			t.Fatalf("Run: %v, %v", end, err)
		}
		for _, want := range end.Ranking.Ranked {
			i := s.find(want.Settings)
			if i < 0 {
				t.Errorf("seed %d, %s: not on the tab", seed, want.Key)
				continue
			}
			p := s.points[i]
			if len(p.Rates) != want.Runs || rank.Median(p.Rates) != want.Median {
				t.Errorf("seed %d, %s: the tab shows %d runs, median %.0f; the ranking %d runs, median %.0f", seed, want.Key, len(p.Rates), rank.Median(p.Rates), want.Runs, want.Median)
			}
		}
	}
	if admitted == 0 {
		t.Fatal("no visit admitted a screening run: the test shows nothing")
	}
}
