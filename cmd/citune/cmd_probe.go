package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/units"
)

func init() {
	register(&command{name: "probe", summary: "measure throughput with interrupt, CPU and integrity checks",
		usage: "probe [--repeat N] [--warmup N] [--irq LINE] KIND [flags] [TARGET] [--also KIND [flags] [TARGET]]...", run: runProbe})
}

// probeOpts are the probe command's own flags (anywhere among the words).
type probeOpts struct {
	repeat, warmup int
	irq, units     string
	noTrace, quiet bool
}

func (a *app) probeFlags(o *probeOpts) func(fs *flag.FlagSet) {
	return func(fs *flag.FlagSet) {
		a.g.register(fs)
		fs.IntVar(&o.repeat, "repeat", o.repeat, "measured runs per probe")
		fs.IntVar(&o.warmup, "warmup", o.warmup, "warm-up runs before them (reported, not counted; default 1, as a sweep's)")
		fs.StringVar(&o.irq, "irq", o.irq, "interrupt line to count, as /proc/interrupts names it (default: the profile's controller)")
		fs.BoolVar(&o.noTrace, "no-trace", o.noTrace, "do not time the interrupt handler through tracefs")
		fs.StringVar(&o.units, "units", o.units, unitsUsage("--json gives all three"))
		fs.BoolVar(&o.quiet, "quiet", o.quiet, "one line per probe for scripts: the median rate, its unit and the interrupts per MiB\n(\"25.11 MiB/s 25.9 irq/MiB\")")
	}
}

func runProbe(a *app, args []string) error {
	// The first run warms caches and the link: one warm-up, as a sweep
	// takes by default.
	o := probeOpts{repeat: 3, warmup: plan.DefaultPlan().Warmup}
	extra := a.probeFlags(&o)
	lead := flag.NewFlagSet("citune probe", flag.ContinueOnError)
	lead.SetOutput(a.helpOut())
	extra(lead)
	lead.Usage = func() { a.probeUsage(a.helpOut(), lead) }
	if err := a.parseWith(lead, func() error { return lead.Parse(args) }); err != nil {
		return err
	}
	words := lead.Args()
	if len(words) == 0 {
		a.probeUsage(a.helpOut(), lead)
		return usageErr("probe: no probe kind given")
	}

	// A first pass collects flags given among the probe words (--sim may
	// come after the kind); the second builds the probes for the target.
	if err := parseProbeFlags(words, extra); err != nil {
		return a.probeParseErr(err, lead)
	}
	if o.repeat < 1 || o.warmup < 0 {
		return usageErr("probe: --repeat must be at least 1 and --warmup at least 0")
	}
	if o.quiet && a.g.json {
		return usageErr("probe: --quiet or --json, not both")
	}
	display, err := byteUnit(o.units, a.env.getenv)
	if err != nil {
		return err
	}
	deps := probeDeps{Flags: extra}
	notes, tinfo, done, err := a.probeTarget(&o, &deps)
	if err != nil {
		return err
	}
	defer done()
	ps, err := parseProbes(words, deps)
	if err != nil {
		return a.probeParseErr(err, lead)
	}

	opts := probe.Options{Repeat: o.repeat, Warmup: o.warmup, Env: deps.Env}
	var bar *progressBar
	if a.env.errTTY {
		bar = &progressBar{w: a.env.stderr, n: len(ps)}
		opts.Progress = bar.update
	}
	results, merr := probe.MeasureAll(a.ctx, ps, opts)
	if bar != nil {
		bar.clear()
	}
	if o.quiet {
		for _, r := range results {
			if r.Stats.N > 0 {
				fmt.Fprintf(a.env.stdout, "%s %.1f irq/%s\n", display.Rate(r.Stats.Median, r.Stats.Unit), display.Per(r.Stats.IRQsPerMiB), display.Amount())
			}
		}
		return merr
	}
	withNotes(results, notes)
	return cmp.Or(a.printProbe(results, tinfo, deps.IRQ, display), merr)
}

// probeTarget fills deps from the target the flags name: simulated or an
// image, its map and controller; on a board only its interrupt line (no
// mapping). notes say why no line is known; done closes what was opened.
func (a *app) probeTarget(o *probeOpts, deps *probeDeps) (notes []string, tinfo *report.JSONTarget, done func(), err error) {
	done = func() {}
	switch {
	case a.g.sim || a.g.memFile != "":
		t, err := a.open(false)
		if err != nil {
			return nil, nil, done, err
		}
		tinfo = new(infoOf(t))
		deps.Map, deps.Sim, deps.IRQ = t.Profile.Map, simOf(t), t.Controller.IRQ
		done = func() { t.Close() }
	case o.irq == "" && a.g.profile == "" && !a.mayDetect():
		notes = append(notes, "no profile or board: neither /"+soc.CompatiblePath+" nor /"+soc.SocIDPath+" is readable (give --profile, or --irq LINE)")
	case o.irq == "":
		// Only the interrupt line is needed: no mapping unless
		// detection itself checks identities.
		p, err := a.resolveProfile()
		if err == nil {
			c, cerr := pickController(p, a.g.controller)
			if err = cerr; err == nil {
				deps.IRQ = c.IRQ
			}
		}
		if err != nil {
			first, _, _ := strings.Cut(err.Error(), "\n")
			notes = append(notes, "no profile or board: "+first)
		}
	}
	deps.IRQ, deps.NoTrace = cmp.Or(o.irq, deps.IRQ), o.noTrace
	return notes, tinfo, done, nil
}

// withNotes puts the command's notes first in each result: ours say why
// no interrupt line is known, so the probe's generic note goes.
func withNotes(results []probe.Result, notes []string) {
	if len(notes) == 0 {
		return
	}
	generic := func(n string) bool { return strings.HasPrefix(n, "no controller interrupt line known") }
	for i := range results {
		results[i].Notes = append(slices.Clone(notes), slices.DeleteFunc(results[i].Notes, generic)...)
	}
}

func (a *app) printProbe(results []probe.Result, tinfo *report.JSONTarget, irq string, display units.Display) error {
	if !a.g.json {
		printResults(a.env.stdout, results, display)
		return nil
	}
	out := struct {
		Target *report.JSONTarget `json:"target,omitempty"`
		IRQ    string             `json:"irq,omitempty"`
		Probes []probe.Result     `json:"probes"`
		// Medians in the units dd (MB/s), hdparm (MiB/s, printed
		// "MB/sec") and iperf3 (Mbit/s) print.
		Medians []medianRates `json:"medians"`
	}{Target: tinfo, IRQ: irq, Probes: results}
	for _, r := range results {
		out.Medians = append(out.Medians, medianOf(r))
	}
	return writeJSON(a.env.stdout, out)
}

func (a *app) probeParseErr(err error, lead *flag.FlagSet) error {
	if errors.Is(err, flag.ErrHelp) {
		a.probeUsage(a.env.stdout, lead)
		return nil
	}
	return err
}

func (a *app) probeUsage(w io.Writer, lead *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\n%s\n\n", usageLine(commands["probe"].usage), commands["probe"].summary)
	printProbeKinds(w)
	fmt.Fprintln(w, "flags of every kind (before or after the kind):")
	g := globalNames()
	printFlags(w, lead, func(n string) bool { return !g[n] })
	fmt.Fprintln(w, "\nglobal flags:")
	printFlags(w, lead, func(n string) bool { return g[n] })
	fmt.Fprintln(w, "\nexamples:\n  citune probe read --bs 1M --size 256M --repeat 5 /dev/sda\n  citune probe read /dev/sda --also read /dev/sdb\n  citune probe write --size 64M /mnt/usb\n  citune probe cmd --parse iperf3 -- iperf3 -c 10.0.0.1 -J\n  citune probe cmd --regex '= *([0-9.]+) MB/sec' --unit MiB/s -- hdparm -t --direct /dev/sda\n  citune --sim probe sim")
}

// mayDetect reports whether detection has anything to go on (else probing
// a file off a board would load every profile for nothing).
func (a *app) mayDetect() bool {
	return slices.ContainsFunc([]string{soc.CompatiblePath, soc.SocIDPath}, func(p string) bool {
		_, err := fs.Stat(a.env.root, p)
		return err == nil
	})
}

var _ probe.SimController = (*soc.Target)(nil)
var _ probe.NonBurstReader = (*soc.Target)(nil)

// medianRates is a probe's median in every unit (byte rates only).
type medianRates struct {
	Probe string `json:"probe"`
	units.Rate
}

func medianOf(r probe.Result) medianRates {
	return medianRates{Probe: r.Probe, Rate: units.RateOf(r.Stats.Median, r.Stats.Unit)}
}

func printResults(w io.Writer, results []probe.Result, display units.Display) {
	fmtRate, per := display.Rate, "irqs/"+display.Amount()
	for i, res := range results {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, res.Probe)
		// Two lines per run at most, each within 80 columns (serial
		// consoles): the rate and interrupts, then CPU and handler time.
		fmt.Fprintf(w, "  %-4s %14s %9s %7s %7s %7s %8s\n", "run", "rate", "bytes", "time", "irqs", "irqs/s", per)
		for j, r := range res.Runs {
			name := fmt.Sprint(j + 1)
			if r.Warmup {
				name += "w"
			}
			handler := "-"
			if r.HandlerEvents > 0 {
				handler = fmt.Sprintf("%.1f/%.1f", r.HandlerAvgUS, r.HandlerMaxUS)
			}
			cpu := "(simulated)"
			if !r.Simulated {
				cpu = fmt.Sprintf("%.2f/%.2f/%.2f/%.2f", r.CPU.User, r.CPU.System, r.CPU.IRQ, r.CPU.SoftIRQ)
			}
			if r.Err != "" && r.Bytes == 0 {
				fmt.Fprintf(w, "  %-4s FAILED: %s\n", name, strings.ReplaceAll(r.Err, "\n", "\n       "))
				continue
			}
			fmt.Fprintf(w, "  %-4s %14s %9s %6.2fs %7d %7.0f %8.1f\n", name, fmtRate(r.Rate, r.Unit), units.Size(r.Bytes), r.Elapsed.Seconds(), r.IRQs, r.IRQsPerSec, display.Per(r.IRQsPerMiB))
			if !r.Simulated {
				fmt.Fprintf(w, "       cpu s usr/sys/irq/soft %s  handler us avg/max %s\n", cpu, handler)
			}
			if r.SenderRate > 0 || r.ReceiverRate > 0 {
				fmt.Fprintf(w, "       sender %s, receiver %s\n", fmtRate(r.SenderRate, ""), fmtRate(r.ReceiverRate, ""))
			}
			if r.ReadBackRate > 0 {
				fmt.Fprintf(w, "       read back at %s\n", fmtRate(r.ReadBackRate, ""))
			}
			if r.Corrupt {
				fmt.Fprintf(w, "       CORRUPT: %s\n", r.Detail)
			} else if r.Detail != "" {
				fmt.Fprintf(w, "       %s\n", r.Detail)
			}
			if r.Err != "" {
				fmt.Fprintf(w, "       FAILED: %s\n", strings.ReplaceAll(r.Err, "\n", "\n       "))
			}
		}
		s := res.Stats
		if s.N > 0 {
			runs := "runs"
			if s.N == 1 {
				runs = "run"
			}
			fmt.Fprintf(w, "  %d %s: median %s  min %s  max %s\n", s.N, runs, fmtRate(s.Median, s.Unit), fmtRate(s.Min, s.Unit), fmtRate(s.Max, s.Unit))
			fmt.Fprintf(w, "  mean %s  stddev %s (CV %.1f%%)\n", fmtRate(s.Mean, s.Unit), fmtRate(s.StdDev, s.Unit), 100*s.CV)
			if s.CPUPerGiB > 0 {
				// Per GiB in the file; shown as ms per amount like report.
				fmt.Fprintf(w, "  busy CPU %.2f ms per %s (all CPUs)\n", display.Per(s.CPUPerGiB*1000/1024), display.Amount())
			}
		}
		if res.Hash != "" {
			fmt.Fprintf(w, "  data %s (every run read the same)\n", res.Hash)
		}
		if res.Sample != "" && res.Sample != res.Hash {
			fmt.Fprintf(w, "  data sample %s (64 bytes in every 256 KiB; every run read the same; --full-hash hashes all)\n", res.Sample)
		}
		if s.IntegrityCPU > 0.0005 {
			fmt.Fprintf(w, "  integrity check %.3f s CPU per run (not in the CPU figures)\n", s.IntegrityCPU)
		}
		if res.Simulated {
			fmt.Fprintln(w, "  simulated: these figures come from the sim probe's model, not from hardware")
		}
		for _, n := range res.Notes {
			fmt.Fprint(w, textwrap.Block("note: "+n, "  ", 78))
		}
	}
}

// progressBar draws one line on stderr, at most ten times a second.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	n     int
	last  time.Time
	drawn bool
}

func (b *progressBar) update(p probe.Progress) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if now.Sub(b.last) < 100*time.Millisecond && p.Done != p.Total {
		return
	}
	b.last = now
	const width = 30
	bar := strings.Repeat("-", width)
	pct := ""
	if p.Total > 0 {
		k := int(float64(width) * float64(p.Done) / float64(p.Total))
		k = min(max(k, 0), width)
		bar = strings.Repeat("#", k) + strings.Repeat("-", width-k)
		pct = fmt.Sprintf("%3.0f%% ", 100*float64(p.Done)/float64(p.Total))
	}
	kind := "run"
	if p.Warmup {
		kind = "warm-up"
	}
	fmt.Fprintf(b.w, "\r\x1b[K[%s] %s%s %d/%d %s %s", bar, pct, kind, p.Run, p.Runs, units.Size(p.Done), truncate(p.Name, 40))
	b.drawn = true
}

func (b *progressBar) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
