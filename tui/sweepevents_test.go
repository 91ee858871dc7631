package tui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/sweep/event"
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
	sr := &testSweeper{Target: e.target, Prober: newSimMeasure(t, e), ProbeName: "sim", Out: out,
		Adjust:   func(p *plan.Plan) { p.Settle, p.Warmup, p.Seed = 0, 0, 1 },
		NewClock: stoppedClock}
	pl, err := parsePlan("AHBBRST=0,2,3,7 RXPBURST=8,16,32 mode=adaptive repeat=5", e.target.Profile.Map)
	if err != nil {
		t.Fatal(err)
	}
	s := sweepTab{plan: pl}
	points := map[string]results.PointRecord{} // last record per point
	var notes, currents []string
	var end *results.EndRecord
	path, err := sr.Run(context.Background(), pl.Plan, false, func(ev event.Event) {
		if ev.Kind == event.SweepEnded {
			end = ev.End
		}
		if p := s.follow(ev); p != nil && !p.Baseline {
			points[p.Settings["SBUSCFG.AHBBRST"]+" "+p.Settings["BURSTSIZE.RXPBURST"]] = *p
		}
		notes = append(notes, s.note)
		currents = append(currents, s.current)
	})
	if err != nil || path != out || end == nil {
		t.Fatalf("Run: %q, %v, %v", path, end, err)
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
	for _, p := range s.points {
		if !p.Baseline && p.Status == rank.StatusEliminated {
			nElim++
		}
	}
	for k, p := range points {
		if !slices.Equal(p.Rates, fileRates[k]) {
			t.Errorf("point %s: rates %v on screen, %v in the file", k, p.Rates, fileRates[k])
		}
	}
	if nElim != len(eliminated) {
		t.Errorf("%d points eliminated on screen, %d in the file", nElim, len(eliminated))
	}
	if s.total != len(points) || s.done != s.total || end.Ranking.Winner() == nil {
		t.Errorf("%d of %d done, winner %v; want %d of %d done and a winner", s.done, s.total, end.Ranking.Winner(), len(points), len(points))
	}
	if !slices.Contains(notes, "restore: original settings restored") {
		t.Errorf("no restore note in %q", notes)
	}
	if !slices.ContainsFunc(currents, func(c string) bool { return strings.HasPrefix(c, "AHBBRST=") && strings.Contains(c, ", run 2") }) {
		t.Errorf("no second run of a point in %q", currents)
	}
}

// A point's record on screen pools the rates of all its visits and keeps
// the first reason it was excluded; an elimination gives way to a later
// failure, and a later good visit changes neither.
func TestFoldVisit(t *testing.T) {
	v1 := results.PointRecord{Point: "p", Status: rank.StatusOK, Rates: []float64{1, 2}, IRQsPerMiB: rank.Ptr(5)}
	p := foldVisit(results.PointRecord{}, v1)
	if !slices.Equal(p.Rates, []float64{1, 2}) || !rankable(p) {
		t.Fatalf("first visit: %+v", p)
	}
	p.Status, p.Reason = rank.StatusEliminated, "slower"
	p = foldVisit(p, results.PointRecord{Point: "p", Status: rank.StatusOK, Rates: []float64{3}})
	if p.Status != rank.StatusEliminated || !slices.Equal(p.Rates, []float64{1, 2, 3}) || p.IRQsPerMiB == nil || *p.IRQsPerMiB != 5 {
		t.Errorf("good visit after the elimination: %+v, want still eliminated, rates pooled, irq/MiB kept", p)
	}
	p = foldVisit(p, results.PointRecord{Point: "p", Status: rank.StatusNotHeld, Reason: "r1", Changed: []string{"ITC"}})
	if p.Status != rank.StatusNotHeld || pointReason(p) != "ITC (r1)" {
		t.Errorf("failure after the elimination: %+v, want not held", p)
	}
	p = foldVisit(p, results.PointRecord{Point: "p", Status: rank.StatusCorrupt, Reason: "r2"})
	if p.Status != rank.StatusNotHeld || pointReason(p) != "ITC (r1)" {
		t.Errorf("second failure: %+v, want the first reason kept", p)
	}
}

// A resumed sweep counts only what is left of the points its header
// planned; an elimination marks the point it names, or becomes a note
// when the tab has no such point; a replayed one changes nothing.
func TestFollowResumeAndEliminations(t *testing.T) {
	var s sweepTab
	t0 := fixedClock()
	hdr := &results.Header{Points: []results.PointInfo{{Key: results.BaselineKey}, {Key: "a"}, {Key: "b"}, {Key: "c"}}}
	a := map[string]string{"X": "1"}
	s.follow(event.Event{Kind: event.SweepStarted, Time: t0, Header: hdr})
	s.follow(event.Event{Kind: event.PointClosed, Time: t0.Add(time.Second), Closed: &results.PointRecord{Point: "a", Settings: a, Status: rank.StatusOK, Rates: []float64{1}}})
	if s.total != 3 || s.done != 1 || s.elapsed != time.Second {
		t.Fatalf("after one point: %d/%d in %v, want 1/3 in 1s", s.done, s.total, s.elapsed)
	}
	s.done, s.started = 0, time.Time{} // sweepTab.start, resuming
	s.follow(event.Event{Kind: event.SweepStarted, Time: t0, Resume: &results.ResumeRecord{}})
	if s.total != 2 {
		t.Errorf("resumed total %d, want 2", s.total)
	}
	s.follow(event.Event{Kind: event.PointEliminated, Settings: a, Message: "slower", Replayed: true})
	if s.points[0].Status != rank.StatusOK {
		t.Errorf("a replayed elimination changed the point: %+v", s.points[0])
	}
	s.follow(event.Event{Kind: event.PointEliminated, Settings: a, Message: "slower"})
	if s.points[0].Status != rank.StatusEliminated || s.points[0].Reason != "slower" || s.note != "" {
		t.Errorf("eliminated point %+v, note %q", s.points[0], s.note)
	}
	s.follow(event.Event{Kind: event.PointEliminated, Settings: map[string]string{"X": "9"}, Message: "gone"})
	if s.note != "eliminated: gone" {
		t.Errorf("note %q, want the elimination of an unknown point", s.note)
	}
}
