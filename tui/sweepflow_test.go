package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
)

// A short sweep runs to completion through package sweep, ranks its
// points, and leaves the registers as they were.
func TestSweepToCompletion(t *testing.T) {
	e := newEnv(t, false)
	e.writePlan("AHBBRST=0,3,7 ITC=1,8 repeat=3")
	if e.m.sweep.planErr != "" || e.m.sweep.plan.Points() != 6 {
		t.Fatalf("plan: %q, %d points", e.m.sweep.planErr, e.m.sweep.plan.Points())
	}
	e.keys("r")
	s := e.m.sweep
	if e.m.sweeping || !s.finished || len(s.points) != 8 { // 6 points, the baseline twice
		t.Fatalf("sweep running %v finished %v points %d: %s", e.m.sweeping, s.finished, len(s.points), e.m.status)
	}
	good, bad := s.ranked()
	if len(good) != 6 || len(bad) != 0 {
		t.Errorf("ranked %d good, %d bad; want 6 and 0", len(good), len(bad))
	}
	// At reset BURSTSIZE is 0: AHBBRST=0 moves single words. INCR16 with
	// or without an INCR tail is the same for 512-byte packets; ITC 1
	// waits least.
	if b, _ := s.best(); !slices.Equal(s.values(b), []string{"3", "1"}) && !slices.Equal(s.values(b), []string{"7", "1"}) {
		t.Errorf("best = %v, want AHBBRST=3 or 7 with ITC=1", s.values(b))
	}
	if got := e.field("USBCMD.ITC"); got != 8 {
		t.Errorf("ITC = %d after the sweep, want 8 restored", got)
	}
	e.refresh()
	e.refresh()
	if len(e.m.regs.drifts) != 0 {
		t.Errorf("the sweep's restore flagged as a change behind the user's back: %v", e.m.regs.drifts)
	}
	if !strings.Contains(e.screen(), "best: AHBBRST=") || !strings.Contains(e.screen(), " ITC=1 at ") {
		t.Errorf("screen:\n%s", e.screen())
	}
}

// An adaptive plan races within citune sweep's default budget, and when
// the budget runs out before the race ends the status line says so.
func TestAdaptiveSweepSaysItsBudgetRanOut(t *testing.T) {
	e := newEnv(t, false)
	outcome := keepOutcome(e)
	e.writePlan("AHBBRST=0,3,7 ITC=1,2,4,8 repeat=3 mode=adaptive")
	e.keys("r")
	out := *outcome
	if out == nil || out.Budget == 0 || out.ProbeRuns > out.Budget {
		t.Fatalf("outcome %+v: want the default budget, kept", out)
	}
	if out.OutOfBudget == 0 {
		t.Fatalf("the race ended within its budget (%d of %d runs): this plan no longer tests running out", out.ProbeRuns, out.Budget)
	}
	if want := fmt.Sprintf("sweep finished, budget spent (%d still racing); best ", out.OutOfBudget); !strings.HasPrefix(e.m.status, want) {
		t.Errorf("status %q, want it to start %q", e.m.status, want)
	}
}

// A budget typed into the plan reaches the race and stays in the text.
func TestAdaptiveSweepTakesTheTypedBudget(t *testing.T) {
	e := newEnv(t, false)
	outcome := keepOutcome(e)
	e.writePlan("AHBBRST=0,3,7 ITC=1,2,4,8 repeat=3 mode=adaptive budget=0.9")
	if got := planString(e.m.sweep.plan, e.target.Profile.Map); !strings.HasSuffix(got, " mode=adaptive budget=0.9") {
		t.Errorf("plan text %q lost the budget", got)
	}
	e.keys("r")
	if out := *outcome; out == nil || out.Budget != int(0.9*float64(out.GridRuns)) || out.OutOfBudget != 0 {
		t.Fatalf("outcome %+v: want a budget of 0.9 of the grid's runs, not spent", out)
	}
}

// keepOutcome wraps e's Sweeper so that the end record of its last
// sweep is kept where the result points.
func keepOutcome(e *env) **results.EndRecord {
	var end *results.EndRecord
	sr := e.m.cfg.Sweeper
	e.m.cfg.Sweeper = sweeperFunc(func(ctx context.Context, p plan.Plan, resume bool, on func(event.Event)) (string, error) {
		return sr.Run(ctx, p, resume, func(ev event.Event) {
			if ev.Kind == event.SweepEnded {
				end = ev.End
			}
			on(ev)
		})
	})
	return &end
}

// sweeperFunc is a Sweeper from a function.
type sweeperFunc func(context.Context, plan.Plan, bool, func(event.Event)) (string, error)

func (f sweeperFunc) Run(ctx context.Context, p plan.Plan, resume bool, on func(event.Event)) (string, error) {
	return f(ctx, p, resume, on)
}

// stopper runs the real sweep and stops it, as the user's stop key
// does, after a number of probe runs (0: never).
type stopper struct {
	*testSweeper
	m     *simMeasure
	after int64
}

func (s *stopper) Run(ctx context.Context, p plan.Plan, resume bool, onEvent func(event.Event)) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.m.cancel, s.m.stopAfter = nil, 0
	if s.after > 0 {
		s.m.cancel, s.m.stopAfter = cancel, s.m.runs.Load()+s.after
	}
	return s.testSweeper.Run(ctx, p, resume, onEvent)
}

// Stop and resume: the second run skips the points already done.
func TestSweepStopResume(t *testing.T) {
	st := &stopper{after: 9} // baseline, two points (3 runs each)
	e := newEnv(t, false, func(c *Config) { st.testSweeper = c.Sweeper.(*testSweeper); c.Sweeper = st })
	st.m = e.measure
	e.keys("1")
	e.selectRow("SBUSCFG.AHBBRST")
	e.keys("x")
	e.selectRow("USBCMD.ITC")
	e.keys("x", "3")
	// x proposes a few values: the extremes, the start, the mainline
	// (the board's: AHBBRST 0, ITC 1).
	if got := e.m.sweep.planText; got != "AHBBRST=0,2,7 ITC=0,1,8,64 repeat=3" {
		t.Fatalf("plan from screen: %q", got)
	}
	e.keys("e")
	e.clearInput()
	e.typeText("AHBBRST=0,3 ITC=1,8 repeat=3")
	e.keys("enter", "r")
	measured := func() (n int) {
		for _, p := range e.m.sweep.points {
			if !p.Baseline {
				n++
			}
		}
		return n
	}
	first := measured()
	if !e.m.sweep.stopped || first == 0 || first >= 4 {
		t.Fatalf("after stop: stopped %v, %d of 4 points (%s)", e.m.sweep.stopped, first, e.m.status)
	}
	st.after = 0
	e.keys("r")
	if !e.m.sweep.finished || measured() != 4 || e.m.sweep.total != 4-first {
		t.Fatalf("after resume: finished %v, %d points, this run %d (first run %d): %s", e.m.sweep.finished, measured(), e.m.sweep.total, first, e.m.status)
	}
}

func TestParsePlanErrors(t *testing.T) {
	e := newEnv(t, false)
	m := e.target.Profile.Map
	for text, want := range map[string]string{
		"ITC=3":              "not a legal value",
		"AHBBRST=4":          "reserved",
		"USBCMD=1":           "a sweep changes fields, not whole registers",
		"NOPE=1":             "no such register or field",
		"ITC=1 repeat=0":     "repeat 0: at least 1, at most 10000",
		"ITC=1 repeat=10001": "repeat 10001: at least 1",
		"ITC":                "want FIELD=",
		"ID.ID=1":            "write refused",
		// The sweep's own axis grammar: files and module parameters are
		// checked on the screen too.
		"sysfs:/etc/passwd=1":          "a file axis takes a path under /sys or /proc",
		"modparam:ehci_hcd=1":          "want modparam:MODULE.PARAM",
		"AHBBRST=0 SBUSCFG.AHBBRST=3":  "AHBBRST is listed twice",
		"AHBBRST=0,0":                  "value 0 given twice",
		"ITC=1 mode=adaptive budget=0": "budget 0: a share of the grid's probe runs, above 0 and at most 1",
		"ITC=1 mode=adaptive budget=x": "budget x: a share",
		"ITC=1 budget=0.5":             "budget 0.5: only an adaptive or model sweep has a budget",
	} {
		if _, err := parsePlan(text, m); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parsePlan(%q) = %v, want %q", text, err, want)
		}
	}
}

// A bad setting reads the same on the plan line and in a plan file (and
// as a flag: cmd/citune's TestPlanSettingErrors), through plan.Set and
// plan.Check.
func TestPlanSettingErrorsAgree(t *testing.T) {
	m := regs.ChipIdea()
	for _, c := range []struct{ line, file, want string }{
		{"repeat=0", "repeat = 0", "invalid sweep plan: repeat 0: at least 1, at most 10000"},
		{"mode=adaptive budget=2", "mode = \"adaptive\"\nbudget = 2.0", "invalid sweep plan: budget 2: a share of the grid's probe runs, above 0 and at most 1"},
		{"mode=adaptive budget=0", "mode = \"adaptive\"\nbudget = 0.0", "invalid sweep plan: budget 0: a share of the grid's probe runs, above 0 and at most 1"},
		{"mode=race", "mode = \"race\"", "invalid sweep plan: mode \"race\" (want grid, ofat, adaptive or model)"},
		{"mode=adaptive repeat=2", "mode = \"adaptive\"\nrepeat = 2", "invalid sweep plan: the adaptive mode needs 3 or more runs a point"},
		{"settle=soon", "settle = \"soon\"", "invalid sweep plan: settle \"soon\": want a duration"},
	} {
		_, lerr := parsePlan("ITC=1 "+c.line, m)
		path := filepath.Join(t.TempDir(), "p.toml")
		if err := os.WriteFile(path, []byte(c.file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, ferr := LoadPlanFile(path, m)
		if lerr == nil || !strings.Contains(lerr.Error(), c.want) {
			t.Errorf("plan line %q: %v, want %q", c.line, lerr, c.want)
		}
		if ferr == nil || !strings.Contains(ferr.Error(), c.want) {
			t.Errorf("plan file %q: %v, want %q", c.file, ferr, c.want)
		}
	}
}

// Plan errors are shown whole at 80 columns, every one of them, and a
// repeat citune sweep refuses is refused up front.
func TestPlanErrorsWhole(t *testing.T) {
	e := newEnv(t, false)
	e.resize(80, 24)
	text := "ITC=3 AHBBRST=4 NOPE=1 repeat=0"
	_, err := parsePlan(text, e.target.Profile.Map)
	if err == nil {
		t.Fatal("the plan should have errors")
	}
	e.writePlan(text)
	scr := e.screen()
	flat := strings.Join(strings.Fields(scr), " ")
	msgs := strings.Split(err.Error(), "\n")
	if len(msgs) != 4 {
		t.Fatalf("want 4 errors, got %q", msgs)
	}
	for _, msg := range msgs {
		if !strings.Contains(flat, strings.Join(strings.Fields(msg), " ")) {
			t.Errorf("error %q is not on the screen whole:\n%s", msg, scr)
		}
	}
	for _, l := range strings.Split(scr, "\n") {
		if n := len([]rune(strings.TrimRight(l, " "))); n > 80 {
			t.Errorf("line of %d columns: %q", n, l)
		}
	}
	if e.m.sweep.plan.Points() != 0 {
		t.Errorf("a plan with errors was taken")
	}
}

// The smallest screen the session takes (40x12) leaves the Sweep tab's
// chart no line after a sweep: every view still draws, within the screen
// (the bars view sliced its lines with a negative height and panicked,
// taking the session down).
func TestSweepViewsOnTheSmallestScreen(t *testing.T) {
	e := newEnv(t, false)
	e.writePlan("AHBBRST=0,3,7 ITC=1,8 repeat=3")
	e.keys("r")
	if !e.m.sweep.finished {
		t.Fatalf("sweep did not finish: %s", e.m.status)
	}
	e.resize(40, 12)
	for _, view := range []string{"table", "bars", "heat map"} {
		var screen string
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s view at 40x12: panic %v", view, r)
				}
			}()
			screen = e.screen()
		}()
		if n := strings.Count(screen, "\n") + 1; screen != "" && n != 12 {
			t.Errorf("%s view at 40x12: %d lines, want 12:\n%s", view, n, screen)
		}
		e.keys("v")
	}
}
