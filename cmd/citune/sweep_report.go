package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/units"
)

// reportSweep prints the outcome (JSON with --json) and turns it into an
// exit code; sim (target and probe) marks a simulated sweep's output.
func (a *app) reportSweep(t *soc.Target, path string, out *sweep.Outcome, err error, display units.Display, sim results.Header) error {
	if a.g.json {
		if jerr := writeJSON(a.env.stdout, struct {
			Target  report.JSONTarget `json:"target"`
			Results string            `json:"results"`
			// RealProbe: a simulated sweep with a real probe (--force).
			RealProbe bool `json:"real_probe,omitempty"`
			*sweep.Outcome
			// The session's time on the sweep's clock (the simulated
			// board's modelled time when simulated_time).
			Elapsed float64 `json:"elapsed_s"`
			ReloadS float64 `json:"reload_s"`
		}{infoOf(t), path, sim.RealProbe(), out, out.Elapsed.Seconds(), out.ReloadTime.Seconds()}); jerr != nil {
			return jerr
		}
	} else {
		var b strings.Builder
		out.Ranking.FormatIn(&b, display)
		w := textwrap.EscapeWriter(humanOut(a.env.stdout, a.env.isTTY)) // names and values may come from a resumed results file
		if mark := sim.SimulatedMark(); mark != "" {
			fmt.Fprintln(w, mark)
		}
		fmt.Fprint(w, b.String())
		if out.Ranking.Winner() != nil {
			v := out.Ranking.Verdict
			fmt.Fprintln(w, v.Headline())
			for _, l := range v.DetailsIn(display) {
				fmt.Fprintln(w, "  "+l)
			}
		}
		fmt.Fprintf(w, "probe runs: %d", out.ProbeRuns)
		if out.TotalProbeRuns != out.ProbeRuns {
			fmt.Fprintf(w, " in this session, %d in all", out.TotalProbeRuns)
		}
		fmt.Fprint(w, " (warm-ups included)")
		if out.Budget > 0 {
			fmt.Fprintf(w, "; the race's budget: %d, of the grid's %d", out.Budget, out.GridRuns)
		}
		if out.ConfirmRuns > 0 {
			fmt.Fprintf(w, "; the verdict's second look: %d of them, outside any budget", out.ConfirmRuns)
		}
		fmt.Fprintln(w)
		if out.Model != nil {
			fmt.Fprintln(w, out.Model.String())
		}
		if out.OutOfBudget > 0 {
			fmt.Fprintf(w, "the race's budget ran out with %d point(s) still racing: they are ranked on the runs they had (a larger --budget races them further)\n", out.OutOfBudget)
		}
		fmt.Fprintln(w, sweepTime(out))
		fmt.Fprintf(w, "results: %s", path)
		switch {
		case out.Status != results.StatusComplete || out.Ranking.Winner() == nil:
		case out.Ranking.Verdict.Kind == rank.VerdictApply:
			fmt.Fprintf(w, "; make it permanent: citune dts --results %s", path)
		default:
			fmt.Fprintf(w, "; nothing to make permanent (citune dts --results %s writes the original values down)", path)
		}
		fmt.Fprintln(w)
	}
	switch {
	case err != nil && errors.Is(err, sweep.ErrInterrupted) && out.Restored:
		return fmt.Errorf("%w; the original settings were restored; continue with: citune sweep --resume %s", err, path)
	case err != nil:
		return err
	case out.Corrupt > 0:
		return fmt.Errorf("DATA CORRUPTION at %d point(s): see the ranking above and %s", out.Corrupt, path)
	case out.NotHeld > 0:
		return withCode(exitNotHeld, fmt.Errorf("%d point(s) did not hold their settings and were not ranked (see %s)", out.NotHeld, path))
	}
	return nil
}

// sweepTime is the line of the session's time and its module reloads'
// share, on the sweep's clock.
func sweepTime(out *sweep.Outcome) string {
	round := func(d time.Duration) time.Duration {
		if d < time.Minute {
			return d.Round(100 * time.Millisecond)
		}
		return d.Round(time.Second)
	}
	s := fmt.Sprintf("time: %s", round(out.Elapsed))
	if out.Reloads > 0 {
		s += fmt.Sprintf(", of which %d module reload(s) %s", out.Reloads, round(out.ReloadTime))
	}
	if out.SimulatedTime {
		s += " (the simulated board's modelled time)"
	}
	return s
}
