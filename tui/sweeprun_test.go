package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

func newSimMeasure(t *testing.T, e *env) *simMeasure {
	t.Helper()
	return &simMeasure{p: simProbe(t, e.target)}
}

// The real sweep package through the TUI: the simulated ehci-hcd writes
// USBCMD back, so the ITC=8 points are not held and never ranked; the
// registers are as before; the results file has the run.
func TestSweepRunnerWithSimulatedDriver(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.jsonl")
	var sr *testSweeper
	e := newEnv(t, true, func(c *Config) {
		sr = &testSweeper{Target: c.Target, ProbeName: "sim", Out: out}
		c.Sweeper = sr
	})
	sr.Prober = newSimMeasure(t, e)
	ahb, itc := e.field("SBUSCFG.AHBBRST"), e.field("USBCMD.ITC")
	e.writePlan("AHBBRST=0,3 ITC=1,8 repeat=3")
	e.keys("r")
	s := e.m.sweep
	if !s.finished {
		t.Fatalf("sweep did not finish: %s / %s", e.m.status, s.err)
	}
	good, bad := s.ranked()
	if len(good) != 2 || len(bad) != 2 {
		t.Fatalf("%d ranked, %d not; want 2 and 2 (ITC=8 not held)", len(good), len(bad))
	}
	for _, p := range bad {
		if s.values(p)[1] != "8" || (p.Status != rank.StatusNotHeld || !strings.Contains(pointReason(p), "ITC")) {
			t.Errorf("unranked point %v: %+v, want ITC=8 not held", s.values(p), p)
		}
	}
	// The board runs AHBBRST=0 with 16-word bursts: INCR16 is the same
	// burst, so either may win, at the driver's ITC 1.
	if b, _ := s.best(); s.values(b)[1] != "1" || versus(b) == "" {
		t.Errorf("best = %+v, want ITC=1 with a comparison", b)
	}
	if got := e.field("SBUSCFG.AHBBRST"); got != ahb {
		t.Errorf("AHBBRST = %d after the sweep, want %d", got, ahb)
	}
	if got := e.field("USBCMD.ITC"); got != itc {
		t.Errorf("ITC = %d after the sweep, want %d", got, itc)
	}
	res, err := results.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Ends) != 1 || res.Ends[0].Status != results.StatusComplete {
		t.Errorf("results end records: %+v", res.Ends)
	}
	if e.m.sweep.results != out || !strings.Contains(e.screen(), "results: /") {
		t.Errorf("screen does not say where the results are:\n%s", e.screen())
	}
}

// Plan files load through package sweep.
func TestLoadPlanFile(t *testing.T) {
	e := newEnv(t, false)
	path := filepath.Join(t.TempDir(), "plan.toml")
	e.files = nil
	bad := filepath.Join(t.TempDir(), "bad.toml")
	// The bounds of citune sweep --plan: repeat 2 is taken (with the
	// sweep's warning), 0 and an adaptive race of 2 are not.
	if err := writeTestFile(bad, "repeat = 2\naxis = [\"AHBBRST=0,3\"]\n"); err != nil {
		t.Fatal(err)
	}
	if p, err := LoadPlanFile(bad, e.target.Profile.Map); err != nil || p.Repeats != 2 {
		t.Errorf("a plan file with repeat 2: %v (repeats %d), want it taken as citune sweep takes it", err, p.Repeats)
	}
	if err := writeTestFile(bad, "mode = \"adaptive\"\nrepeat = 2\naxis = [\"AHBBRST=0,3\"]\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadPlanFile(bad, e.target.Profile.Map); err == nil || !strings.Contains(err.Error(), "adaptive mode needs 3 or more runs") {
		t.Errorf("an adaptive plan file with repeat 2: %v, want it refused as citune sweep refuses it", err)
	}
	if err := writeTestFile(path, "mode = \"grid\"\nrepeat = 3\nsettle = \"0s\"\naxis = [\"AHBBRST=0,3\"]\n[[axes]]\nname = \"ITC\"\nvalues = [1, 8]\n"); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPlanFile(path, e.target.Profile.Map)
	if err != nil {
		t.Fatal(err)
	}
	if got := planString(p, e.target.Profile.Map); got != "AHBBRST=0,3 ITC=1,8 repeat=3 mode=grid" {
		t.Errorf("plan = %q", got)
	}
	if p.Settle != 0 || p.Warmup != plan.DefaultPlan().Warmup || p.Source != "plan.toml" {
		t.Errorf("plan = %+v, want the plan file's settings (settle 0s) over the sweep's defaults, from plan.toml", p)
	}
}

// The screen's plan and the sweep's axes are one grammar: the axes are
// what plan.ParseAxis makes of each word, and the plan prints back as
// the words it was read from.
func TestPlanIsTheSweepsGrammar(t *testing.T) {
	e := newEnv(t, false)
	m := e.target.Profile.Map
	words := []string{"AHBBRST=0,3", "sysfs:/sys/block/sda/queue/max_sectors_kb=128,512", "modparam:ehci_hcd.log2_irq_thresh=0,3"}
	p, err := parsePlan(strings.Join(words, " ")+" repeat=5 mode=ofat", m)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range words {
		want, err := plan.ParseAxis(m, w)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Axes[i]; got.Kind != want.Kind || got.Name != want.Name || !slices.Equal(got.Values, want.Values) {
			t.Errorf("axis %d: %+v, want %+v", i, got, want)
		}
	}
	if got, want := planString(p, m), strings.Join(words, " ")+" repeat=5 mode=ofat"; got != want {
		t.Errorf("plan prints as %q, want %q", got, want)
	}
}

// The settings a loaded plan file gave (settle time, warm-ups) stay with
// the screen's plan when its text is edited; the text's mode and repeat
// win, and a plan without mode= runs the sweep's default.
func TestEditedPlanKeepsTheFilesSettings(t *testing.T) {
	e := newEnv(t, false)
	m := e.target.Profile.Map
	var s sweepTab
	loaded := SweepPlan{Plan: plan.Plan{Warmup: 4, Settle: 7, Seed: 9, BaselineEvery: 2}, Source: "p.toml"}
	s.plan = loaded
	s.setPlanText("AHBBRST=0,3 repeat=4", m)
	if s.planErr != "" {
		t.Fatal(s.planErr)
	}
	if p := s.plan; p.Warmup != 4 || p.Settle != 7 || p.Seed != 9 || p.BaselineEvery != 2 || p.Repeats != 4 || p.Mode != "" {
		t.Errorf("edited plan = %+v, want the file's settings with repeat 4 and no mode", p.Plan)
	}
	s.setPlanText("", m)
	s.setPlanText("AHBBRST=0,3", m)
	if d := plan.DefaultPlan(); s.plan.Settle != d.Settle || s.plan.Warmup != d.Warmup {
		t.Errorf("a new plan after clearing = %+v, want the sweep's defaults", s.plan.Plan)
	}
}

// With the simulated board's clock (citune tui --sim with the sim probe)
// a sweep's time is the board's modelled time, as in citune sweep: every
// run counts the time the model gives it, and the finished line says
// whose time it is. Without it the line shows this machine's time.
func TestSweepOnTheSimulatedBoardsClock(t *testing.T) {
	for _, simClock := range []bool{true, false} {
		var sr *testSweeper
		var runTime time.Duration
		e := newEnv(t, false, func(c *Config) {
			sr = &testSweeper{Target: c.Target, ProbeName: "sim", Out: filepath.Join(t.TempDir(), "r.jsonl"),
				Adjust: func(p *plan.Plan) { p.Settle, p.Warmup = 0, 0 }}
			c.Sweeper = sr
		})
		m := newSimMeasure(t, e)
		sr.Prober = m
		if simClock {
			sp := m.p.(*probe.SimProbe)
			sr.NewClock = func() sweep.Clock { return sweep.NewSimClock(fixedClock(), sp) }
		}
		e.m.cfg.Sweeper = sweeperFunc(func(ctx context.Context, p plan.Plan, resume bool, on func(event.Event)) (string, error) {
			return sr.Run(ctx, p, resume, func(ev event.Event) {
				if ev.Kind == event.RunFinished {
					runTime += ev.Run.Run.Elapsed
				}
				on(ev)
			})
		})
		e.writePlan("AHBBRST=0,3 repeat=3")
		e.keys("r")
		s := e.m.sweep
		if !s.finished {
			t.Fatalf("sweep did not finish: %s / %s", e.m.status, s.err)
		}
		line := e.m.sweep.progress()
		switch {
		case simClock && (s.elapsed < runTime || !strings.HasSuffix(line, " of the simulated board's time")):
			t.Errorf("on the simulated clock: elapsed %v, the runs' modelled time %v; progress %q", s.elapsed, runTime, line)
		case !simClock && (s.elapsed >= runTime || strings.Contains(line, "simulated")):
			t.Errorf("on this machine's clock: elapsed %v, the runs' modelled time %v; progress %q", s.elapsed, runTime, line)
		}
	}
}

// testSweeper is the tests' Sweeper: the real runner, without the host,
// the journal or the header's command line that cmd/citune's adds. Out
// is the results file; running the plan stopped last again resumes it.
type testSweeper struct {
	Target    *soc.Target
	Prober    probe.Probe
	ProbeName string
	Out       string
	// Adjust changes each plan before it runs (the tests drop the settle
	// time); NewClock gives each sweep its clock (nil: the wall clock).
	Adjust   func(*plan.Plan)
	NewClock func() sweep.Clock

	planKey string
}

func (s *testSweeper) Run(ctx context.Context, in plan.Plan, resume bool, onEvent func(event.Event)) (string, error) {
	p := in
	if p.Mode == "" {
		p.Mode = plan.DefaultPlan().Mode
	}
	p.SetDefaultBudget()
	if s.Adjust != nil {
		s.Adjust(&p)
	}
	key := fmt.Sprint(p.Mode, p.Repeats, p.Budget)
	for _, a := range p.Axes {
		key += " " + a.Spec()
	}
	var prev *results.Results
	if resume && key == s.planKey {
		var err error
		if prev, err = results.Load(s.Out); err != nil {
			return "", err
		}
	}
	s.planKey = key
	r := &sweep.Config{Target: s.Target, Prober: s.Prober, ProbeName: s.ProbeName, Plan: p, OnEvent: onEvent, Resume: prev}
	if s.NewClock != nil {
		r.Clock = s.NewClock()
	}
	f, err := r.OpenOut(s.Out)
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = r.Run(ctx)
	if errors.Is(err, sweep.ErrInterrupted) {
		err = errors.Join(context.Canceled, err)
	}
	return s.Out, err
}

// A plan with axes the Registers tab has no row for (a file, a module
// parameter) shows its register axes there (it used to panic rendering
// the tab), and marking one more field there keeps the other axes, the
// values typed for the fields already swept, the mode and the
// threshold.
func TestPlanWithOtherAxesOnTheRegistersTab(t *testing.T) {
	e := newEnv(t, false)
	e.writePlan("sysfs:/sys/block/sda/queue/max_sectors_kb=64,128 ITC=1,8 modparam:ehci_hcd.park=0,3 mode=ofat min-gain=2.5")
	if e.m.sweep.planErr != "" {
		t.Fatal(e.m.sweep.planErr)
	}
	e.keys("1")
	if s := e.screen(); !strings.Contains(s, "ITC") {
		t.Fatalf("Registers tab:\n%s", s)
	}
	e.selectRow("SBUSCFG.AHBBRST")
	e.keys("x")
	got := e.m.sweep.planText
	for _, w := range []string{"ITC=1,8 ", "AHBBRST=", "sysfs:/sys/block/sda/queue/max_sectors_kb=64,128", "modparam:ehci_hcd.park=0,3", "mode=ofat", "min-gain=2.5"} {
		if !strings.Contains(got, w) {
			t.Errorf("plan after marking AHBBRST = %q, want %s in it", got, w)
		}
	}
}

// While a sweep runs, x on the Registers tab does not change the plan (as
// e and l on the Sweep tab do not): the plan is the running sweep's.
func TestMarkingDuringASweepIsRefused(t *testing.T) {
	e := newEnv(t, false)
	e.writePlan("ITC=1,8")
	e.keys("1")
	e.m.sweeping = true
	e.selectRow("SBUSCFG.AHBBRST")
	e.keys("x")
	if got := e.m.sweep.planText; got != "ITC=1,8" || len(e.m.axes) != 1 || !strings.Contains(e.m.status, "cannot change while the sweep runs") {
		t.Errorf("plan %q, axes %v, status %q; want the plan unchanged and the refusal", got, e.m.axes, e.m.status)
	}
}
