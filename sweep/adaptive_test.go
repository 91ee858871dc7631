package sweep_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
)

func TestAdaptiveFindsTheGridWinnerWithFewerRuns(t *testing.T) {
	specs := []string{"AHBBRST=0,2,3,7", "TXPBURST=4,8,16,32", "RXPBURST=8,16,32", "ITC=1,2,8,64"}
	run := func(mode string) *sweep.Outcome {
		// The board as Linux leaves it, streaming disabled, the bus half
		// busy (the one model's scenario of close competitors: every
		// burst length counts); no simulated driver, so ITC holds.
		tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
		s := newRunner(t, tg, mode, specs...)
		s.land.BusLoad = 0.5
		s.runner.Plan.Repeats = 5
		out, err := s.runner.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	grid, ad := run(plan.ModeGrid), run(plan.ModeAdaptive)
	gw, aw := grid.Ranking.Winner(), ad.Ranking.Winner()
	// The same winner, or one the grid itself cannot tell from its own
	// (TXPBURST does not matter to reads).
	if g := grid.Ranking.Find(aw.Key); gw.Key != aw.Key && (g == nil || !g.Tied) {
		t.Errorf("grid winner %s, adaptive %s, which the grid ranks %+v", gw.Key, aw.Key, g)
	}
	if ad.ProbeRuns*100 > grid.ProbeRuns*35 {
		t.Errorf("adaptive used %d probe runs, grid %d: more than 35 %%", ad.ProbeRuns, grid.ProbeRuns)
	}
	t.Logf("grid %d runs, adaptive %d (%.0f %%), winner %s", grid.ProbeRuns, ad.ProbeRuns, 100*float64(ad.ProbeRuns)/float64(grid.ProbeRuns), aw.Key)
	if len(ad.Ranking.Excluded) == 0 || ad.Ranking.Excluded[0].Status != rank.StatusEliminated {
		t.Errorf("excluded %+v", ad.Ranking.Excluded)
	}
}

// TestAdaptiveBench compares the adaptive race with the full grid on the
// model's close-competitors scenario (the board's AHB half busy, so every
// burst length counts; 1 % and 2 % run noise) over several seeds.
// bench/adaptive.sh runs it (CITUNE_BENCH=1).
func TestAdaptiveBench(t *testing.T) {
	if os.Getenv("CITUNE_BENCH") == "" {
		t.Skip("set CITUNE_BENCH=1 (bench/adaptive.sh does)")
	}
	specs := []string{"AHBBRST=0,2,3,7", "RXPBURST=4,8,16,32", "ITC=0,1,2,8"}
	run := func(mode string, seed uint64, noise float64, warmup int) *sweep.Outcome {
		tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
		s := newRunner(t, tg, mode, specs...)
		s.land.BusLoad = 0.5
		s.runner.Journal = ""
		s.runner.Plan.Repeats, s.runner.Plan.Warmup, s.runner.Plan.Seed = 5, warmup, int64(seed)
		s.land.Noise, s.land.Seed = noise, seed
		out, err := s.runner.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	var b strings.Builder
	fmt.Fprintf(&b, "scenario 2: imx6q board values, reads, bus load 0.5 (AHBBRST=0,2,3,7 RXPBURST=4,8,16,32 ITC=0,1,2,8: 28 points), repeat 5, 5 seeds\n")
	fmt.Fprintf(&b, "%-6s %-7s %9s %9s %6s  %-5s %s\n", "noise", "warmup", "grid", "adaptive", "ratio", "same", "tied (adaptive's winner not significantly different in the grid's own ranking)")
	for _, noise := range []float64{0.01, 0.02} {
		for _, w := range []int{0, 1} {
			g, a, same, tied, n := 0, 0, 0, 0, 0
			for seed := uint64(1); seed <= 5; seed++ {
				gr, ad := run(plan.ModeGrid, seed, noise, w), run(plan.ModeAdaptive, seed, noise, w)
				g += gr.ProbeRuns
				a += ad.ProbeRuns
				n++
				switch aw := ad.Ranking.Winner().Key; {
				case gr.Ranking.Winner().Key == aw:
					same++
				case gr.Ranking.Find(aw) != nil && gr.Ranking.Find(aw).Tied:
					tied++
				default:
					fmt.Fprintf(&b, "  seed %d: grid %s, adaptive %s (grid: %+v)\n", seed, gr.Ranking.Winner().Key, aw, gr.Ranking.Find(aw))
				}
			}
			fmt.Fprintf(&b, "%-6s %-7d %9d %9d %5.0f%%  %d/%d   %d/%d\n", fmt.Sprintf("%.0f %%", noise*100), w, g, a, 100*float64(a)/float64(g), same, n, tied, n)
			// The goal: at 2 % noise, the grid's winner or one it calls
			// tied in every seed, with at most 35 % of its probe runs.
			// With a warm-up per visit the one-run screening round alone
			// costs 2 of the grid's 6 runs per point: that is reported,
			// not held to the goal.
			if noise == 0.02 && w == 0 && (same+tied < n || a*100 > g*35) {
				t.Errorf("goal missed at 2 %% noise, warm-up %d: %d of %d seeds found the grid's winner or a tie, %d of %d runs", w, same+tied, n, a, g)
			}
		}
	}
	fmt.Print(b.String())
}

// An adaptive race groups every round by module-parameter value too, and
// stays within the reloads its note announces.
func TestAdaptiveModParamReloadsWithinItsBound(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeAdaptive, "modparam:ehci_hcd.log2_irq_thresh=0,3,6", "AHBBRST=0,1,2,3")
	s.runner.Plan.Repeats = 3
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
	s.runner.Remap = func(context.Context) error { return tg.Identify() }
	if err := s.runner.Prepare(); err != nil {
		t.Fatal(err)
	}
	// 2 values to reach in the first round, 2 more in each of the
	// other 2 rounds, 1 back: 7.
	if !slices.ContainsFunc(s.runner.Notes(), func(n string) bool { return strings.Contains(n, "at most 7 reloads") }) {
		t.Errorf("notes %q lack the bound of 7 reloads", s.runner.Notes())
	}
	if _, err := s.runner.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	loads := 0
	for _, c := range loader.CallLog() {
		if strings.HasPrefix(c, "modprobe ehci_hcd ") {
			loads++
		}
	}
	if loads > 7 || loads < 3 {
		t.Errorf("ehci_hcd loaded %d times, want 3 to 7", loads)
	}
	if !strings.Contains(s.log.String(), "[at most ") {
		t.Errorf("no bound on the time left in the progress:\n%s", s.log)
	}
}
