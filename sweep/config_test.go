package sweep_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/sweep/sweeptest"
)

// A Config runs twice alike: each Run starts from its own state, so the
// second counts, ranks and records only its own runs, as a new session
// of a new sweep.
func TestConfigRunsTwiceAlike(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeAdaptive, "AHBBRST=0,2,3,7", "RXPBURST=16,32")
	first, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	out := filepath.Join(t.TempDir(), "again.jsonl")
	f, err := results.CreateFile(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s.runner.Out = results.NewWriter(f)
	s.runner.Prober = &sweeptest.Landscape{Target: tg, Seed: 1} // the same noise again
	second, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	if second.ProbeRuns != first.ProbeRuns || second.TotalProbeRuns != first.ProbeRuns || !reflect.DeepEqual(second.Ranking, first.Ranking) ||
		!reflect.DeepEqual(second.Notes, first.Notes) || second.Budget != first.Budget {
		t.Errorf("second run: %d of %d runs, budget %d, notes %q, ranking %+v\nfirst: %d runs, budget %d, notes %q, ranking %+v",
			second.ProbeRuns, second.TotalProbeRuns, second.Budget, second.Notes, second.Ranking, first.ProbeRuns, first.Budget, first.Notes, first.Ranking)
	}
	res, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Sessions() != 1 || len(res.Resumes) != 0 || res.ProbeRuns() != first.ProbeRuns {
		t.Errorf("second file: %d session(s), %d resume(s), %d probe runs, want one session of %d", res.Sessions(), len(res.Resumes), res.ProbeRuns(), first.ProbeRuns)
	}
}
