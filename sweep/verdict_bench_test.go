package sweep_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
)

// The verdict's error rates on the simulated board (bench/verdict.sh),
// a host read with the AHB 80 % busy:
//
//   - null: ten TXPBURST values on a host read, where TX bursts move
//     nothing; every recommendation is a false one;
//   - effect: RXPBURST=16,32 × TXPBURST=8,16,32 on the same read, where
//     32-word RX bursts are about 4 % faster than the original 16 and TX
//     bursts do nothing; "found" is a verdict that applies RXPBURST=32,
//     "minimal" one that also leaves TXPBURST at its original 16.
//
// 2 % run noise, 5 runs a point, one warm-up, grid and adaptive; the
// probe runs of each sweep (the verdict's second look included) against
// the grid's without it.
// verdictBusLoad keeps the AHB 80 % busy: idle, the disk's own rate
// hides every burst length (simmodel/README.md), under load 32-word RX
// bursts are about 4 % faster than 16.
const verdictBusLoad = 0.8

var (
	nullAxis   = []string{"TXPBURST=2,4,6,8,10,12,14,16,24,32"}
	effectAxis = []string{"RXPBURST=16,32", "TXPBURST=8,16,32"}
)

func verdictSweep(t *testing.T, mode string, seed uint64, specs []string) *sweep.Outcome {
	t.Helper()
	tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
	s := newRunner(t, tg, mode, specs...)
	s.runner.Journal = ""
	s.runner.Plan.Repeats, s.runner.Plan.Warmup, s.runner.Plan.Seed = 5, 1, int64(seed)
	if mode == plan.ModeAdaptive {
		s.runner.Plan.Budget = plan.DefaultBudget
	}
	s.land.Noise, s.land.Seed, s.land.BusLoad = 0.02, seed, verdictBusLoad
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	return out
}

func TestVerdictBench(t *testing.T) {
	if os.Getenv("CITUNE_BENCH") == "" {
		t.Skip("set CITUNE_BENCH=1 (bench/verdict.sh does)")
	}
	n := 100
	if v := os.Getenv("CITUNE_BENCH_SEEDS"); v != "" {
		fmt.Sscan(v, &n)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verdict bench: imx6q host read, bus load %.1f, 2 %% noise, repeat 5, warm-up 1, seeds 1-%d\n", verdictBusLoad, n)
	fmt.Fprintf(&b, "%-8s %-6s %10s %10s %10s %10s %10s %10s\n", "mode", "sweep", "apply", "found", "minimal", "undecided", "confirmed", "runs/grid")
	gridRuns := map[string]float64{}
	for _, mode := range []string{plan.ModeGrid, plan.ModeAdaptive} {
		// The grid's runs without the second look: what today's grid of
		// 5 runs a point costs.
		for _, sc := range []struct {
			name  string
			specs []string
		}{{"null", nullAxis}, {"effect", effectAxis}} {
			apply, found, minimal, confirmed, none := 0, 0, 0, 0, 0
			runs := 0
			for seed := 1; seed <= n; seed++ {
				out := verdictSweep(t, mode, uint64(seed), sc.specs)
				v := out.Ranking.Verdict
				runs += out.ProbeRuns
				if v.Kind == rank.VerdictApply {
					apply++
					if v.Changes["BURSTSIZE.RXPBURST"] == "32" {
						found++
						if _, tx := v.Changes["BURSTSIZE.TXPBURST"]; !tx {
							minimal++
						}
					}
				}
				if out.ConfirmRuns > 0 {
					confirmed++
				}
				if v.Kind == rank.VerdictNone {
					none++
				}
				if mode == plan.ModeGrid {
					gridRuns[sc.name] = float64(out.ProbeRuns - out.ConfirmRuns)
				}
			}
			g := gridRuns[sc.name]
			fmt.Fprintf(&b, "%-8s %-6s %6d/%-3d %6d/%-3d %6d/%-3d %6d/%-3d %6d/%-3d %10.2f\n", mode, sc.name, apply, n, found, n, minimal, n, none, n, confirmed, n, float64(runs)/float64(n)/g)
			if sc.name == "null" && apply*100 > 5*n {
				t.Errorf("%s null: %d of %d sweeps recommend a change that does nothing", mode, apply, n)
			}
			if sc.name == "effect" && found*100 < 90*n {
				t.Errorf("%s effect: the +4 %% RXPBURST=32 found in %d of %d", mode, found, n)
			}
		}
	}
	t.Log("\n" + b.String())
	fmt.Print(b.String())
}
