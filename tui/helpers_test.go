package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/soc/sim"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// testdata is the absolute path of testdata: the tests change into a
// temporary directory, where the sweep's results file goes.
var testdata = func() string {
	p, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return p
}()

// env is a session against the simulated i.MX6Q usbh1 controller.
type env struct {
	t       *testing.T
	target  *soc.Target
	sim     *sim.Sim
	start   soc.Snapshot
	measure *simMeasure
	files   map[string]string
	m       Model
	quit    bool
}

type envOpt func(*Config)

func newEnv(t *testing.T, driver bool, opts ...envOpt) *env {
	t.Helper()
	p, err := soc.LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Controller("usbh1")
	if err != nil {
		t.Fatal(err)
	}
	// Without the driver: the controller at reset (no driver at all);
	// with it: the board as Linux leaves it, ehci-hcd holding USBCMD.
	tg, err := soc.OpenSim(p, c, soc.SimOptions{ResetValues: !driver})
	if err != nil {
		t.Fatal(err)
	}
	start, err := soc.Take(p.Map, tg)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, target: tg, sim: tg.Simulator(), start: start, files: map[string]string{}}
	pr := simProbe(t, tg)
	e.measure = &simMeasure{p: pr}
	t.Chdir(t.TempDir()) // the results file's name shows on screen
	plain := plainStyles()
	cfg := Config{
		Target: tg, Start: start,
		Ctx: context.Background(), Jobs: &sync.WaitGroup{},
		Prober: probe.NewSeries(pr, probe.Env{}),
		Sweeper: &testSweeper{Target: tg, Prober: e.measure, ProbeName: pr.Name(), Out: "sweep.jsonl",
			Adjust:   func(p *plan.Plan) { p.Settle, p.Warmup, p.Seed = 0, 0, 1 },
			NewClock: stoppedClock},
		LoadPlan: func(path string, m *regs.Map) (SweepPlan, error) {
			return parsePlan("AHBBRST=0,3 ITC=1,8 repeat=3", m)
		},
		WriteFile: func(path string, b []byte, replace bool) error {
			if _, ok := e.files[path]; ok && !replace {
				return &fs.PathError{Op: "export", Path: path, Err: fs.ErrExist}
			}
			e.files[path] = string(b)
			return nil
		},
		DTS:      testDTS{tg},
		Interval: time.Second,
		Tick:     func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil },
		Styles:   &plain,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.Undo == nil {
		id, _ := tg.ID()
		u, err := undo.Open(undo.Options{Target: id, Owner: undo.Self(undo.KindTUI, nil), Acc: tg.Accessor(), Map: tg.Profile.Map})
		if err != nil {
			t.Fatal(err)
		}
		cfg.Undo = testUndo{u}
	}
	e.m = New(cfg)
	e.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	e.do(e.m.Init())
	return e
}

// refresh reads the registers as a refresh tick would.
func (e *env) refresh() {
	e.t.Helper()
	e.send(tickMsg{gen: e.m.tgen})
}

// send delivers msg and runs every command it leads to.
func (e *env) send(msg tea.Msg) {
	e.t.Helper()
	mm, cmd := e.m.Update(msg)
	e.m = mm.(Model)
	e.do(cmd)
}

// do runs cmd and feeds the citune messages it returns back into the
// model until no command is left. Refresh ticks and cursor messages are
// dropped, so the loop ends.
func (e *env) do(cmd tea.Cmd) {
	e.t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			e.t.Fatal("command loop does not end")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		var msg tea.Msg
		select {
		case msg = <-done:
		case <-time.After(10 * time.Second):
			e.t.Fatal("a command did not return")
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			e.quit = true
		case regsMsg, writeMsg, restoredMsg, probeProgressMsg, probeRunMsg, probeDoneMsg,
			sweepMsg, sweepDoneMsg, planMsg, resultsMsg, exportMsg:
			mm, next := e.m.Update(msg)
			e.m = mm.(Model)
			queue = append(queue, next)
		}
	}
}

// key presses.
func press(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	r, _ := utf8.DecodeRuneInString(s)
	return tea.KeyPressMsg{Code: r, Text: s}
}

func (e *env) keys(ks ...string) {
	e.t.Helper()
	for _, k := range ks {
		e.send(press(k))
	}
}

// typeText types s into the focused input.
func (e *env) typeText(s string) {
	e.t.Helper()
	for _, r := range s {
		e.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// clearInput deletes what the focused input holds.
// writePlan types text as the Sweep tab's plan and enters it.
func (e *env) writePlan(text string) {
	e.keys("3", "e")
	e.answer(text)
}

// answer replaces the open prompt's text with text and enters it.
func (e *env) answer(text string) {
	e.clearInput()
	e.typeText(text)
	e.keys("enter")
}

func (e *env) clearInput() {
	e.t.Helper()
	e.send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
}

// selectRow moves the register cursor to the row named name: "REG.FIELD"
// in the knob section, "REG" for a register row.
func (e *env) selectRow(name string) {
	e.t.Helper()
	e.keys("g")
	for i := 0; i < len(e.m.regs.rows); i++ {
		r := e.m.regs.rows[e.m.regs.sel]
		switch {
		case r.kind == rowField && r.knobs && strings.EqualFold(r.reg.Name+"."+r.field.Name, name):
			return
		case r.kind == rowReg && strings.EqualFold(r.reg.Name, name):
			return
		case r.kind == rowField && !r.knobs && !r.field.Knob && strings.EqualFold(r.reg.Name+"."+r.field.Name, name):
			return
		}
		e.keys("j")
	}
	e.t.Fatalf("no row %s", name)
}

// field reads a field of the simulated controller.
func (e *env) field(name string) uint32 {
	e.t.Helper()
	ref, err := e.target.Profile.Map.Lookup(name)
	if err != nil {
		e.t.Fatal(err)
	}
	return ref.Field.Get(e.sim.Peek(ref.Reg.Offset))
}

func (e *env) startField(name string) uint32 {
	e.t.Helper()
	ref, _ := e.target.Profile.Map.Lookup(name)
	v, _ := e.start.Value(ref.Reg.Name)
	return ref.Field.Get(v)
}

// screen is the view as plain text.
func (e *env) screen() string {
	return ansi.Strip(e.m.View().Content)
}

// setEdit picks value v in the editor of the selected field and applies.
func (e *env) setEdit(name string, v uint32) {
	e.t.Helper()
	e.selectRow(name)
	e.keys("enter")
	if e.m.regs.ed == nil {
		e.t.Fatalf("editor did not open on %s: %s", name, e.m.status)
	}
	for i, c := range e.m.regs.ed.choices {
		if c.v == v {
			for e.m.regs.ed.sel > i {
				e.keys("up")
			}
			for e.m.regs.ed.sel < i {
				e.keys("down")
			}
			e.keys("enter")
			return
		}
	}
	// other value
	for !e.m.regs.ed.onInput() {
		e.keys("down")
	}
	e.clearInput()
	e.typeText(fmt.Sprint(v))
	e.keys("enter")
}

// resize sets the terminal size.
func (e *env) resize(w, h int) { e.send(tea.WindowSizeMsg{Width: w, Height: h}) }

// golden compares the screen with testdata/<name>.golden.
func golden(t *testing.T, name, got string, w, h int) {
	t.Helper()
	lines := strings.Split(got, "\n")
	if len(lines) != h {
		t.Errorf("%s: %d lines, want %d", name, len(lines), h)
	}
	for i, l := range lines {
		if n := ansi.StringWidth(l); n > w {
			t.Errorf("%s: line %d is %d columns wide (max %d): %q", name, i+1, n, w, l)
		}
	}
	path := filepath.Join(testdata, name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (go test ./tui -update rewrites it):\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// simMeasure is the sim probe as package sweep calls it; cancel, when
// set, is called after stopAfter runs.
type simMeasure struct {
	p         probe.Probe
	runs      atomic.Int64
	stopAfter int64
	cancel    context.CancelFunc
}

func (s *simMeasure) Name() string { return s.p.Name() }

func (s *simMeasure) Run(ctx context.Context, _ func(done, total int64)) (probe.Run, error) {
	res, err := probe.Measure(ctx, s.p, probe.Options{Repeat: 1})
	if n := s.runs.Add(1); s.cancel != nil && n == s.stopAfter {
		s.cancel()
	}
	if len(res.Runs) == 0 {
		return probe.Run{}, err
	}
	return res.Runs[0], err
}

func simProbe(t *testing.T, tg *soc.Target) probe.Probe {
	t.Helper()
	p := &probe.SimProbe{Ctl: tg.Simulator(), Map: tg.Profile.Map, Size: 8 << 20, Seed: 1, Qmult: simmodel.DefaultQmult, Buffers: simmodel.DefaultBuffers}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	return p
}

func writeTestFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }

// fixedClock is the sweeps' clock in tests: a sweep takes no time, so
// that screens do not depend on the machine's speed.
func fixedClock() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }

// testUndo is the tests' Session over an undo session, as cmd/citune's.
type testUndo struct{ *undo.Session }

func (u testUndo) Restore(refs []regs.Ref) ([]Restored, error) {
	var rs []undo.Restored
	var err error
	if refs == nil {
		rs, err = u.Session.Restore(context.Background())
	} else {
		rs, err = u.Revert(refs)
	}
	out := make([]Restored, len(rs))
	for i, r := range rs {
		out[i] = Restored{Name: r.Name, Want: r.Want, Got: r.Got, Held: r.Held, Wrote: r.Wrote, Line: r.String()}
	}
	return out, err
}

func (testUndo) Stops(err error) bool { return errors.Is(err, undo.ErrJournalChanged) }

// testDTS is the tests' DeviceTree: the screen's own fragment, built by
// package sweep/dtsout (cmd/citune's tuiDTS gives it for a winner whose
// results file it cannot read; for the others `citune dts`'s text: its
// TestTUIDeviceTree and tui_export script check that, TestExportThroughDTS
// what the TUI hands over).
type testDTS struct{ t *soc.Target }

func (d testDTS) Text(x DTSExport) (string, string) {
	set := dtsout.LiveSettings(d.t.Profile, x.Snapshot)
	if x.Settings != nil {
		set = make([]dtsout.Setting, len(x.Settings))
		for i, s := range x.Settings {
			set[i] = dtsout.Setting(s)
		}
	}
	return dtsout.BuildDTS(dtsout.DTSInput{Profile: d.t.Profile, Controller: d.t.Controller, Role: x.Role,
		Settings: set, Snapshot: x.Snapshot, Header: x.Header}).String(), ""
}

func (d testDTS) NotPermanent(h results.Header) func(map[string]string) []string {
	return dtsout.Permanence(dtsout.DTSInput{Profile: d.t.Profile, Controller: d.t.Controller, Role: regs.Role(h.Role),
		Snapshot: h.Snapshot, ParamUsers: h.ModParamControllers})
}

// stoppedClock is the wall clock stopped at fixedClock, for a
// testSweeper.
func stoppedClock() sweep.Clock { return fixedWall{} }

type fixedWall struct{ sweep.WallClock }

func (fixedWall) Now() time.Time { return fixedClock() }

// plainStyles has no attributes at all.
func plainStyles() Styles {
	s := lipgloss.NewStyle
	h := help.Styles{Ellipsis: s(), ShortKey: s(), ShortDesc: s(), ShortSeparator: s(), FullKey: s(), FullDesc: s(), FullSeparator: s()}
	return Styles{Header: s(), TabActive: s(), Tab: s(), ColHead: s(), Section: s(), Knob: s(), Cursor: s(),
		Drift: s(), Dim: s(), Status: s(), Error: s(), Good: s(), Title: s(), Help: h}
}
