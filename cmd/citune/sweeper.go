package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/undo"
	"github.com/citune/citune/units"
)

// sweepKit is the one wiring of every sweep of a command, for `citune
// sweep` and the TUI's Sweep tab (tui.Sweeper) alike.
type sweepKit struct {
	t      *soc.Target
	series probe.Probe // the probe with accounting and cross-run data checks
	name   string
	sim    *probe.SimProbe // the sim probe on the simulated controller
	host   *host.Host      // nil: register axes only
	u      *undo.Session   // the sweep writes through it
	root   fs.FS           // where the device tree is read (ParamUsers)
	cmd    []string
	kernel string
}

// newSweepKit wires the probe pr (with env) into sweeps on t.
func (a *app) newSweepKit(t *soc.Target, pr probe.Probe, env probe.Env, h *host.Host, u *undo.Session, root fs.FS, cmd []string) *sweepKit {
	k := &sweepKit{t: t, series: probe.NewSeries(pr, env), name: pr.Name(), host: h, u: u, root: root, cmd: cmd,
		kernel: readFile(a.env.root, "proc/sys/kernel/osrelease")} // uname -r
	if sp, ok := pr.(*probe.SimProbe); ok && t.Simulated() {
		// This machine's kernel plays no part in the figures: none named.
		k.sim, k.kernel = sp, ""
	}
	return k
}

// runner builds the runner of pl (resuming prev when not nil). With the
// sim probe on the simulated controller it runs on the simulated board's
// clock (modelled times, nothing sleeps); other probes take wall time.
func (k *sweepKit) runner(pl plan.Plan, prev *results.Results) *sweep.Config {
	r := &sweep.Config{ParamUsers: map[string][]soc.ParamUser{}, Target: k.t, Prober: k.series, ProbeName: k.name,
		Plan: pl, Host: k.host, Session: k.u, Kernel: k.kernel, Resume: prev, Command: k.cmd}
	// Per module parameter axis, the controllers the (module-wide)
	// parameter changes.
	for _, ax := range pl.Axes {
		if ax.Kind == plan.KindModParam || ax.Kind == plan.KindCmdline {
			r.ParamUsers[ax.Name] = k.t.ParamUsers(k.root, k.t.Profile, ax.Name)
		}
	}
	if k.sim != nil {
		r.Clock = sweep.NewSimClock(time.Now(), k.sim)
	}
	return r
}

// tuiSweeper is the TUI's tui.Sweeper: each plan's results go to a file
// of their own (out, then out-2, out-3...); running the plan stopped last
// again resumes it from its file.
type tuiSweeper struct {
	kit *sweepKit
	out string
	// fresh: out is the default name, which two sessions started in the
	// same second share: a plan's file is created exclusively (createNew).
	fresh bool

	mu      sync.Mutex
	path    string // results file of the current plan
	planKey string
	n       int
}

// Run implements tui.Sweeper.
func (s *tuiSweeper) Run(ctx context.Context, in plan.Plan, resume bool, onEvent func(event.Event)) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pl := in
	if pl.Mode == "" {
		pl.Mode = plan.DefaultPlan().Mode
	}
	pl.SetDefaultBudget() // as citune sweep
	pl.Axes = slices.Clone(in.Axes)
	var words []string
	for _, ax := range pl.Axes {
		words = append(words, ax.Spec())
	}
	key := fmt.Sprintf("%s mode=%s repeat=%d budget=%g", strings.Join(words, " "), pl.Mode, pl.Repeats, pl.Budget)
	var prev *results.Results
	if resume && key == s.planKey && s.path != "" {
		var err error
		if prev, err = loadResults(s.path); err != nil {
			return "", err
		}
	} else {
		s.planKey = key
	}
	r := s.kit.runner(pl, prev)
	r.OnEvent = onEvent
	var f io.Closer
	var err error
	switch {
	case prev != nil:
		f, err = r.OpenOut(s.path)
	case s.fresh:
		var fh *os.File
		if fh, _, err = createNew(s.next); err == nil {
			r.Out, f = results.NewWriter(fh), fh
		}
	default:
		s.next()
		f, err = r.OpenOut(s.path)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = r.Run(ctx)
	if errors.Is(err, sweep.ErrInterrupted) {
		err = errors.Join(context.Canceled, err)
	}
	return s.path, err
}

// next names the next plan's file: out, then out-2, out-3...
func (s *tuiSweeper) next() string {
	s.n++
	s.path = s.out
	if s.n > 1 {
		ext := filepath.Ext(s.out)
		s.path = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(s.out, ext), s.n, ext)
	}
	return s.path
}

// freshName is base+ext, or base-2+ext, base-3+ext... whichever does not
// exist yet.
func freshName(base, ext string) string {
	name := base + ext
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s-%d%s", base, i, ext)
	}
}

// createFresh creates the first of freshName's names that does not exist,
// exclusively: of two sweeps started in the same second each gets a file
// of its own (freshName alone leaves a window between the look and the
// create, and results.CreateFile takes over a file holding only a header).
func createFresh(base, ext string) (*os.File, string, error) {
	return createNew(func() string { return freshName(base, ext) })
}

// createNew creates, exclusively, the first name next gives that another
// sweep or session has not taken.
func createNew(next func() string) (*os.File, string, error) {
	for {
		name := next()
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
}

// tuiSweepOut is the default results file of the TUI's first sweep: a
// new tui-sweep-DATE-TIME.jsonl in the state directory (created when
// missing), beside the journal: results are worth keeping, not for /tmp.
func tuiSweepOut(journal string, now time.Time) (string, error) {
	dir := filepath.Dir(journal)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("state directory for the TUI's sweep results: %w (give --sweep-out)", err)
	}
	return freshName(filepath.Join(dir, "tui-sweep-"+now.Format("20060102-150405")), ".jsonl"), nil
}

// sweepResume reads the results file of --resume (target, plan and probe)
// and settles the output file's name; an empty one starts afresh.
func (a *app) sweepResume(o *sweepOpts, words []string) (*results.Results, []string, error) {
	var prev *results.Results
	if o.resume != "" {
		if fi, err := os.Stat(o.resume); err == nil && fi.Size() == 0 {
			fmt.Fprintf(a.env.stderr, "citune: %s is empty: starting a new sweep in it\n", o.resume)
			o.out, o.resume = o.resume, ""
		}
	}
	if o.resume != "" {
		var err error
		if prev, err = loadResults(o.resume); err != nil {
			return nil, nil, err
		}
		if o.out != "" && o.out != o.resume {
			return nil, nil, usageErr("sweep: --resume appends to its results file; leave out --out or give the same file")
		}
		if n := len(prev.Ends); n > 0 && prev.Ends[n-1].Status == results.StatusAborted {
			// Resuming would write the boot loader's variables again.
			return nil, nil, usageErr("sweep: %s was aborted by `citune sweep --abort`: it does not resume (start a new sweep, with --out)", o.resume)
		}
		o.out = o.resume
		h := prev.Header
		a.targetOf(h)
		if len(words) == 0 {
			words = probeWordsFromCommand(h.Command)
			if len(words) > 0 {
				fmt.Fprintf(a.env.stderr, "citune: resuming with the recorded probe: %s\n", strings.Join(words, " "))
			}
		}
	}
	if o.out == "" {
		// A name that does not collide, so the same command runs again.
		o.outBase = "citune-sweep-" + time.Now().Format("20060102-150405")
		o.out = freshName(o.outBase, ".jsonl") // created by createFresh
	} else if o.force && prev == nil {
		if fi, err := os.Lstat(o.out); err == nil && fi.Mode().IsRegular() {
			if err := os.Remove(o.out); err != nil {
				return nil, nil, err
			}
		}
	}
	if len(words) == 0 {
		return nil, nil, usageErr("sweep: no probe given: add -- PROBE-KIND [probe flags] [TARGET] (see `citune probe -h`), e.g. -- read --size 64M /dev/sda, or -- sim with --sim")
	}
	return prev, words, nil
}

// sweepPlan checks the plan against the controller's map before anything
// is opened for writing, and refuses file, module and boot axes that would
// change this machine's own settings.
func (a *app) sweepPlan(o *sweepOpts, set map[string]bool, prev *results.Results, words []string) (*soc.Profile, *soc.Controller, plan.Plan, error) {
	p, err := a.resolveProfile()
	if err != nil {
		return nil, nil, plan.Plan{}, err
	}
	c, err := pickController(p, a.g.controller)
	if err != nil {
		return nil, nil, plan.Plan{}, err
	}
	pl, err := o.buildPlan(p.ForController(c).Map, set, prev)
	if err != nil {
		return nil, nil, pl, withCode(exitUsage, err)
	}
	// Global flags among the probe's words (--sim after the kind).
	if err := parseProbeFlags(words, a.g.register); err != nil {
		return nil, nil, pl, a.sweepProbeErr(err)
	}
	if (a.g.sim || a.g.memFile != "") && !set["sys-root"] {
		for _, ax := range pl.Axes {
			switch ax.Kind {
			case plan.KindCmdline, plan.KindDT:
				return nil, nil, pl, usageErr("sweep: %s with a simulated or image target would write this machine's own boot loader; give a fake root with --sys-root, or sweep the board", ax.SpecName())
			case plan.KindModParam:
				return nil, nil, pl, usageErr("sweep: modparam:%s with a simulated or image target would reload this machine's own modules; give a fake module tree with --sys-root (and fake --modprobe/--rmmod), or sweep the board", ax.Name)
			case plan.KindFile:
				return nil, nil, pl, usageErr("sweep: sysfs:%s with a simulated or image target would change this machine's own kernel settings; give a fake tree with --sys-root, or sweep the board", ax.Name)
			}
		}
	}
	return p, c, pl, nil
}

// sweepProbe parses the sweep's one probe; a resumed sweep keeps its own.
func (a *app) sweepProbe(t *soc.Target, o *sweepOpts, words []string, prev *results.Results) (probe.Probe, probe.Env, error) {
	env := probe.Env{IRQ: cmp.Or(o.irq, t.Controller.IRQ), NoTrace: o.noTrace}
	ps, err := parseProbes(words, probeDeps{Map: t.Profile.Map, Sim: simOf(t), Flags: a.g.register})
	if err != nil {
		return nil, env, a.sweepProbeErr(err)
	}
	if len(ps) != 1 {
		return nil, env, usageErr("sweep: give one probe (a sweep measures one workload; --also is for `citune probe`)")
	}
	if prev != nil && prev.Header.Probe != "" && ps[0].Name() != prev.Header.Probe {
		// Another workload's rates do not rank against the recorded ones.
		return nil, env, usageErr("sweep: %s was measured with probe %s; this probe is %s: leave the probe out to continue with the recorded one, or start a new sweep", o.out, prev.Header.Probe, ps[0].Name())
	}
	if err := simWithRealProbe(t, ps[0], o.force || (prev != nil && prev.Header.RealProbe())); err != nil {
		return nil, env, err
	}
	return ps[0], env, nil
}

// simWithRealProbe refuses a real probe (read, write, cmd) on the
// simulated controller unless forced: its rates do not depend on the
// simulated settings. Forced, every output is marked (SimulatedMark).
func simWithRealProbe(t *soc.Target, pr probe.Probe, force bool) error {
	if _, ok := pr.(*probe.SimProbe); !t.Simulated() || ok || force {
		return nil
	}
	return usageErr("sweep: --sim sets simulated registers, but probe %s measures this machine: its rates do not depend on the simulated settings, and ranking them would mislead; use the simulated board's probe (-- sim), sweep the board, or add --force to run it anyway (every output then says so)", pr.Name())
}

// probeWordsFromCommand recovers the probe words of a recorded sweep
// command line.
func probeWordsFromCommand(cmd []string) []string {
	i := slices.Index(cmd, "sweep")
	if i < 0 {
		return nil
	}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o sweepOpts
	o.register(fs)
	var g globals
	g.register(fs)
	if interleave(fs, cmd[i+1:]) != nil {
		return nil
	}
	return fs.Args()
}

// buildPlan is the defaults (resuming: the results file's plan), the
// --plan file, then the flags given.
func (o *sweepOpts) buildPlan(m *regs.Map, set map[string]bool, prev *results.Results) (plan.Plan, error) {
	pl := plan.DefaultPlan()
	pl.Seed = time.Now().UnixNano() % 1_000_000
	if prev != nil {
		var err error
		if pl, err = prev.Header.Plan.Bind(m); err != nil {
			return pl, fmt.Errorf("results file: %w", err)
		}
	}
	var errs []error
	if o.plan != "" {
		pf, axes, err := plan.ReadPlanFile(m, o.plan)
		if err != nil {
			return pl, err
		}
		if err := pf.Apply(&pl); err != nil {
			return pl, err
		}
		if prev == nil {
			pl.Axes = axes
		}
	}
	if len(o.axes) > 0 {
		var axes []plan.Axis
		for _, s := range o.axes {
			a, err := plan.ParseAxis(m, s)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			axes = append(axes, a)
		}
		if prev == nil && o.plan != "" {
			pl.Axes = append(pl.Axes, axes...)
		} else {
			pl.Axes = axes
		}
	}
	flags := map[string]string{"mode": o.mode, "repeat": strconv.Itoa(o.repeat), "warmup": strconv.Itoa(o.warmup),
		"settle": o.settle.String(), "seed": strconv.FormatInt(o.seed, 10), "baseline-every": strconv.Itoa(o.baselineEvery),
		"budget": strconv.FormatFloat(o.budget, 'g', -1, 64), "min-gain": strconv.FormatFloat(o.minGain, 'g', -1, 64)}
	for _, k := range plan.Keys {
		if set[k] {
			errs = append(errs, pl.Set(k, flags[k]))
		}
	}
	if prev == nil {
		pl.SetDefaultBudget()
	}
	if err := errors.Join(errs...); err != nil {
		return pl, err
	}
	return pl, pl.Check()
}

func (a *app) sweepProbeErr(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		printProbeKinds(a.env.stdout)
		return err // exit 0, and no sweep
	}
	if ee := (*exitErr)(nil); errors.As(err, &ee) && ee.code == exitUsage {
		return withCode(exitUsage, fmt.Errorf("sweep: %w", err))
	}
	return err
}

// sweepRunner opens the sweep's undo session and builds its runner with
// the CLI's printer, board, boot store and, simulated, reload.
func (a *app) sweepRunner(t *soc.Target, o *sweepOpts, set map[string]bool, pl plan.Plan, pr probe.Probe, env probe.Env, prev *results.Results, display units.Display) (*sweep.Config, func(), error) {
	sysHost := o.host(t.Profile)
	scopeRoot := a.env.root
	if set["sys-root"] {
		scopeRoot = os.DirFS(o.sysRoot)
	}
	st, broot, err := a.bootStore(o, pl)
	if err != nil {
		return nil, nil, err
	}
	u, closeUndo, err := a.openUndo(t, undo.KindSweep, undoOpts{adopt: prev != nil}.withHost(sysHost))
	if err != nil {
		return nil, nil, err
	}
	runner := a.newSweepKit(t, pr, env, sysHost, u, scopeRoot, absArgs(a.args)).runner(pl, prev)
	// Escaped: a resumed sweep's names and values come from its results file.
	runner.Log, runner.ByteUnit = textwrap.EscapeWriter(humanOut(a.env.stderr, a.env.errTTY)), display
	runner.Board, runner.Boot, runner.BootRoot = a.boardID(o.board, t), st, broot
	if t.Simulated() {
		runner.Remap = func(context.Context) error { return t.ReloadSim(sysHost.ReadParam) }
	}
	return runner, closeUndo, nil
}

// loadResults reads a results file. The reader's error on a damaged one
// gives way to report's explanation (which line, what is wrong), so every
// command says the same.
func loadResults(path string) (*results.Results, error) {
	res, err := results.Load(path)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	if _, rerr := report.Load(path, report.LoadOptions{}); rerr != nil {
		return nil, rerr
	}
	return nil, err
}

// boardID is what a sweep records of its board: --board (else
// $CITUNE_BOARD), the hostname and, for the live controller only (not a
// simulator or an image), the device tree's model.
func (a *app) boardID(name string, t *soc.Target) *results.BoardID {
	b := &results.BoardID{Name: strings.TrimSpace(name)}
	b.Name = cmp.Or(b.Name, strings.TrimSpace(a.env.getenv("CITUNE_BOARD")))
	if t.Kind == soc.KindDevMem {
		if m, err := fs.ReadFile(a.env.root, "proc/device-tree/model"); err == nil {
			b.Model = strings.TrimSpace(strings.TrimRight(string(m), "\x00"))
		}
	}
	if h, err := os.Hostname(); err == nil {
		b.Host = h
	}
	return b
}
