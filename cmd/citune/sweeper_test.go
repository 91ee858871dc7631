package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/profiles"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
)

// resetSim is the simulated i.MX6Q usbh1 at its reset values.
func resetSim(t *testing.T) *soc.Target {
	t.Helper()
	p, err := soc.LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Controller("usbh1")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := soc.OpenSim(p, c, soc.SimOptions{ResetValues: true})
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// cancelAfter cancels a sweep once its probe ran n times.
type cancelAfter struct {
	probe.Probe
	runs, n atomic.Int64
	cancel  context.CancelFunc
}

func (c *cancelAfter) Run(ctx context.Context, progress func(done, total int64)) (probe.Run, error) {
	r, err := c.Probe.Run(ctx, progress)
	if c.runs.Add(1) == c.n.Load() {
		c.cancel()
	}
	return r, err
}

// The TUI's sweeper: a stopped plan run again resumes in its results
// file, skipping the points done, on the simulated board's clock (the
// sim probe on --sim); another plan gets a file of its own (out-2).
func TestTUISweeperResumesAndNamesFiles(t *testing.T) {
	tg := resetSim(t)
	pr, err := parseProbe([]string{"sim", "--size", "8M"}, probeDeps{Sim: tg, Map: tg.Profile.Map})
	if err != nil {
		t.Fatal(err)
	}
	k := (&app{env: &env{root: fstest.MapFS{"proc/sys/kernel/osrelease": {Data: []byte("6.6\n")}}}}).newSweepKit(tg, pr, probe.Env{}, nil, nil, nil, []string{"tui"})
	if k.sim == nil || k.kernel != "" {
		t.Fatalf("kit on --sim with the sim probe: sim %v, kernel %q; want the board's clock and no kernel", k.sim, k.kernel)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stop := &cancelAfter{Probe: k.series, cancel: cancel}
	stop.n.Store(5) // the baseline's warm-up and runs, then a point
	k.series = stop
	out := filepath.Join(t.TempDir(), "r.jsonl")
	s := &tuiSweeper{kit: k, out: out}
	pl := plan.DefaultPlan()
	ax, err := plan.ParseAxis(tg.Profile.Map, "AHBBRST=0,2,3")
	if err != nil {
		t.Fatal(err)
	}
	pl.Axes, pl.Repeats, pl.Mode = []plan.Axis{ax}, 3, ""
	closed := map[string]int{}
	count := func(e event.Event) {
		if e.Kind == event.PointClosed && !e.Closed.Baseline {
			closed[e.Closed.Settings["SBUSCFG.AHBBRST"]]++
		}
	}
	path, err := s.Run(ctx, pl, false, count)
	if path != out || !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %q, %v; want %s and a cancellation", path, err, out)
	}
	var simulated bool
	path, err = s.Run(context.Background(), pl, true, func(e event.Event) {
		count(e)
		if e.Kind == event.SweepEnded {
			simulated = e.End.SimTime != nil
		}
	})
	if err != nil || path != out {
		t.Fatalf("resumed run: %q, %v", path, err)
	}
	res, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resumes) != 1 || len(closed) != 3 || !simulated {
		t.Errorf("%d resume records, points closed %v, simulated time %v; want 1, each of 3 once, true", len(res.Resumes), closed, simulated)
	}
	for v, n := range closed {
		if n != 1 {
			t.Errorf("point AHBBRST=%s closed %d times, want once", v, n)
		}
	}
	pl.Repeats = 4
	if path, err = s.Run(context.Background(), pl, true, func(event.Event) {}); err != nil || path != filepath.Join(filepath.Dir(out), "r-2.jsonl") {
		t.Errorf("another plan: %q, %v; want r-2.jsonl", path, err)
	}
}

// Two TUIs started in the same second share the default results name:
// the second's first plan takes the next free name and leaves the other
// session's file alone, even while that holds only its header (a sweep
// that has not finished its first run).
func TestTUISweeperFreshNames(t *testing.T) {
	tg := resetSim(t)
	pr, err := parseProbe([]string{"sim", "--size", "8M"}, probeDeps{Sim: tg, Map: tg.Profile.Map})
	if err != nil {
		t.Fatal(err)
	}
	k := (&app{env: &env{root: fstest.MapFS{}}}).newSweepKit(tg, pr, probe.Env{}, nil, nil, nil, []string{"tui"})
	dir := t.TempDir()
	out := filepath.Join(dir, "tui-sweep-1.jsonl")
	other := []byte(`{"type":"header","format":"citune-sweep","version":1,"pid":1}` + "\n")
	if err := os.WriteFile(out, other, 0o644); err != nil {
		t.Fatal(err)
	}
	pl := plan.DefaultPlan()
	ax, err := plan.ParseAxis(tg.Profile.Map, "AHBBRST=0,2")
	if err != nil {
		t.Fatal(err)
	}
	pl.Axes, pl.Repeats = []plan.Axis{ax}, 3
	s := &tuiSweeper{kit: k, out: out, fresh: true}
	path, err := s.Run(context.Background(), pl, false, func(event.Event) {})
	if want := filepath.Join(dir, "tui-sweep-1-2.jsonl"); err != nil || path != want {
		t.Fatalf("first plan beside another session's file: %q, %v; want %s", path, err, want)
	}
	if b, _ := os.ReadFile(out); string(b) != string(other) {
		t.Errorf("the other session's file was changed: %q", b)
	}
	// The same plan again resumes in its own file; another takes -3.
	if path, err = s.Run(context.Background(), pl, true, func(event.Event) {}); err != nil || path != filepath.Join(dir, "tui-sweep-1-2.jsonl") {
		t.Errorf("the plan again: %q, %v", path, err)
	}
	pl.Repeats = 4
	if path, err = s.Run(context.Background(), pl, false, func(event.Event) {}); err != nil || path != filepath.Join(dir, "tui-sweep-1-3.jsonl") {
		t.Errorf("another plan: %q, %v; want tui-sweep-1-3.jsonl", path, err)
	}
}

// A sweep's default results file is created exclusively: another
// sweep's file, even one that holds only its header, is left alone.
func TestCreateFresh(t *testing.T) {
	base := filepath.Join(t.TempDir(), "citune-sweep-1")
	other := []byte(`{"type":"header","format":"citune-sweep","version":1,"pid":1}` + "\n")
	if err := os.WriteFile(base+".jsonl", other, 0o644); err != nil {
		t.Fatal(err)
	}
	f, name, err := createFresh(base, ".jsonl")
	if err != nil || name != base+"-2.jsonl" {
		t.Fatalf("createFresh beside another sweep's file: %q, %v", name, err)
	}
	f.Close()
	if b, _ := os.ReadFile(base + ".jsonl"); string(b) != string(other) {
		t.Errorf("the other sweep's file changed: %q", b)
	}
	if _, name, err = createFresh(base, ".jsonl"); err != nil || name != base+"-3.jsonl" {
		t.Errorf("a third sweep: %q, %v", name, err)
	}
}
