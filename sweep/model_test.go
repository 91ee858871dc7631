package sweep_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

var modelSpecs = []string{"AHBBRST=0,2,3,7", "TXPBURST=4,8,16,32", "RXPBURST=8,16,32", "ITC=1,2,8,64"}

// The model mode finds the grid's winner (or one the grid calls tied)
// with a fraction of its runs; what it ranks rests on confirmation runs
// alone (every ranked point has the plan's runs), the points it did not
// confirm are eliminated, and the fit is in the outcome and, as events,
// in the results file.
func TestModelFindsTheGridWinner(t *testing.T) {
	for seed := uint64(1); seed <= 2; seed++ {
		grid, _ := raceSweep(t, plan.ModeGrid, seed, 0.02, 1, modelSpecs...)
		mo, s := raceSweep(t, plan.ModeModel, seed, 0.02, 1, modelSpecs...)
		if !sameOrTied(grid, mo) {
			t.Errorf("seed %d: grid winner %s, model %s", seed, grid.Ranking.Winner().Key, mo.Ranking.Winner().Key)
		}
		if g, m := grid.ProbeRuns-grid.ConfirmRuns, mo.ProbeRuns-mo.ConfirmRuns; m*100 > g*30 {
			t.Errorf("seed %d: the model took %d probe runs, the grid %d", seed, m, g)
		}
		for _, p := range mo.Ranking.Ranked {
			if p.Runs < 5 {
				t.Errorf("seed %d: %s ranked on %d runs", seed, p.Key, p.Runs)
			}
		}
		if mo.Model == nil || mo.Model.Fallback != "" || mo.Model.R2 < 0.9 || len(mo.Model.Top) == 0 {
			t.Fatalf("seed %d: model %+v", seed, mo.Model)
		}
		res, err := results.Load(s.out)
		if err != nil {
			t.Fatal(err)
		}
		ms := res.Models()
		if len(ms) == 0 || ms[len(ms)-1].R2 != mo.Model.R2 {
			t.Errorf("seed %d: the file records %d fits, the last %+v; the outcome's %+v", seed, len(ms), ms, mo.Model)
		}
		if !strings.Contains(s.log.String(), "model (round 1): ") {
			t.Errorf("seed %d: the log does not show the fit:\n%s", seed, s.log)
		}
		elim := res.Eliminated()
		for _, x := range mo.Ranking.Excluded {
			if x.Status == rank.StatusEliminated && !strings.Contains(elim[x.Key], "the model predicts it") {
				t.Errorf("seed %d: %s eliminated for %q", seed, x.Key, elim[x.Key])
			}
		}
	}
}

// A model sweep interrupted after its first fit and resumed replays the
// visits, fits the same models without recording them twice, and ends
// where an uninterrupted sweep ends; with warm-ups in the plan too, where
// the warm-up decision and admitted screening runs replay.
func TestModelResume(t *testing.T) {
	for _, w := range []int{0, 1} {
		t.Run(fmt.Sprint("warm-up ", w), func(t *testing.T) { modelResume(t, w) })
	}
}

func modelResume(t *testing.T, warmup int) {
	whole, _ := raceSweep(t, plan.ModeModel, 3, 0.02, warmup, modelSpecs...)
	tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
	s := newRunner(t, tg, plan.ModeModel, modelSpecs...)
	s.land.BusLoad, s.land.Noise, s.land.Seed = 0.8, 0.02, 3
	s.runner.Plan.Repeats, s.runner.Plan.Seed, s.runner.Plan.Warmup = 5, 3, warmup
	s.runner.Plan.SetDefaultBudget()
	fits := 0
	out := interruptAndResume(t, tg, s, func(e event.Event) bool {
		if e.Kind == event.ModelFitted {
			fits++
		}
		return fits == 1 && e.Kind == event.PointClosed
	}, nil, nil)
	if out.Ranking.Winner().Key != whole.Ranking.Winner().Key || out.TotalProbeRuns != whole.ProbeRuns {
		t.Errorf("resumed: winner %s after %d runs; uninterrupted: %s after %d", out.Ranking.Winner().Key, out.TotalProbeRuns, whole.Ranking.Winner().Key, whole.ProbeRuns)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	rounds := map[int]int{}
	for _, m := range res.Models() {
		rounds[m.Round]++
	}
	for r, n := range rounds {
		if n != 1 {
			t.Errorf("round %d recorded %d times", r, n)
		}
	}
	if len(rounds) != whole.Model.Round+1 {
		t.Errorf("%d rounds recorded, the uninterrupted sweep fitted %d", len(rounds), whole.Model.Round+1)
	}
}

// Where the landscape is not additive (every point's rate scaled by its
// own factor, drawn from 0.5 to 1.5 by a hash of its settings, larger
// than the simulated ITC and burst effects: no pair of
// axes explains it), the model says it fits badly and the sweep races
// the points instead, and finds the fastest.
func TestModelFallsBackToRacing(t *testing.T) {
	specs := []string{"TXPBURST=4,8,16,32", "RXPBURST=4,8,16,32", "ITC=1,2,4,8"}
	bump := func(s *setup) {
		field := func(name string) uint32 {
			ref, err := s.runner.Target.Profile.Map.Lookup(name)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := s.runner.Target.Read32(ref.Reg.Offset)
			if err != nil {
				t.Fatal(err)
			}
			return ref.Field.Get(raw)
		}
		s.land.Extra = func() float64 {
			h := fnv.New32a()
			fmt.Fprint(h, field("TXPBURST"), field("RXPBURST"), field("ITC"))
			return 0.5 + float64(h.Sum32()%1000)/1000
		}
	}
	out, s := raceSweepWith(t, plan.ModeModel, 1, 0.01, 0, bump, specs...)
	if out.Model == nil || out.Model.Fallback == "" {
		t.Fatalf("no fallback: %+v\n%s", out.Model, s.log)
	}
	if !strings.Contains(s.log.String(), "racing the points instead") || !strings.Contains(s.log.String(), "below the leader") {
		t.Errorf("the log does not show the race:\n%s", s.log)
	}
	grid, _ := raceSweepWith(t, plan.ModeGrid, 1, 0.01, 0, bump, specs...)
	if !sameOrTied(grid, out) {
		t.Errorf("winner %s, the grid's %s", out.Ranking.Winner().Key, grid.Ranking.Winner().Key)
	}
}

// A model sweep of a module parameter groups its visits by value and
// stays within the reloads its note announces.
func TestModelModParamReloadsWithinItsBound(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeModel, "modparam:ehci_hcd.log2_irq_thresh=0,3,6", "AHBBRST=0,1,2,3")
	s.runner.Plan.Repeats = 3
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
	s.runner.Remap = func(context.Context) error { return tg.Identify() }
	_, notes, err := s.runner.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	most := -1
	for _, n := range notes {
		if _, after, ok := strings.Cut(n, "at most "); ok && strings.Contains(n, "reloads of") {
			fmt.Sscanf(after, "%d", &most)
		}
	}
	if most < 0 {
		t.Fatalf("no bound on the reloads in %q", notes)
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	loads := 0
	for _, c := range loader.CallLog() {
		if strings.HasPrefix(c, "modprobe ehci_hcd ") {
			loads++
		}
	}
	if loads > most || loads < 3 || out.Model == nil {
		t.Errorf("ehci_hcd loaded %d times, want 3 to %d; model %+v", loads, most, out.Model)
	}
}

// With warm-ups in the plan, a model sweep counts each screening run
// (a first run: taken without a warm-up) against its point's first
// confirmation visit as a look at the first-run effect, so it decides
// on the warm-ups after fewer visits than it has looks; once they are
// skipped, a screened point's confirmation visit admits its screening
// run among its rates (results.PointRecord.ScreenAdmitted) and takes
// one run fewer, and the results file read back ranks it alike.
func TestModelScreeningRunsAreFirstRuns(t *testing.T) {
	admitted, more := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		visits, looks, decided, counting := 0, 0, false, true
		var skipped []*results.PointRecord
		watch := func(s *setup) {
			s.runner.OnEvent = func(e event.Event) {
				switch {
				case e.Kind == event.WarmupsDecided && !decided && strings.HasPrefix(e.Message, "warm-ups skipped"):
					decided = true
					fmt.Sscanf(strings.SplitAfter(e.Message, "the first run of ")[1], "%d", &looks)
				case e.Kind == event.PointClosed && counting:
					// The deciding visit closes after the decision.
					if e.Closed.Runs > 1 {
						visits++
					}
					counting = !decided
				case e.Kind == event.PointClosed && decided && e.Closed.ScreenAdmitted:
					skipped = append(skipped, e.Closed)
				}
			}
		}
		out, s := raceSweepWith(t, plan.ModeModel, seed, 0.02, 1, watch, modelSpecs...)
		if !decided {
			t.Errorf("seed %d: the warm-ups were never skipped", seed)
			continue
		}
		if looks < visits {
			t.Errorf("seed %d: warm-ups skipped on %d looks at the first run after %d visits", seed, looks, visits)
		}
		if looks > visits {
			more++
		}
		res, err := results.Load(s.out)
		if err != nil {
			t.Fatal(err)
		}
		again := res.Rank(rank.Policy{})
		for _, rec := range skipped {
			admitted++
			p := out.Ranking.Find(rec.Point)
			q := again.Find(rec.Point)
			if p == nil || q == nil || p.Runs != 5 || q.Runs != p.Runs || rec.Runs != 4 || rec.Total != 5 {
				t.Errorf("seed %d: %s admitted its screening run: visit %d runs, total %d; ranked %+v, read back %+v", seed, rec.Point, rec.Runs, rec.Total, p, q)
			}
		}
	}
	if more == 0 {
		t.Error("in no seed did a screening run count as a look at the first run")
	}
	if admitted == 0 {
		t.Error("no confirmation visit admitted a screening run")
	}
}

// The screening design covers every pair of values among the points
// where every axis takes effect, and of the collapsed points (where
// AHBBRST makes the bursts ignored: 14 points for 588 combinations)
// only those that see a level not yet seen twice; every value of every
// axis is still screened twice.
func TestModelScreensCollapsedPointsOnce(t *testing.T) {
	specs := []string{"AHBBRST=0,1,3", "TXPBURST=2,4,8,12,16,24,32", "RXPBURST=4,8,12,16,24,32", "ITC=1,2,4,8,16,32,64"}
	var screened []*results.PointRecord
	fitted := false
	watch := func(s *setup) {
		s.runner.OnEvent = func(e event.Event) {
			switch {
			case e.Kind == event.ModelFitted:
				fitted = true
			case e.Kind == event.PointClosed && !fitted && !e.Closed.Baseline:
				screened = append(screened, e.Closed)
			}
		}
	}
	_, s := raceSweepWith(t, plan.ModeModel, 1, 0.02, 0, watch, specs...)
	type cell struct{ a, va, b, vb string }
	want, got := map[cell]bool{}, map[cell]bool{}
	axes := []string{"SBUSCFG.AHBBRST", "BURSTSIZE.TXPBURST", "BURSTSIZE.RXPBURST", "USBCMD.ITC"}
	cells := func(set map[string]string, into map[cell]bool) {
		for i, a := range axes {
			for _, b := range axes[i+1:] {
				into[cell{a, set[a], b, set[b]}] = true
			}
		}
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[2]string]int{}
	count := func(set map[string]string, ignored []string, into map[[2]string]int) {
		for a, v := range set {
			if !slices.Contains(ignored, a) {
				into[[2]string{a, v}]++
			}
		}
	}
	all := map[[2]string]int{}
	for _, p := range res.Header.Points {
		if len(p.Ignored) == 0 {
			cells(p.Settings, want)
		}
		count(p.Settings, p.Ignored, all)
	}
	collapsed := 0
	for _, rec := range screened {
		if len(rec.Ignored) > 0 {
			collapsed++
		} else {
			cells(rec.Settings, got)
		}
		count(rec.Settings, rec.Ignored, seen)
	}
	for c := range want {
		if !got[c] {
			t.Errorf("pair %v not screened", c)
		}
	}
	for v, n := range all {
		if seen[v] < min(n, 2) {
			t.Errorf("%v screened %d times", v, seen[v])
		}
	}
	if collapsed == 0 || collapsed >= 14 {
		t.Errorf("%d of the 14 collapsed points screened (of %d)", collapsed, len(screened))
	}
}
