package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/units"
)

func init() {
	register(&command{name: "sweep", summary: "measure settings that held, record them, restore, rank",
		usage: "sweep [--axis SPEC]... [--plan FILE] [--mode grid|ofat|adaptive|model [--budget SHARE]] [--repeat N] [--out RESULTS.jsonl [--force]] [--resume RESULTS.jsonl] -- PROBE-KIND [probe flags] [TARGET] | sweep --abort [RESULTS.jsonl]", run: runSweep,
		examples: []string{
			"citune --sim sweep --axis AHBBRST=INCR,INCR16 --axis TXPBURST=0x8,0x10 -- sim",
			"citune sweep --axis ITC=0,1,8 --out usbh1.jsonl -- read --size 64M /dev/sda",
			"citune sweep --resume usbh1.jsonl",
		},
		values: true, details: sweepDetails})
}

// sweepDetails is the help on sweeps across reboots.
var sweepDetails = []string{
	"across reboots: cmdline: and dt: axes take one boot per point. citune writes the next boot's kernel arguments (bootargs) and overlays (fdtoverlays) to the boot loader's store (extlinux.conf's default entry, else the U-Boot environment /etc/fw_env.config locates), journals the originals, installs a one-shot resume and reboots (--reboot); after the boot `sweep --resume FILE` measures and goes on, and the originals are back at the end. `citune restore` puts them back after a kill -9 or a power cut; `sweep --abort [FILE]` stops such a sweep for good.",
	"dt:PROPERTY takes a property the profile's knobs name (itc-setting, ahb-burst-config, tx-burst-size-dword, rx-burst-size-dword ...; `citune dts` writes the same ones), with one-cell values, which are the register field's. A point that changes one boots with an overlay, /boot/citune-CRC.dtbo (beside extlinux/ with extlinux), that targets the node by path where /proc/device-tree has it, else by label, listed after the original fdtoverlays. extlinux applies fdtoverlays itself (U-Boot's boot/pxe_utils.c: only for an entry with fdt or fdtdir, with fdtoverlay_addr_r set; a path is read from the root of the partition that holds extlinux/, so a separate /boot partition does not find it); mainline U-Boot reads no fdtoverlays variable, so a U-Boot boot script must apply it before it boots the kernel: for o in ${fdtoverlays}; do load ${devtype} ${devnum}:${distro_bootpart} ${fdtoverlay_addr_r} ${o} && fdt addr ${fdt_addr_r} && fdt resize 8192 && fdt apply ${fdtoverlay_addr_r}; done. The value is in force when the register field reads it back after the boot; else the point is not held, and the reason says whether the overlay was applied (the running device tree) or the driver or the emulator did not take it. `report`, `dts` and `verify --results` take the winner as the property.",
}

// listFlag collects a repeated flag's values (--axis, --point).
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, " ") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// defaultReloadTimeout bounds the wait for the device after a reload.
const defaultReloadTimeout = 30 * time.Second

type sweepOpts struct {
	axes                          listFlag
	plan, mode, out, resume       string
	outBase                       string // no --out: base of the default name (createFresh)
	repeat, warmup, baselineEvery int
	settle, reloadTimeout         time.Duration
	seed                          int64
	budget, minGain               float64
	reload, reloadWait            string
	modprobe, rmmod, reboot       string
	sysRoot, irq, units, board    string
	noTrace, force, abort         bool
}

func (o *sweepOpts) register(fs *flag.FlagSet) {
	d := plan.DefaultPlan()
	fs.Var(&o.axes, "axis", "an axis `SPEC`: FIELD=V1,V2 (register field), sysfs:/PATH=V1,V2 (a file), modparam:MODULE.PARAM=V1,V2 (reloads the module stack),\ncmdline:MODULE.PARAM=V1,V2 (a built-in module's parameter: one boot per value), dt:PROPERTY=V1,V2 (a device-tree property of the\ncontroller's node, e.g. dt:tx-burst-size-dword=0x10,0x20: one boot per value through an overlay the boot loader applies;\nin force when the register field it sets reads it); repeat for more")
	fs.StringVar(&o.plan, "plan", "", "a TOML plan `FILE` (axes, mode, repeat, ...); flags win over it")
	fs.StringVar(&o.mode, "mode", d.Mode, "`MODE`: grid (every combination, shuffled), ofat (one factor at a time), adaptive (race the grid's points) or model\n(screen a design, fit an additive model, confirm its top)")
	fs.IntVar(&o.repeat, "repeat", d.Repeats, "`N` measured probe runs per point")
	fs.IntVar(&o.warmup, "warmup", d.Warmup, "`N` warm-up runs per visit of a point (recorded, not counted)")
	fs.DurationVar(&o.settle, "settle", d.Settle, "`DURATION` to pause after applying a point, before probing it")
	fs.Int64Var(&o.seed, "seed", 0, "`SEED` of the shuffled order (default: from the clock; recorded in the results)")
	fs.IntVar(&o.baselineEvery, "baseline-every", d.BaselineEvery, "measure the baseline again after `N` points (0: first and last only)")
	fs.Float64Var(&o.budget, "budget", 0, "adaptive and model modes: spend at most this `SHARE` of the probe runs the grid would take (warm-ups and\nbaselines included; default a third); the points still racing when it runs out are ranked on the runs\nthey have")
	fs.Float64Var(&o.minGain, "min-gain", rank.DefaultMinGainPct, "the verdict's practical threshold in `PERCENT`: a smaller gain is no change, and nothing is recommended for it")
	fs.StringVar(&o.out, "out", "", "the results `FILE` to create (JSON Lines; default: a new citune-sweep-DATE-TIME.jsonl)")
	fs.BoolVar(&o.force, "force", false, "replace an existing --out file (its results are lost); with --sim, also\nrun a real probe (read, write, cmd) on the simulated controller, every\noutput marked SIMULATED")
	fs.BoolVar(&o.abort, "abort", false, "stop for good the sweep of the results file given (default: the one that resumes at the next boot):\nput back its settings and boot arguments, remove the resume at boot, mark the file aborted")
	fs.StringVar(&o.resume, "resume", "", "continue the interrupted sweep of this results `FILE` (appends to it)")
	fs.StringVar(&o.reload, "reload", "", "`MODULES` to reload for modparam axes, top first, comma-separated (default: the profile's [reload])")
	fs.StringVar(&o.reloadWait, "reload-wait", "", "`PATH` that must exist again after a reload, e.g. /dev/sda (default: the profile's)")
	fs.DurationVar(&o.reloadTimeout, "reload-timeout", defaultReloadTimeout, "how long (`DURATION`) to wait for it")
	fs.StringVar(&o.modprobe, "modprobe", "modprobe", "the `COMMAND` that loads a module")
	fs.StringVar(&o.rmmod, "rmmod", "rmmod", "the `COMMAND` that removes a module")
	fs.StringVar(&o.sysRoot, "sys-root", "/", "`DIR` where /sys/module, /proc/modules and the reload-wait path are (tests)")
	fs.StringVar(&o.reboot, "reboot", "reboot", "the `COMMAND` (sh -c) that reboots the board for a cmdline: axis's next point")
	fs.StringVar(&o.irq, "irq", "", "interrupt `LINE` to count, as /proc/interrupts names it (default: the profile's controller)")
	fs.BoolVar(&o.noTrace, "no-trace", false, "do not time the interrupt handler through tracefs")
	fs.StringVar(&o.units, "units", "", unitsUsage("the results file keeps bytes per second"))
	fs.StringVar(&o.board, "board", "", "name this board in the results header, for comparing a farm's boards (a LAVA device name, a lab label; default $CITUNE_BOARD)")
}

// host is the file and module side of the sweep.
func (o *sweepOpts) host(p *soc.Profile) *host.Host {
	h := &host.Host{Root: o.sysRoot, Loader: host.ExecLoader{Modprobe: o.modprobe, Rmmod: o.rmmod},
		Modules: p.Reload.Modules, Wait: cmp.Or(o.reloadWait, p.Reload.Wait), WaitTimeout: o.reloadTimeout}
	if o.reload != "" {
		h.Modules = nil
		for _, m := range strings.Split(o.reload, ",") {
			if m = strings.TrimSpace(m); m != "" {
				h.Modules = append(h.Modules, m)
			}
		}
	}
	return h
}

// absArgs makes the values of path flags absolute (commands and profiles
// when they name a file), for a `citune restore` run elsewhere.
func absArgs(args []string) []string {
	always := map[string]bool{"sys-root": true, "mem-file": true, "journal": true}
	maybe := map[string]bool{"modprobe": true, "rmmod": true, "profile": true}
	abs := func(name, v string) string {
		if filepath.IsAbs(v) || !always[name] && !strings.ContainsRune(v, '/') && !strings.HasSuffix(v, ".toml") {
			return v
		}
		return host.AbsPath(v)
	}
	out := append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		if out[i] == "--" {
			break
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(out[i], "-"), "=")
		if !strings.HasPrefix(out[i], "-") || !always[name] && !maybe[name] {
			continue
		}
		if hasVal {
			out[i] = out[i][:len(out[i])-len(val)] + abs(name, val)
		} else if i+1 < len(out) {
			out[i+1] = abs(name, out[i+1])
			i++
		}
	}
	return out
}

func runSweep(a *app, args []string) error {
	o := sweepOpts{}
	fs := a.flags("sweep")
	o.register(fs)
	if err := a.parse(fs, args); err != nil {
		if uf := (*unknownFlagError)(nil); errors.As(err, &uf) {
			// Flags go anywhere, so a probe's own flags need the --.
			msg := fmt.Sprintf("unknown flag --%s: the probe and its flags go after -- (citune sweep ... -- KIND [flags] [TARGET])", uf.name)
			if uf.nearest != "" {
				msg += "; or did you mean --" + uf.nearest + "?"
			}
			return usageErr("%s", msg)
		}
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.abort {
		return a.abortSweep(&o, set, fs.Args())
	}
	display, err := byteUnit(o.units, a.env.getenv)
	if err != nil {
		return err
	}
	prev, words, err := a.sweepResume(&o, fs.Args())
	if err != nil {
		return err
	}
	p, c, pl, err := a.sweepPlan(&o, set, prev, words)
	if err != nil {
		return err
	}
	t, err := a.openProfile(p, true)
	if err != nil {
		return err
	}
	defer t.Close()
	if t.Controller != c {
		// --controller came with the probe's words: the plan was checked
		// against another controller's map.
		return usageErr("sweep: give --controller before the probe (after --, it changed the controller the plan was checked against)")
	}
	pr, env, err := a.sweepProbe(t, &o, words, prev)
	if err != nil {
		return err
	}
	runner, closeUndo, err := a.sweepRunner(t, &o, set, pl, pr, env, prev, display)
	if err != nil {
		return err
	}
	defer closeUndo()
	points, _, err := runner.Prepare()
	if err != nil {
		if errors.Is(err, plan.ErrPlan) {
			return withCode(exitUsage, err)
		}
		return err
	}
	var f io.Closer
	if o.outBase != "" && prev == nil {
		var fh *os.File
		if fh, o.out, err = createFresh(o.outBase, ".jsonl"); err == nil {
			runner.Out, f = results.NewWriter(fh), fh
		}
	} else {
		f, err = runner.OpenOut(o.out)
	}
	if err != nil {
		return err
	}
	defer f.Close()

	sim := results.Header{Target: string(t.Kind), Probe: pr.Name()}
	if mark := sim.SimulatedMark(); mark != "" {
		fmt.Fprintln(humanOut(a.env.stderr, a.env.errTTY), mark)
	}
	fmt.Fprintf(humanOut(a.env.stderr, a.env.errTTY), "%s: %s sweep of %d points, %d runs each (+%d warm-up), probe %s; results in %s\n",
		header(t), pl.Mode, len(points), pl.Repeats, pl.Warmup, pr.Name(), o.out)
	if w := rank.FewRunsWarning(pl.Repeats); w != "" && prev == nil {
		fmt.Fprintln(humanOut(a.env.stderr, a.env.errTTY), "warning: "+w)
	}
	out, err := runner.Run(a.ctx)
	if out == nil {
		return err
	}
	if errors.Is(err, sweep.ErrReboot) {
		return a.afterRun(&o, pl, err)
	}
	return a.afterRun(&o, pl, a.reportSweep(t, o.out, out, err, display, sim))
}

// reportSweep prints the outcome (JSON with --json) and turns it into an
// exit code; sim (target and probe) marks a simulated sweep's output.
func (a *app) reportSweep(t *soc.Target, path string, out *sweep.Outcome, err error, display units.Display, sim results.Header) error {
	if a.g.json {
		if jerr := writeJSON(a.env.stdout, struct {
			Target  report.JSONTarget `json:"target"`
			Results string            `json:"results"`
			// RealProbe: a simulated sweep with a real probe (--force).
			RealProbe bool `json:"real_probe,omitempty"`
			*sweep.Outcome
			// The session's time on the sweep's clock (the simulated
			// board's modelled time when simulated_time).
			Elapsed float64 `json:"elapsed_s"`
			ReloadS float64 `json:"reload_s"`
		}{infoOf(t), path, sim.RealProbe(), out, out.Elapsed.Seconds(), out.ReloadTime.Seconds()}); jerr != nil {
			return jerr
		}
	} else {
		var b strings.Builder
		out.Ranking.FormatIn(&b, display)
		w := textwrap.EscapeWriter(humanOut(a.env.stdout, a.env.isTTY)) // names and values may come from a resumed results file
		if mark := sim.SimulatedMark(); mark != "" {
			fmt.Fprintln(w, mark)
		}
		fmt.Fprint(w, b.String())
		if out.Ranking.Winner() != nil {
			v := out.Ranking.Verdict
			fmt.Fprintln(w, v.Headline())
			for _, l := range v.DetailsIn(display) {
				fmt.Fprintln(w, "  "+l)
			}
		}
		fmt.Fprintf(w, "probe runs: %d", out.ProbeRuns)
		if out.TotalProbeRuns != out.ProbeRuns {
			fmt.Fprintf(w, " in this session, %d in all", out.TotalProbeRuns)
		}
		fmt.Fprint(w, " (warm-ups included)")
		if out.Budget > 0 {
			fmt.Fprintf(w, "; the race's budget: %d, of the grid's %d", out.Budget, out.GridRuns)
		}
		if out.ConfirmRuns > 0 {
			fmt.Fprintf(w, "; the verdict's second look: %d of them, outside any budget", out.ConfirmRuns)
		}
		fmt.Fprintln(w)
		if out.Model != nil {
			fmt.Fprintln(w, out.Model.String())
		}
		if out.OutOfBudget > 0 {
			fmt.Fprintf(w, "the race's budget ran out with %d point(s) still racing: they are ranked on the runs they had (a larger --budget races them further)\n", out.OutOfBudget)
		}
		fmt.Fprintln(w, sweepTime(out))
		fmt.Fprintf(w, "results: %s", path)
		switch {
		case out.Status != results.StatusComplete || out.Ranking.Winner() == nil:
		case out.Ranking.Verdict.Kind == rank.VerdictApply:
			fmt.Fprintf(w, "; make it permanent: citune dts --results %s", path)
		default:
			fmt.Fprintf(w, "; nothing to make permanent (citune dts --results %s writes the original values down)", path)
		}
		fmt.Fprintln(w)
	}
	switch {
	case err != nil && errors.Is(err, sweep.ErrInterrupted) && out.Restored:
		return fmt.Errorf("%w; the original settings were restored; continue with: citune sweep --resume %s", err, path)
	case err != nil:
		return err
	case out.Corrupt > 0:
		return fmt.Errorf("DATA CORRUPTION at %d point(s): see the ranking above and %s", out.Corrupt, path)
	case out.NotHeld > 0:
		return withCode(exitNotHeld, fmt.Errorf("%d point(s) did not hold their settings and were not ranked (see %s)", out.NotHeld, path))
	}
	return nil
}

// sweepTime is the line of the session's time and its module reloads'
// share, on the sweep's clock.
func sweepTime(out *sweep.Outcome) string {
	round := func(d time.Duration) time.Duration {
		if d < time.Minute {
			return d.Round(100 * time.Millisecond)
		}
		return d.Round(time.Second)
	}
	s := fmt.Sprintf("time: %s", round(out.Elapsed))
	if out.Reloads > 0 {
		s += fmt.Sprintf(", of which %d module reload(s) %s", out.Reloads, round(out.ReloadTime))
	}
	if out.SimulatedTime {
		s += " (the simulated board's modelled time)"
	}
	return s
}
