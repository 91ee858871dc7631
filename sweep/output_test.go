package sweep_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
)

// OpenOut creates a new results file, refuses to overwrite one that
// holds measurements, and appends to the file a resumed sweep continues.
func TestOpenOutCreatesOrAppends(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3")
	if _, err := s.runner.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	done, err := os.ReadFile(s.out)
	if err != nil {
		t.Fatal(err)
	}
	r := &sweep.Config{Target: tg, Prober: s.land, Plan: s.runner.Plan}
	if _, err := r.OpenOut(s.out); !errors.Is(err, results.ErrExists) {
		t.Fatalf("a new sweep over a finished file: error %v", err)
	}
	prev, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	r.Resume = prev
	f, err := r.OpenOut(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Out.Write(map[string]string{"type": "test"}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	after, _ := os.ReadFile(s.out)
	if !bytes.HasPrefix(after, done) || string(after[len(done):]) != "{\"type\":\"test\"}\n" {
		t.Errorf("not appended: %q", after[len(done):])
	}
	fresh := filepath.Join(t.TempDir(), "new.jsonl")
	r.Resume = nil
	f, err = r.OpenOut(fresh)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := os.Stat(fresh); err != nil || fi.Size() != 0 {
		t.Errorf("new file: %v %v", fi, err)
	}
}
