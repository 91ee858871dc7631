package sweep_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
)

// fixedCostSweep runs a grid of points (ITC × AHBBRST, n points) on the
// imx6q board, 1 % run noise, 5 runs and 1 warm-up, a baseline every
// every points, with the landscape changed by change; fixed keeps the
// plan's fixed costs (Config.FixedCosts).
func fixedCostSweep(t *testing.T, seed uint64, every int, fixed bool, change func(*setup), specs ...string) (*setup, *results.Results) {
	t.Helper()
	tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
	s := newRunner(t, tg, plan.ModeGrid, specs...)
	s.runner.Journal = ""
	s.runner.Plan.Repeats, s.runner.Plan.Warmup, s.runner.Plan.Seed, s.runner.Plan.BaselineEvery = 5, 1, int64(seed), every
	s.runner.Plan.Settle = 200 * time.Millisecond
	s.land.Noise, s.land.Seed, s.land.Drift = 0.01, seed, -1
	s.runner.Clock = sweep.NewSimClock(time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC), s.land)
	if fixed {
		s.runner.FixedCosts = true
	}
	if change != nil {
		change(s)
	}
	if _, err := s.runner.Run(t.Context()); err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	return s, res
}

var twelve = []string{"ITC=1,2,4,8", "AHBBRST=0,1,3"}
var fortyEight = []string{"ITC=1,2,4,8", "AHBBRST=0,1,3", "RXPBURST=4,8,16,32"}

func baselineVisits(res *results.Results) int {
	n := 0
	for _, v := range res.Points {
		if v.Baseline {
			n++
		}
	}
	return n
}

func eventsOf(res *results.Results, name string) []string {
	var out []string
	for _, e := range res.Events {
		if e.Event == name {
			out = append(out, e.Message)
		}
	}
	return out
}

// A steady board's baseline is visited less often as its visits agree;
// a drifting one's more often, and the results file says why each time.
func TestBaselineVisitsFollowDrift(t *testing.T) {
	_, fixed := fixedCostSweep(t, 1, 4, true, nil, fortyEight...)
	_, steady := fixedCostSweep(t, 1, 4, false, nil, fortyEight...)
	_, drift := fixedCostSweep(t, 1, 4, false, func(s *setup) { s.land.Drift = 0.08 }, fortyEight...)
	f, st, dr := baselineVisits(fixed), baselineVisits(steady), baselineVisits(drift)
	// (The verdict's second look adds two visits where it looks.)
	if want := (len(fixed.Header.Points)+3)/4 + 1; f != want && f != want+2 {
		t.Errorf("fixed schedule: %d baseline visits of %d points every 4, want %d", f, len(fixed.Header.Points), want)
	}
	t.Logf("baseline visits: fixed %d, steady %d, drifting %d", f, st, dr)
	if st > f-3 {
		t.Errorf("steady board: %d baseline visits, the fixed schedule %d: want far fewer", st, f)
	}
	if dr <= st+2 {
		t.Errorf("drifting board: %d baseline visits, the steady one %d: want more", dr, st)
	}
	if ev := eventsOf(steady, results.EventBaselineSchedule); len(ev) == 0 || !strings.Contains(ev[0], "agree") {
		t.Errorf("steady board's schedule events %q", ev)
	}
	if ev := eventsOf(drift, results.EventBaselineSchedule); !strings.Contains(strings.Join(ev, "\n"), "differ") {
		t.Errorf("drifting board's schedule events %q", ev)
	}
	if ev := eventsOf(fixed, results.EventBaselineSchedule); len(ev) > 0 {
		t.Errorf("fixed schedule decided %q", ev)
	}
}

// Without a first-run effect the warm-ups stop after the first visits
// (a "warmups" event says why); where the first run of a visit is 6 %
// slower they stay on every visit.
func TestWarmupsOnlyWithAFirstRunEffect(t *testing.T) {
	warmups := func(res *results.Results) (n int) {
		for _, r := range res.Runs {
			if r.Warmup {
				n++
			}
		}
		return n
	}
	_, none := fixedCostSweep(t, 2, 8, false, nil, twelve...)
	_, cold := fixedCostSweep(t, 2, 8, false, func(s *setup) { s.land.FirstRun = 0.94 }, twelve...)
	if n := warmups(none); n > 4 {
		t.Errorf("no first-run effect: %d warm-ups, want the first visits' only", n)
	}
	if ev := eventsOf(none, results.EventWarmups); len(ev) != 1 || !strings.HasPrefix(ev[0], "warm-ups skipped") {
		t.Errorf("no first-run effect: warm-up events %q", ev)
	}
	if n, visits := warmups(cold), len(cold.Points); n != visits {
		t.Errorf("first run 6 %% slower: %d warm-ups in %d visits, want one each", n, visits)
	}
	if ev := eventsOf(cold, results.EventWarmups); len(ev) > 0 {
		t.Errorf("first run 6 %% slower: warm-up events %q", ev)
	}
}

// TestFixedCostBench prints the share of a 12-point sweep's board time
// (the simulated clock) that goes to baseline visits, warm-ups and
// settling, with the plan's fixed costs and with the costs the data
// decide, on a steady board and on a drifting one, seeds 1-5
// (bench/model.sh prints it).
func TestFixedCostBench(t *testing.T) {
	if os.Getenv("CITUNE_BENCH") == "" {
		t.Skip("set CITUNE_BENCH=1 (bench/model.sh does)")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fixed-cost bench: 12 points (%s), repeat 5, warm-up 1, baseline every 8, settle 200 ms, 1 %% noise, seeds 1-5; share of board time\n", strings.Join(twelve, " "))
	fmt.Fprintf(&b, "%-16s %-14s %9s %9s %8s %8s %9s\n", "board", "fixed costs", "baseline", "warm-ups", "settle", "points", "time")
	for _, board := range []struct {
		name  string
		drift float64
	}{{"steady", -1}, {"drifting (8 %)", 0.08}} {
		for _, fixed := range []bool{true, false} {
			var base, warm, points, settle, total time.Duration
			for seed := uint64(1); seed <= 5; seed++ {
				_, res := fixedCostSweep(t, seed, 8, fixed, func(s *setup) { s.land.Drift = board.drift }, twelve...)
				for _, r := range res.Runs {
					d := r.Run.Elapsed
					switch {
					case r.Warmup:
						warm += d
					case r.Baseline:
						base += d
					default:
						points += d
					}
				}
				settle += time.Duration(len(res.Points)) * 200 * time.Millisecond
			}
			total = base + warm + points + settle
			pct := func(d time.Duration) string { return fmt.Sprintf("%.1f %%", 100*float64(d)/float64(total)) }
			name := map[bool]string{true: "as planned", false: "by the data"}[fixed]
			fmt.Fprintf(&b, "%-16s %-14s %9s %9s %8s %8s %8.0fs\n", board.name, name, pct(base), pct(warm), pct(settle), pct(points), total.Seconds()/5)
		}
	}
	fmt.Print(b.String())
}
