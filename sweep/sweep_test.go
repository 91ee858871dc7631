package sweep_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/sweep/sweeptest"
)

func loadProfile(t *testing.T, name string) *soc.Profile {
	t.Helper()
	p, err := soc.LoadFS(profiles.FS, name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	p.File = "embedded:" + p.File
	return p
}

func simTarget(t *testing.T, profile string, o soc.SimOptions) *soc.Target {
	t.Helper()
	p := loadProfile(t, profile)
	c, err := p.Controller("usbh1")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := soc.OpenSim(p, c, o)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// imageTarget makes a register image of the profile's reset values and
// opens it as a file target.
func imageTarget(t *testing.T, profile string) (*soc.Target, string) {
	t.Helper()
	sim := simTarget(t, profile, soc.SimOptions{ResetValues: true})
	img := make([]byte, sim.Controller.Span())
	for off := uint32(0); off < sim.Controller.Span(); off += 4 {
		v, err := sim.Read32(off)
		if errors.Is(err, regs.ErrAbsent) {
			continue // a host-only core has nothing there
		}
		if err != nil {
			t.Fatal(err)
		}
		img[off], img[off+1], img[off+2], img[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	path := filepath.Join(t.TempDir(), "regs.bin")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := soc.OpenFile(sim.Profile, sim.Controller, path, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg, path
}

func axes(t *testing.T, m *regs.Map, specs ...string) []plan.Axis {
	t.Helper()
	var as []plan.Axis
	for _, s := range specs {
		a, err := plan.ParseAxis(m, s)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return as
}

type setup struct {
	runner  *sweep.Config
	out     string
	log     *bytes.Buffer
	land    *sweeptest.Landscape
	journal string
}

func newRunner(t *testing.T, tg *soc.Target, mode string, specs ...string) *setup {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	f, err := results.CreateFile(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	plan := plan.DefaultPlan()
	plan.Mode = mode
	plan.Settle = 0
	plan.Repeats = 3
	plan.Warmup = 0
	plan.Seed = 1
	plan.Axes = axes(t, tg.Profile.Map, specs...)
	land := &sweeptest.Landscape{Target: tg, Seed: 1}
	log := &bytes.Buffer{}
	r := &sweep.Config{Target: tg, Prober: land, ProbeName: "landscape", Plan: plan, Out: results.NewWriter(f), Log: log,
		Journal: filepath.Join(dir, "journal.json"), Command: []string{"citune", "sweep"}, Kernel: "test"}
	return &setup{runner: r, out: out, log: log, land: land, journal: r.Journal}
}

// testClock is the wall clock at a time the test moves.
type testClock struct {
	sweep.WallClock
	now *time.Time
}

func (c testClock) Now() time.Time { return *c.now }

func snapshot(t *testing.T, tg *soc.Target) soc.Snapshot {
	t.Helper()
	s, err := soc.Take(tg.Profile.Map, tg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGridGroupsBurstSizesAndFindsTheBest(t *testing.T) {
	// The board as Linux leaves it (AHBBRST=0, 16-word bursts, streaming
	// disabled), its bus busy with other masters (80 %): longer RX bursts
	// pay off (idle, the disk's own rate hides them).
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	before := snapshot(t, tg)
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,2,3", "TXPBURST=16", "RXPBURST=16,32")
	s.land.BusLoad = 0.8
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	// AHBBRST=0 x RXPBURST 16,32 = 2 points; AHBBRST=2 and 3 ignore the
	// burst sizes: one point each.
	if pts, _, err := s.runner.Prepare(); err != nil || len(pts) != 4 {
		t.Fatalf("%d points (%v), want 4", len(pts), err)
	}
	notes := strings.Join(out.Notes, "\n")
	if !strings.Contains(notes, "TXPBURST takes effect only with SBUSCFG.AHBBRST=0") || !strings.Contains(notes, "4 combinations measured as 2 points") {
		t.Errorf("grouping not explained:\n%s", notes)
	}
	w := out.Ranking.Winner()
	if w == nil || w.Key != "SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=16 BURSTSIZE.RXPBURST=32" {
		t.Fatalf("winner %+v", w)
	}
	if w.VsBaseline == nil || !w.VsBaseline.Significant || w.VsBaseline.Pct < 3 {
		t.Errorf("winner vs baseline %+v (16-word bursts under 80 %% load are about 4 %% slower)", w.VsBaseline)
	}
	if after := snapshot(t, tg); !slices.Equal(before.Registers, after.Registers) {
		t.Errorf("registers not restored:\nbefore %v\nafter  %v", before, after)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Profile != "imx6q" || res.Header.Controller != "usbh1" || res.Header.Kernel != "test" || len(res.Header.Snapshot.Registers) == 0 {
		t.Errorf("header %+v", res.Header)
	}
	if res.Header.Originals["SBUSCFG.AHBBRST"] != "0" || res.Header.Originals["BURSTSIZE.RXPBURST"] != "16" {
		t.Errorf("originals %v", res.Header.Originals)
	}
	// grid: baseline, 4 points, baseline; 3 runs each; and the verdict's
	// second look, where it took one.
	if got := len(res.Runs); got != out.ProbeRuns || out.ProbeRuns-out.ConfirmRuns != 18 {
		t.Errorf("%d run records, %d probe runs (%d of the second look); want 18 before it", got, out.ProbeRuns, out.ConfirmRuns)
	}
	if n := len(res.Ends); n != 1 || res.Ends[0].Status != results.StatusComplete || !res.Ends[0].Restored {
		t.Errorf("end records %+v", res.Ends)
	}
	// The file ranks like the sweep did.
	rk := res.Rank(rank.Policy{})
	if rk.Winner().Key != w.Key || rk.Winner().Median != w.Median {
		t.Errorf("file ranking %+v, sweep %+v", rk.Winner(), w)
	}
	// The simulated controller keeps no journal.
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left behind: %v", err)
	}
}

func TestDriverRevertsUSBCMD(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeGrid, "ITC=1,8,64")
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "warning: USBCMD.ITC in host role") {
		t.Errorf("no warning about the driver: %q", out.Notes)
	}
	if out.NotHeld != 2 {
		t.Errorf("not-held %d, want 2 (ITC 8 and 64)\n%s", out.NotHeld, s.log)
	}
	if len(out.Ranking.Ranked) != 1 || out.Ranking.Ranked[0].Settings["USBCMD.ITC"] != "1" {
		t.Fatalf("ranked %+v: only ITC=1 (the driver's own value) holds", out.Ranking.Ranked)
	}
	for _, x := range out.Ranking.Excluded {
		if x.Status != rank.StatusNotHeld || len(x.Changed) != 1 || !strings.HasPrefix(x.Changed[0], "USBCMD.ITC: ") || !strings.HasSuffix(x.Changed[0], " -> 1") {
			t.Errorf("excluded %+v", x)
		}
	}
	if !strings.Contains(s.log.String(), "NOT HELD (changed during run 1): USBCMD.ITC: 64 -> 1") {
		t.Errorf("log:\n%s", s.log)
	}
	var b strings.Builder
	out.Ranking.Format(&b)
	if !strings.Contains(b.String(), "not-held   ITC=8: USBCMD.ITC: 8 -> 1") {
		t.Errorf("ranking:\n%s", b.String())
	}
}

func TestValidatedBeforeTheFirstWrite(t *testing.T) {
	cases := map[string]struct {
		specs []string
		want  string
	}{
		"burst without AHBBRST=0": {[]string{"TXPBURST=8,16"}, "TXPBURST takes effect only with SBUSCFG.AHBBRST=0, which reads 2"},
		"missing file":            {[]string{"AHBBRST=0,3", "sysfs:/sys/nonexistent/citune/x=1,2"}, "no such file"},
		"unknown module":          {[]string{"modparam:ehci_hcd.log2_irq_thresh=0,3"}, "no module loader"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
			s := newRunner(t, tg, plan.ModeGrid, c.specs...)
			s.runner.Host = &host.Host{}
			_, err := s.runner.Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if tg.Simulator().Writes != 0 {
				t.Errorf("%d writes before the plan was valid", tg.Simulator().Writes)
			}
		})
	}
}

func TestOFATSetsTheConditionForBurstSizes(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeOFAT, "AHBBRST=0,3", "TXPBURST=8,16", "ITC=1,8")
	pts, _, err := s.runner.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	var keys, notes []string
	for _, p := range pts {
		keys = append(keys, p.Key)
		notes = append(notes, p.Note)
	}
	// originals: AHBBRST=2, TXPBURST=0, ITC=8.
	want := []string{
		"SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=0 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=3 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=8 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=16 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=2 USBCMD.ITC=1",
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("points\n%q\nwant\n%q", keys, want)
	}
	if notes[2] != "AHBBRST=0 so that TXPBURST takes effect" {
		t.Errorf("notes %q", notes)
	}
}

func TestCorruptPointIsShownAndNotRanked(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=3,7")
	s.land.Corrupt = func(n int) bool { return n == 5 }
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Corrupt != 1 || len(out.Ranking.Ranked) != 1 {
		t.Fatalf("corrupt %d, ranked %+v", out.Corrupt, out.Ranking.Ranked)
	}
	if !strings.Contains(s.log.String(), "!!! CORRUPT DATA at AHBBRST=") {
		t.Errorf("log:\n%s", s.log)
	}
	var b strings.Builder
	out.Ranking.Format(&b)
	if !strings.Contains(b.String(), "!!! CORRUPT DATA at AHBBRST=") || !strings.Contains(b.String(), "offset 0x1200000") {
		t.Errorf("ranking:\n%s", b.String())
	}
}

// warmRecorder records which runs the sweep marked as warm-ups.
type warmRecorder struct {
	probe.Probe
	warm []bool
}

func (w *warmRecorder) Run(ctx context.Context, progress func(done, total int64)) (probe.Run, error) {
	w.warm = append(w.warm, probe.IsWarmup(ctx))
	return w.Probe.Run(ctx, progress)
}

// The sweep marks its warm-up runs, so that a read probe hashes every
// byte of those and only samples the timed runs.
func TestSweepMarksWarmupRuns(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0")
	s.runner.Plan.Warmup = 1
	s.runner.Plan.Repeats = 2
	w := &warmRecorder{Probe: s.land}
	s.runner.Prober = w
	if _, err := s.runner.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// baseline, the point, baseline: one warm-up and two runs each.
	want := []bool{true, false, false, true, false, false, true, false, false}
	if !slices.Equal(w.warm, want) {
		t.Errorf("warm-up marks %v, want %v", w.warm, want)
	}
}
