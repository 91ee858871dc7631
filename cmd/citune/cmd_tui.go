package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/tui"
	"github.com/citune/citune/undo"
)

func init() {
	register(&command{
		name:    "tui",
		summary: "interactive tuning session (works on an 80x24 serial console)",
		usage:   "tui [--interval D] [--sweep-out FILE] [--units UNIT] [-- PROBE-KIND [flags] [TARGET]]",
		run:     runTUI,
		noJSON:  "it is interactive; its sweeps' results files are JSON (citune dts --json and citune report --json read them)",
	})
}

func runTUI(a *app, args []string) error {
	fs := a.flags("tui")
	interval := fs.Duration("interval", time.Second, "refresh `INTERVAL` of the register view (changed in the TUI with < and >)")
	sweepOut := fs.String("sweep-out", "", "results `FILE` (JSONL) of the first sweep; later plans add -2, -3... (default: a new\ntui-sweep-DATE-TIME.jsonl in the state directory, beside the journal)")
	role := fs.String("role", "", "the controller's `ROLE`, host or device (default: from USBMODE.CM)")
	units := fs.String("units", "", unitsUsage("the results file keeps bytes per second"))
	if err := a.parse(fs, args); err != nil {
		return err
	}
	display, err := byteUnit(*units, a.env.getenv)
	if err != nil {
		return err
	}
	if r := regs.Role(*role); r != "" && !r.Valid() {
		return usageErr("--role %q: want host or device", *role)
	}
	fresh := *sweepOut == ""
	if fresh {
		jp, err := a.journalPath()
		if err != nil {
			return err
		}
		out, err := tuiSweepOut(jp, time.Now())
		if err != nil {
			return err
		}
		*sweepOut = out
	}
	words := fs.Args()
	if len(words) == 0 && a.g.sim {
		words = []string{"sim"}
	}
	// The probe's -h is its help (nothing opened), as after sweep's --.
	if err := parseProbeFlags(words, nil); errors.Is(err, flag.ErrHelp) {
		printProbeKinds(a.env.stdout)
		return err
	}
	t, err := a.open(true)
	if err != nil {
		return err
	}
	defer t.Close()
	start, err := soc.Take(t.Profile.Map, t)
	if err != nil {
		return err
	}
	var sysHost *host.Host
	if t.Kind == soc.KindDevMem {
		sysHost = &host.Host{Root: "/", Loader: host.ExecLoader{}, Modules: t.Profile.Reload.Modules,
			Wait: t.Profile.Reload.Wait, WaitTimeout: defaultReloadTimeout}
	}
	u, closeUndo, err := a.openUndo(t, undo.KindTUI, undoOpts{}.withHost(sysHost))
	if err != nil {
		return err
	}
	defer closeUndo()
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	jobs := &sync.WaitGroup{}
	cfg := tui.Config{Target: t, Start: start, Undo: tuiUndo{u}, Ctx: ctx, Jobs: jobs,
		Interval: *interval, Role: regs.Role(*role), ByteUnit: display,
		Mono: monochrome(a.env.getenv), WriteFile: writeOutput, DTS: &tuiDTS{a: a, t: t},
		LoadPlan: tui.LoadPlanFile}
	if err := a.tuiProbe(t, words, &cfg, sysHost, u, *sweepOut, fresh); err != nil {
		return err
	}
	final, runErr := tea.NewProgram(tui.New(cfg), a.tuiOptions(ctx)...).Run()
	cancel() // stop background jobs; a sweep restores its own values
	jobs.Wait()
	var out tui.Outcome
	if m, ok := final.(tui.Model); ok {
		out = m.Outcome()
	}
	return a.tuiEnd(t, u, out, runErr)
}

// tuiOptions: keys from stdin, the screen on stdout (through pipes 80x24,
// a serial console's), filtered for a plain TERM (plainterm.go).
func (a *app) tuiOptions(ctx context.Context) []tea.ProgramOption {
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithInput(a.env.stdin),
		tea.WithOutput(tuiOutput(a.env.stdout, a.env.getenv("TERM")))}
	if !a.env.isTTY {
		opts = append(opts, tea.WithWindowSize(80, 24))
	}
	return opts
}

// tuiProbe gives the session its probe and its sweeper (writing through
// u), or says why there is neither.
func (a *app) tuiProbe(t *soc.Target, words []string, cfg *tui.Config, sysHost *host.Host, u *undo.Session, sweepOut string, fresh bool) error {
	if len(words) == 0 {
		cfg.NoProbe = "no probe given: start with `citune tui -- KIND [flags] [TARGET]`, e.g. `-- read --size 64M /dev/sda` (see `citune probe -h`)"
		cfg.NoSweep = "a sweep needs a probe: " + cfg.NoProbe
		return nil
	}
	env := probe.Env{IRQ: t.Controller.IRQ}
	pr, err := parseProbe(words, probeDeps{Map: t.Profile.Map, Sim: simOf(t)})
	if err != nil {
		return err
	}
	cfg.Prober = probe.NewSeries(pr, env)
	if err := simWithRealProbe(t, pr, false); err != nil {
		// A single probe run measures this machine, as it says; a
		// sweep would rank simulated settings on real rates.
		cfg.NoSweep = "the probe " + pr.Name() + " measures this machine, and its rates do not depend on the simulated settings: start with -- sim (citune sweep --force runs such a sweep, marked)"
		return nil
	}
	cfg.Sweeper = &tuiSweeper{kit: a.newSweepKit(t, pr, env, sysHost, u, a.env.root, a.args), out: sweepOut, fresh: fresh}
	return nil
}

// tuiEnd reports how the session ended: values kept, restored on quit,
// or after a signal or a failure restored here once every job has ended.
func (a *app) tuiEnd(t *soc.Target, u *undo.Session, out tui.Outcome, runErr error) error {
	if out.ExportErr != nil {
		fmt.Fprintf(a.env.stderr, "citune tui: %v\n", out.ExportErr)
	}
	switch {
	case out.Quit && out.Kept:
		touched := u.Touched()
		if err := u.Keep(); err != nil {
			return err
		}
		switch {
		case len(touched) == 0:
		case t.Kind == soc.KindSim:
			// Nothing outlives the process: nothing was kept anywhere.
			fmt.Fprintf(a.env.stdout, "%d changed value(s) left on the simulated controller, which ends with the session: nothing on real hardware changed\n", len(touched))
		default:
			fmt.Fprintf(a.env.stdout, "kept %d changed value(s) on %s\n", len(touched), t)
			jp, _ := a.journalPath()
			fmt.Fprintf(a.env.stdout, "originals journalled in %s; undo with `citune restore`\n", jp)
		}
		return nil
	case out.Quit && out.Restored:
		for _, l := range out.Report {
			fmt.Fprintf(a.env.stdout, "restored %s\n", l)
		}
		if out.Stopped != nil {
			if out.Err != nil {
				return fmt.Errorf("%w\nrestoring the starting values: %w", out.Stopped, out.Err)
			}
			return out.Stopped
		}
		if len(out.Report) == 0 && out.Err == nil && !out.Unchanged {
			fmt.Fprintln(a.env.stdout, "every value the session changed was already back at its starting value")
		}
		if out.Err != nil {
			return withCode(exitNotHeld, fmt.Errorf("restoring the starting values: %w", out.Err))
		}
		if left := u.Touched(); len(left) > 0 {
			var s []string
			for _, r := range left {
				s = append(s, r.String())
			}
			return withCode(exitNotHeld, fmt.Errorf("not back at their starting values: %s", strings.Join(s, ", ")))
		}
		return nil
	}
	rs, rerr := tuiUndo{u}.Restore(nil)
	for _, l := range tui.RestoreReport(rs) {
		fmt.Fprintf(a.env.stderr, "citune tui: restored %s\n", l)
	}
	reason := cmp.Or(runErr, errors.New("the session ended without a quit"))
	if ctx := a.ctx.Err(); ctx != nil {
		reason = fmt.Errorf("terminated by a signal (%w)", context.Cause(a.ctx))
	}
	if rerr != nil {
		return fmt.Errorf("%v; restoring the starting values failed: %w (run `citune restore`)", reason, rerr)
	}
	if errors.Is(runErr, tea.ErrProgramKilled) || a.ctx.Err() != nil {
		return fmt.Errorf("%v; the starting values were restored", reason)
	}
	return reason
}

// monochrome reports a terminal without colour: NO_COLOR set, or a
// DEC-style or dumb TERM (a serial console's vt100).
func monochrome(getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return true
	}
	term := getenv("TERM")
	return term == "" || slices.ContainsFunc([]string{"vt1", "vt2", "vt3", "vt5", "dumb"}, func(p string) bool { return strings.HasPrefix(term, p) })
}

// tuiUndo is the TUI's tui.Session: the undo session in the TUI's terms.
type tuiUndo struct{ *undo.Session }

// Restore implements tui.Session.
func (u tuiUndo) Restore(refs []regs.Ref) ([]tui.Restored, error) {
	var rs []undo.Restored
	var err error
	if refs == nil {
		rs, err = u.Session.Restore(context.Background())
	} else {
		rs, err = u.Revert(refs)
	}
	out := make([]tui.Restored, len(rs))
	for i, r := range rs {
		out[i] = tui.Restored{Name: r.Name, Want: r.Want, Got: r.Got, Held: r.Held, Wrote: r.Wrote, Line: r.String()}
	}
	return out, err
}

// Stops implements tui.Session.
func (tuiUndo) Stops(err error) bool { return errors.Is(err, undo.ErrJournalChanged) }

// tuiDTS is the TUI's tui.DeviceTree on target t. It keeps nothing: the
// TUI asks when what its export shows changes, not on every frame.
type tuiDTS struct {
	a *app
	t *soc.Target
}

// Text implements tui.DeviceTree: the text `citune dts` prints (for the
// winner from its results file, or the live values), byte for byte, else
// the screen's own fragment. The warning dts would print on stderr (a
// stand-in profile) comes back as the note: it would land on the screen.
func (d *tuiDTS) Text(x tui.DTSExport) (text, note string) {
	if x.Results != "" || !x.Winner {
		var warn bytes.Buffer
		q, e := *d.a, *d.a.env
		e.stderr = &warn
		q.env = &e
		if text, err := q.dtsText(d.t, x.Results, x.Snapshot); err == nil {
			line, _, _ := strings.Cut(warn.String(), "\n")
			return text, strings.TrimPrefix(strings.TrimSpace(line), "citune: ")
		}
	}
	return screenDTS(d.t, x), ""
}

// screenDTS is the fragment of what the TUI's export screen shows.
func screenDTS(t *soc.Target, x tui.DTSExport) string {
	set := dtsout.LiveSettings(t.Profile, x.Snapshot)
	if x.Settings != nil {
		set = make([]dtsout.Setting, len(x.Settings))
		for i, s := range x.Settings {
			set[i] = dtsout.Setting(s)
		}
	}
	return dtsout.BuildDTS(dtsout.DTSInput{Profile: t.Profile, Controller: t.Controller, Role: x.Role,
		Settings: set, Snapshot: x.Snapshot, Header: x.Header}).String()
}

// NotPermanent implements tui.DeviceTree, as citune dts ranks
// (decideResults).
func (d *tuiDTS) NotPermanent(h results.Header) func(map[string]string) []string {
	return dtsout.Permanence(dtsout.DTSInput{Profile: d.t.Profile, Controller: d.t.Controller, Role: regs.Role(h.Role),
		Snapshot: h.Snapshot, ParamUsers: h.ModParamControllers})
}
