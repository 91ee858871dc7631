package sweep_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
)

// A model sweep's file is version 2 (its visits may admit screening
// runs, which a version-1 reader would leave out); a grid's stays 1. A
// model sweep resumed from a version-1 file admits none, so the file
// stays what its header says.
func TestModelFileVersion(t *testing.T) {
	admittedWhole, admittedOld := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		_, s := raceSweep(t, plan.ModeModel, seed, 0.02, 1, modelSpecs...)
		whole, err := os.ReadFile(s.out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(whole, []byte(`"version":2,`)) {
			t.Fatalf("seed %d: a model sweep's header is not version 2: %.80s", seed, whole)
		}
		admittedWhole += bytes.Count(whole, []byte(`"screen_admitted":true`))

		tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
		s = newRunner(t, tg, plan.ModeModel, modelSpecs...)
		s.land.BusLoad, s.land.Noise, s.land.Seed = 0.8, 0.02, seed
		s.runner.Plan.Repeats, s.runner.Plan.Seed, s.runner.Plan.Warmup = 5, int64(seed), 1
		s.runner.Plan.SetDefaultBudget()
		ctx, cancel := context.WithCancel(context.Background())
		s.runner.OnEvent = func(e event.Event) {
			if e.Kind == event.ModelFitted {
				cancel()
			}
		}
		if _, err := s.runner.Run(ctx); !errors.Is(err, sweep.ErrInterrupted) {
			t.Fatalf("first session: %v", err)
		}
		cancel()
		b, err := os.ReadFile(s.out)
		if err != nil {
			t.Fatal(err)
		}
		// As a citune before version 2 wrote it.
		b = bytes.Replace(b, []byte(`"version":2,`), []byte(`"version":1,`), 1)
		if err := os.WriteFile(s.out, b, 0o644); err != nil {
			t.Fatal(err)
		}
		prev, err := results.Load(s.out)
		if err != nil {
			t.Fatal(err)
		}
		f, err := results.OpenAppend(s.out)
		if err != nil {
			t.Fatal(err)
		}
		r2 := &sweep.Config{Target: tg, Prober: s.land, Plan: s.runner.Plan, Out: results.NewWriter(f), Resume: prev, Journal: s.journal}
		if _, err := r2.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		f.Close()
		after, err := os.ReadFile(s.out)
		if err != nil {
			t.Fatal(err)
		}
		admittedOld += bytes.Count(after, []byte(`"screen_admitted":true`))
	}
	if admittedWhole == 0 {
		t.Fatal("no seed admitted a screening run: the test shows nothing")
	}
	if admittedOld != 0 {
		t.Errorf("resumed from version-1 files, %d visits admitted screening runs", admittedOld)
	}
	_, s := raceSweep(t, plan.ModeGrid, 1, 0.02, 1, "ITC=1,8")
	if b, _ := os.ReadFile(s.out); !bytes.Contains(b, []byte(`"version":1,`)) {
		t.Errorf("a grid sweep's header is not version 1: %.80s", b)
	}
}
