package tui

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/soc/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// env is a session against the simulated i.MX6Q usbh1 controller.
type env struct {
	t      *testing.T
	target *soc.Target
	sim    *sim.Sim
	start  soc.Snapshot
	probe  *fakeProber
	files  map[string]string
	m      Model
	quit   bool
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
	tg, err := soc.OpenSim(p, c, soc.SimOptions{Driver: driver})
	if err != nil {
		t.Fatal(err)
	}
	start, err := soc.Take(p.Map, tg.Acc)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, target: tg, sim: tg.Sim, start: start, files: map[string]string{}}
	e.probe = &fakeProber{sim: tg.Sim, driver: driver}
	plain := PlainStyles()
	cfg := Config{
		Target: tg, Start: start,
		Ctx: context.Background(), Jobs: &sync.WaitGroup{},
		Prober:  e.probe,
		Sweeper: &fakeSweeper{acc: tg.Acc, probe: e.probe},
		LoadPlan: func(path string, m *regs.Map) (SweepPlan, error) {
			return parsePlan("AHBBRST=0,3 ITC=1,8 repeat=2", m)
		},
		WriteFile: func(path string, b []byte) error { e.files[path] = string(b); return nil },
		Interval:  time.Second,
		Tick:      func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil },
		Styles:    &plain,
	}
	for _, o := range opts {
		o(&cfg)
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
			sweepMsg, sweepDoneMsg, planMsg, exportMsg:
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
func (e *env) clearInput() {
	e.t.Helper()
	e.send(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
}

// selectRow moves the register cursor to the row named name: "REG.FIELD"
// in the knob section, "REG" for a register row.
func (e *env) selectRow(name string) {
	e.t.Helper()
	e.keys("g")
	for i := 0; i < len(e.m.rows); i++ {
		r := e.m.rows[e.m.sel]
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
	if e.m.mode != modeEdit {
		e.t.Fatalf("editor did not open on %s: %s", name, e.m.status)
	}
	for i, c := range e.m.ed.choices {
		if c.v == v {
			for e.m.ed.sel > i {
				e.keys("up")
			}
			for e.m.ed.sel < i {
				e.keys("down")
			}
			e.keys("enter")
			return
		}
	}
	// other value
	for !e.m.ed.onInput() {
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
	path := filepath.Join("testdata", name+".golden")
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

// fakeProber models a throughput that rises as ITC falls and with longer
// AHB bursts, from the simulated controller's registers; with driver set
// it plays ehci-hcd writing USBCMD back during the transfer.
type fakeProber struct {
	sim    *sim.Sim
	driver bool
	n      atomic.Int64
}

func (f *fakeProber) Name() string { return "fake read 32 MiB" }

func (f *fakeProber) Run(ctx context.Context, progress func(done, total int64)) (ProbeResult, error) {
	if err := ctx.Err(); err != nil {
		return ProbeResult{}, err
	}
	const total = 32 << 20
	if progress != nil {
		progress(total/2, total)
	}
	itc := (f.sim.Peek(0x140) >> 16) & 0xff
	ahb := f.sim.Peek(0x090) & 7
	mib := 30.0 + float64(8-min(itc, 8)) + []float64{2, 0, 1, 3, 0, 1, 2, 4}[ahb]
	n := f.n.Add(1)
	mib *= 1 + 0.01*float64(n%3-1)
	irqPerMiB := 64.0 / float64(max(itc, 1))
	if f.driver {
		f.sim.Transfer()
	}
	if progress != nil {
		progress(total, total)
	}
	rate := mib * (1 << 20)
	return ProbeResult{Bytes: total, Elapsed: time.Duration(float64(total) / rate * float64(time.Second)), Rate: rate,
		IRQsPerSec: irqPerMiB * mib, IRQsPerMiB: irqPerMiB, CPUPercent: 10 + irqPerMiB/4, Simulated: true}, nil
}

// fakeSweeper measures the baseline, walks the grid in order (applying
// each point through regs, checking it held, probing), measures the
// baseline again and restores the originals. AHBBRST=7 reports corrupt
// data.
type fakeSweeper struct {
	acc   regs.Accessor
	probe *fakeProber
	// stopAfter stops (as if cancelled) after this many points (0: never).
	stopAfter int
}

func (s *fakeSweeper) Run(ctx context.Context, plan SweepPlan, done []SweepPoint, report func(SweepUpdate)) error {
	var refs []regs.Ref
	for _, a := range plan.Axes {
		refs = append(refs, a.Ref)
	}
	orig, err := soc.Take(&regs.Map{Registers: regsOf(refs)}, s.acc)
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range orig.Registers {
			s.acc.Write32(r.Offset, r.Value)
		}
	}()
	grid := [][]string{{}}
	for _, a := range plan.Axes {
		var next [][]string
		for _, g := range grid {
			for _, v := range a.Values {
				next = append(next, append(append([]string(nil), g...), v))
			}
		}
		grid = next
	}
	var todo [][]string
	for _, g := range grid {
		skip := false
		for _, d := range done {
			skip = skip || sameValues(d.Values, g)
		}
		if !skip {
			todo = append(todo, g)
		}
	}
	measure := func(p *SweepPoint) error {
		for k := 0; k < plan.Repeat && p.NotHeld == ""; k++ {
			res, err := s.probe.Run(ctx, nil)
			if err != nil {
				return err
			}
			p.Rates = append(p.Rates, res.Rate)
			p.IRQsPerMiB, p.CPUPerMiB = res.IRQsPerMiB, res.CPUPercent/100
		}
		return nil
	}
	report(SweepUpdate{Total: len(todo), Note: "results in memory (fake sweeper)"})
	if len(done) == 0 {
		b := SweepPoint{Baseline: true}
		if err := measure(&b); err != nil {
			return err
		}
		report(SweepUpdate{Point: &b, Total: len(todo)})
	}
	for i, g := range todo {
		if s.stopAfter > 0 && i == s.stopAfter {
			return fmt.Errorf("sweep interrupted: %w", context.Canceled)
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		report(SweepUpdate{Done: i, Total: len(todo), Current: strings.Join(g, " "), Elapsed: time.Duration(i) * time.Second})
		var cs []regs.Change
		for j, a := range plan.Axes {
			v, _ := regs.ParseNumber(g[j])
			cs = append(cs, regs.Change{Ref: a.Ref, Value: v})
		}
		ws, err := regs.Prepare(s.acc, cs)
		if err != nil {
			return err
		}
		rs, err := regs.Commit(s.acc, ws)
		if err != nil {
			return err
		}
		p := SweepPoint{Values: g}
		for _, r := range rs {
			for _, mm := range r.Mismatches {
				p.NotHeld = mm.String()
			}
		}
		if err := measure(&p); err != nil {
			return err
		}
		for j, a := range plan.Axes {
			v, _ := s.acc.Read32(a.Ref.Reg.Offset)
			if want, _ := regs.ParseNumber(g[j]); p.NotHeld == "" && a.Ref.Field.Get(v) != want {
				p.NotHeld = fmt.Sprintf("%s set %d, reads %d after the probe", a.Ref, want, a.Ref.Field.Get(v))
			}
		}
		for j, a := range plan.Axes {
			if a.Ref.Field.Name == "AHBBRST" && g[j] == "7" {
				p.Corrupt = "read data differs at offset 0x100000"
			}
		}
		report(SweepUpdate{Point: &p, Done: i + 1, Total: len(todo), Elapsed: time.Duration(i+1) * time.Second})
	}
	return nil
}

func regsOf(refs []regs.Ref) []regs.Register {
	var out []regs.Register
	for _, r := range refs {
		dup := false
		for _, o := range out {
			dup = dup || o.Name == r.Reg.Name
		}
		if !dup {
			out = append(out, *r.Reg)
		}
	}
	return out
}

func writeTestFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
