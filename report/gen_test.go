//go:build regen

package report

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/profiles"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/sweep/sweeptest"
)

var regen = flag.Bool("regen", false, "regenerate the results files in testdata/ with the simulated controller")

// fixtureProber wraps the landscape: it adds traced handler maxima (or
// drops the handler times) and plays tricks at chosen runs (a driver
// reverting ITC, corrupt data).
type fixtureProber struct {
	l       *sweeptest.Landscape
	t       *soc.Target
	handler bool
	revert  map[int]bool // run numbers after which ITC reads 8 again
	n       int
}

func (f *fixtureProber) Name() string { return "fixture" }

func (f *fixtureProber) Run(ctx context.Context, progress func(done, total int64)) (probe.Run, error) {
	f.n++
	r, err := f.l.Run(ctx, progress)
	if err != nil {
		return r, err
	}
	// Four CPUs, busy as the landscape says.
	r.CPU.Idle = r.Elapsed.Seconds()*4 - r.CPU.System
	r.CPU.Total = r.Elapsed.Seconds() * 4
	r.IRQsPerSec = float64(r.IRQs) / r.Elapsed.Seconds()
	if f.handler {
		// The model's mean handler time; a traced maximum on top.
		r.HandlerMaxUS = 3*r.HandlerAvgUS + float64(f.n%7)
		r.Simulated = false
	} else {
		r.HandlerEvents, r.HandlerAvgUS = 0, 0
	}
	if f.revert[f.n] {
		ref, _ := f.t.Profile.Map.Lookup("USBCMD.ITC")
		v, _ := f.t.Read32(ref.Reg.Offset)
		f.t.Write32(ref.Reg.Offset, ref.Field.Put(v, 8))
	}
	return r, nil
}

type fixture struct {
	name     string
	profile  string
	ctrl     string
	kernel   string
	mode     string
	axes     []string
	repeats  int
	handler  bool
	revert   []int
	corrupt  []int
	cancelAt int    // cancel the sweep at this run
	resume   string // continue this results file (copied to name)
	board    *results.BoardID
	seed     uint64 // of the landscape's noise (0: 1)
	// favour multiplies the rate at these AHBBRST values (a board whose
	// bus prefers another burst length).
	favour map[uint32]float64
}

func genFixture(t *testing.T, fx fixture) {
	ps, err := soc.LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	var p *soc.Profile
	for _, q := range ps {
		if q.Name == fx.profile {
			p = q
		}
	}
	c, err := p.Controller(fx.ctrl)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := soc.OpenSim(p, c, soc.SimOptions{ResetValues: true})
	if err != nil {
		t.Fatal(err)
	}
	pl := plan.DefaultPlan()
	pl.Mode = fx.mode
	pl.Repeats = fx.repeats
	pl.Seed = 7
	pl.BaselineEvery = 5
	for _, s := range fx.axes {
		a, err := plan.ParseAxis(p.Map, s)
		if err != nil {
			t.Fatal(err)
		}
		pl.Axes = append(pl.Axes, a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seed := fx.seed
	if seed == 0 {
		seed = 1
	}
	l := &sweeptest.Landscape{Target: tg, Noise: 0.012, Seed: seed}
	if fx.favour != nil {
		ref, err := tg.Profile.Map.Lookup("SBUSCFG.AHBBRST")
		if err != nil {
			t.Fatal(err)
		}
		l.Extra = func() float64 {
			v, _ := tg.Read32(ref.Reg.Offset)
			if f, ok := fx.favour[ref.Field.Get(v)]; ok {
				return f
			}
			return 1
		}
	}
	corrupt := map[int]bool{}
	for _, n := range fx.corrupt {
		corrupt[n] = true
	}
	l.Corrupt = func(n int) bool { return corrupt[n] }
	l.Before = func(n int) {
		if fx.cancelAt > 0 && n == fx.cancelAt {
			cancel()
		}
	}
	fp := &fixtureProber{l: l, t: tg, handler: fx.handler, revert: map[int]bool{}}
	for _, n := range fx.revert {
		fp.revert[n] = true
	}
	path := filepath.Join("testdata", fx.name)
	os.Remove(path)
	var prev *results.Results
	var f *os.File
	if fx.resume != "" {
		b, err := os.ReadFile(filepath.Join("testdata", fx.resume))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if f, err = results.OpenAppend(path); err != nil {
			t.Fatal(err)
		}
		if prev, err = results.Load(path); err != nil {
			t.Fatal(err)
		}
	} else if f, err = results.CreateFile(path); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	clock := &genClock{time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	r := &sweep.Config{Target: tg, Prober: fp, ProbeName: "sim read 64 MiB in 120 KiB commands", Plan: pl, Out: results.NewWriter(f),
		Command: append([]string{"citune", "--sim", "sweep"}, fx.axes...), Kernel: fx.kernel, Board: fx.board,
		Resume: prev, Clock: clock}
	if _, err := r.Run(ctx); err != nil && fx.cancelAt == 0 {
		t.Fatal(err)
	}
}

// genClock moves on 2 s whenever it is read; its pauses take no time.
type genClock struct{ t time.Time }

func (c *genClock) Now() time.Time { c.t = c.t.Add(2 * time.Second); return c.t }

func (c *genClock) Sleep(context.Context, time.Duration) error { return nil }

// killed writes a copy of src without its end record and with its last
// line cut in the middle, as a kill -9 during a write leaves it.
func killed(t *testing.T, src, dst string) {
	b, err := os.ReadFile(filepath.Join("testdata", src))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	lines = lines[:len(lines)-1] // the end record
	last := lines[len(lines)-1]
	lines[len(lines)-1] = last[:len(last)/2]
	if err := os.WriteFile(filepath.Join("testdata", dst), []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestRegenerateFixtures writes the results files the tests read:
// go test -tags regen ./report -run TestRegenerateFixtures -regen
func TestRegenerateFixtures(t *testing.T) {
	if !*regen {
		t.Skip("give -regen to rewrite testdata/*.jsonl")
	}
	grid := []string{"USBCMD.ITC=1,8,64", "SBUSCFG.AHBBRST=0,2,3,7"}
	genFixture(t, fixture{name: "grid.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeGrid, axes: grid, repeats: 5,
		handler: true, revert: []int{44}, corrupt: []int{64}})
	genFixture(t, fixture{name: "imx6ul.jsonl", profile: "imx6ul", ctrl: "usbotg2", kernel: "6.12.9-armmp", mode: plan.ModeGrid, axes: grid, repeats: 5, handler: true})
	genFixture(t, fixture{name: "ofat.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeOFAT,
		axes: []string{"SBUSCFG.AHBBRST=0,3,7", "BURSTSIZE.TXPBURST=8,16,32", "BURSTSIZE.RXPBURST=8,16,32", "USBCMD.ITC=0,1,8"}, repeats: 4})
	genFixture(t, fixture{name: "interrupted.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeGrid, axes: grid, repeats: 3, cancelAt: 22})
	killed(t, "interrupted.jsonl", "killed.jsonl")
	genFixture(t, fixture{name: "adaptive.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeAdaptive, axes: grid, repeats: 5})
	// A farm: two revisions of an i.MX6Q carrier whose bus prefers
	// AHBBRST=3, and an i.MX6UL board that prefers AHBBRST=7; rev-c is a
	// third i.MX6Q carrier that prefers 7 as well (the winner differs
	// between boards of one SoC).
	q := map[uint32]float64{3: 1.05}
	ul := map[uint32]float64{7: 1.06}
	genFixture(t, fixture{name: "fleet-q-a.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeGrid, axes: grid, repeats: 5,
		board: &results.BoardID{Name: "sabrelite-rev-a", Model: "Freescale i.MX6 Quad SABRE Lite Board", Host: "lab-rack1-03"}, seed: 11, favour: q})
	genFixture(t, fixture{name: "fleet-q-b.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeGrid, axes: grid, repeats: 5,
		board: &results.BoardID{Name: "sabrelite-rev-b", Model: "Freescale i.MX6 Quad SABRE Lite Board", Host: "lab-rack1-04"}, seed: 12, favour: q, revert: []int{44}})
	genFixture(t, fixture{name: "fleet-ul.jsonl", profile: "imx6ul", ctrl: "usbotg2", kernel: "6.12.9-armmp", mode: plan.ModeGrid, axes: grid, repeats: 5,
		board: &results.BoardID{Name: "evk-6ul", Model: "Freescale i.MX6 UltraLite 14x14 EVK Board", Host: "lab-rack2-01"}, seed: 13, favour: ul})
	genFixture(t, fixture{name: "fleet-q-c.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeGrid, axes: grid, repeats: 5,
		board: &results.BoardID{Model: "Freescale i.MX6 Quad SABRE Lite Board", Host: "lab-rack1-07"}, seed: 14, favour: ul})
	genFixture(t, fixture{name: "resumed.jsonl", profile: "imx6q", ctrl: "usbh1", kernel: "6.1.0-28-armmp", mode: plan.ModeGrid, axes: grid, repeats: 3, resume: "interrupted.jsonl"})
}
