package sweep_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// fileRecords reads a results file's records as "type" or
// "event:<event>", each with its point.
func fileRecords(t *testing.T, path string) (kinds, points []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Type, Event, Point string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		k := r.Type
		if r.Type == results.TypeEvent {
			k += ":" + r.Event
		}
		kinds, points = append(kinds, k), append(points, r.Point)
	}
	return kinds, points
}

// recordOf is the record the results file should hold for e ("" for
// none).
func recordOf(e event.Event) string {
	switch e.Kind {
	case event.SweepStarted:
		if e.Resume != nil {
			return results.TypeResume
		}
		return results.TypeHeader
	case event.RunFinished, event.PointClosed, event.SweepEnded:
		return e.Kind.String()
	case event.SweepInterrupted:
		return ""
	}
	if e.Replayed {
		return ""
	}
	return results.TypeEvent + ":" + e.Kind.String()
}

func TestEventsAreWhatTheResultsFileRecords(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
	s := newRunner(t, tg, plan.ModeAdaptive, "AHBBRST=0,2,3,7", "RXPBURST=8,16,32")
	s.land.BusLoad = 0.8
	s.land.Corrupt = func(n int) bool { return n == 7 }
	s.runner.Plan.Repeats = 5
	var evs []event.Event
	s.runner.OnEvent = func(e event.Event) { evs = append(evs, e) }
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	// One record per event, in the same order, for the same point.
	var want, wantPoints []string
	for _, e := range evs {
		if k := recordOf(e); k != "" {
			want, wantPoints = append(want, k), append(wantPoints, e.Point)
		}
	}
	got, gotPoints := fileRecords(t, s.out)
	if !slices.Equal(got, want) || !slices.Equal(gotPoints, wantPoints) {
		t.Fatalf("file records\n%v\n%v\nevents\n%v\n%v", got, gotPoints, want, wantPoints)
	}
	if evs[0].Kind != event.SweepStarted || evs[0].Header == nil || len(evs[0].Notes) != len(out.Notes) {
		t.Errorf("first event %+v", evs[0])
	}
	if n := len(evs); evs[n-1].Kind != event.SweepEnded || evs[n-1].End.Status != results.StatusComplete ||
		evs[n-2].Kind != event.SettingsRestored || evs[n-2].RestoreFailed {
		t.Errorf("last events %+v %+v", evs[n-2], evs[n-1])
	}
	// Runs and the close of a visit belong to the point it started.
	open := ""
	count := map[event.Kind]int{}
	statuses := map[rank.Status]int{}
	for _, e := range evs {
		count[e.Kind]++
		switch e.Kind {
		case event.PointStarted:
			if open != "" {
				t.Errorf("%s started while %s is open", e.Point, open)
			}
			open = e.Point
			if !strings.HasSuffix(e.Message, e.Label) || len(e.Settings) == 0 {
				t.Errorf("point started %+v", e)
			}
		case event.RunFinished:
			if e.Point != open || e.Run.Point != open {
				t.Errorf("run of %s while %s is open", e.Point, open)
			}
		case event.PointClosed:
			if e.Point != open || e.Closed.Point != open {
				t.Errorf("%s closed while %s is open", e.Point, open)
			}
			open = ""
			statuses[e.Closed.Status]++
		case event.PointEliminated:
			if e.Message == "" || e.Replayed || len(e.Settings) == 0 {
				t.Errorf("elimination %+v", e)
			}
		}
	}
	if count[event.RunFinished] != out.ProbeRuns || statuses[rank.StatusCorrupt] != 1 || count[event.PointEliminated] == 0 {
		t.Errorf("events %v, statuses %v; %d probe runs", count, statuses, out.ProbeRuns)
	}
	// The printer is a consumer of the same events: a progress line per
	// closed visit, one line per elimination.
	log := s.log.String()
	if n := strings.Count(log, "(median of "); n != statuses[rank.StatusOK] {
		t.Errorf("%d progress lines for %d good visits:\n%s", n, statuses[rank.StatusOK], log)
	}
	if n := strings.Count(log, "    dropped "); n != count[event.PointEliminated] {
		t.Errorf("%d dropped lines for %d eliminations:\n%s", n, count[event.PointEliminated], log)
	}
}

func TestCancelFromAnEventEndsWithRestore(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=3,7")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var kinds []event.Kind
	s.runner.OnEvent = func(e event.Event) {
		kinds = append(kinds, e.Kind)
		if e.Kind == event.PointClosed && !e.Closed.Baseline {
			cancel()
		}
	}
	_, err := s.runner.Run(ctx)
	if !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("err %v", err)
	}
	n := len(kinds)
	if n < 3 || !slices.Equal(kinds[n-3:], []event.Kind{event.SweepInterrupted, event.SettingsRestored, event.SweepEnded}) {
		t.Errorf("events %v", kinds)
	}
	if !strings.Contains(s.log.String(), "interrupted: restoring the original settings\n") {
		t.Errorf("log:\n%s", s.log)
	}
}

func TestEventKindNames(t *testing.T) {
	for k, want := range map[event.Kind]string{event.PointStarted: results.EventApply, event.ModuleReload: results.EventReload,
		event.SettingsRestored: results.EventRestore, event.PointEliminated: results.EventEliminated, event.SecondLook: results.EventSecondLook, event.ModelFitted: results.EventModel,
		event.BaselineScheduled: results.EventBaselineSchedule, event.WarmupsDecided: results.EventWarmups, 0: "unknown", event.WarmupsDecided + 1: "unknown"} {
		if got := k.String(); got != want {
			t.Errorf("%d: %q, want %q", k, got, want)
		}
	}
}

// A resumed adaptive race decides its eliminations again from the
// replayed visits: those the file already records come as Replayed events
// and are not written twice; the resumed session starts with its resume
// record, not a header.
func TestResumedEliminationsAreReplayed(t *testing.T) {
	tg, _ := imageTarget(t, "imx6q")
	s := newRunner(t, tg, plan.ModeAdaptive, "AHBBRST=0,2,3,7", "RXPBURST=8,16,32")
	s.runner.Plan.Repeats = 5
	first := map[string]bool{}
	var evs []event.Event
	interruptAndResume(t, tg, s,
		func(e event.Event) bool { return e.Kind == event.PointClosed && len(first) > 0 }, // the visit after the first elimination
		func(e event.Event) {
			if e.Kind == event.PointEliminated {
				first[e.Point] = true
			}
		},
		func(e event.Event) { evs = append(evs, e) })
	if len(first) == 0 {
		t.Fatal("nothing eliminated before the stop")
	}
	if evs[0].Kind != event.SweepStarted || evs[0].Resume == nil || evs[0].Header != nil {
		t.Errorf("resumed session starts with %+v", evs[0])
	}
	replayed := map[string]bool{}
	for _, e := range evs {
		if e.Kind == event.PointEliminated {
			if e.Replayed != first[e.Point] {
				t.Errorf("%s eliminated again with Replayed %v; the first session eliminated it: %v", e.Point, e.Replayed, first[e.Point])
			}
			if e.Replayed {
				replayed[e.Point] = true
			}
		}
	}
	if len(replayed) != len(first) {
		t.Errorf("replayed %v, first session %v", replayed, first)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]int{}
	for _, e := range res.Events {
		if e.Event == results.EventEliminated {
			written[e.Point]++
		}
	}
	for p, n := range written {
		if n != 1 {
			t.Errorf("%s eliminated %d times in the file", p, n)
		}
	}
}
