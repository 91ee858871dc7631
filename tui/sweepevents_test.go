package tui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// The TUI follows a sweep through the runner's events, not its results
// file: an adaptive race shows its eliminations, progress counts up to
// the points planned, the restore is noted, and each point's rates are
// the ones the results file records for it.
func TestSweepRunnerFollowsTheRunnersEvents(t *testing.T) {
	e := newEnv(t, false)
	out := filepath.Join(t.TempDir(), "r.jsonl")
	sr := &SweepRunner{Target: e.target, Prober: newSimMeasure(t, e), ProbeName: "sim", Out: out,
		Adjust: func(p *plan.Plan) { p.Settle, p.Warmup, p.Seed = 0, 0, 1 },
		Since:  func(time.Time) time.Duration { return 0 }}
	plan, err := parsePlan("AHBBRST=0,2,3,7 RXPBURST=8,16,32 mode=adaptive repeat=5", e.target.Profile.Map)
	if err != nil {
		t.Fatal(err)
	}
	points := map[string]SweepPoint{} // last update per point
	var notes, currents []string
	var last SweepUpdate
	err = sr.Run(context.Background(), plan.Plan, nil, func(u SweepUpdate) {
		if u.Point != nil && !u.Point.Baseline {
			points[strings.Join(u.Point.Values, " ")] = *u.Point
		}
		if u.Note != "" {
			notes = append(notes, u.Note)
		}
		if u.Current != "" {
			currents = append(currents, u.Current)
		}
		if u.Results == "" {
			last = u
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	fileRates := map[string][]float64{}
	eliminated := map[string]bool{}
	for _, p := range res.Points {
		if p.Baseline {
			continue
		}
		k := p.Settings["SBUSCFG.AHBBRST"] + " " + p.Settings["BURSTSIZE.RXPBURST"]
		fileRates[k] = append(fileRates[k], p.Rates...)
	}
	for _, ev := range res.Events {
		if ev.Event == results.EventEliminated {
			eliminated[ev.Point] = true
		}
	}
	if len(points) != len(fileRates) || len(eliminated) == 0 {
		t.Fatalf("%d points on screen, %d in the file, %d eliminated", len(points), len(fileRates), len(eliminated))
	}
	nElim := 0
	for k, p := range points {
		if !slices.Equal(p.Rates, fileRates[k]) {
			t.Errorf("point %s: rates %v on screen, %v in the file", k, p.Rates, fileRates[k])
		}
		if p.Status == rank.StatusEliminated {
			nElim++
		}
	}
	if nElim != len(eliminated) {
		t.Errorf("%d points eliminated on screen, %d in the file", nElim, len(eliminated))
	}
	if last.Total != len(points) || last.Done != last.Total || last.Best == nil {
		t.Errorf("last update %+v, want %d of %d done and a winner", last, len(points), len(points))
	}
	if !slices.Contains(notes, "restore: original settings restored") {
		t.Errorf("no restore note in %q", notes)
	}
	if !slices.ContainsFunc(currents, func(c string) bool { return strings.HasPrefix(c, "AHBBRST=") && strings.Contains(c, ", run 2") }) {
		t.Errorf("no second run of a point in %q", currents)
	}
}
