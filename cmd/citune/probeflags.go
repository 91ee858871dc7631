package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/units"
)

// The probes' words, for probe, sweep and tui: each kind's flags are
// bound to its probe's fields, which the probe checks; here only the words
// are (targets, two flags for one field...).

// probeDeps is what building a probe needs besides its words (the sim
// probe's controller and map); Env is only carried (runProbe's).
type probeDeps struct {
	probe.Env
	Sim probe.SimController
	Map *regs.Map
	// Flags, if not nil, registers the command's flags that may stand
	// among a probe's words, each with its current value as the default.
	Flags func(*flag.FlagSet)

	flagsOnly bool // parseProbeFlags: parse, build nothing
}

// simOf is t's simulated controller for the sim probe (nil on a board).
func simOf(t *soc.Target) probe.SimController {
	if t.Simulated() {
		return t
	}
	return nil
}

// parseProbes parses "KIND [flags] [TARGET] [--also KIND [flags] [TARGET]]..."
// into probes that probe.MeasureAll runs together.
func parseProbes(words []string, d probeDeps) ([]probe.Probe, error) {
	var ps []probe.Probe
	start := 0
	for i := 0; i <= len(words); i++ {
		if i < len(words) && words[i] != "--also" {
			continue
		}
		p, err := parseProbe(words[start:i], d)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
		start = i + 1
	}
	return ps, nil
}

// parseProbe parses and checks "KIND [flags] [TARGET]" (nothing is
// written). Usage errors (probe.ErrUsage too) exit 2; -h gives flag.ErrHelp.
func parseProbe(words []string, d probeDeps) (probe.Probe, error) {
	if len(words) == 0 {
		return nil, usageErr("no probe kind given (%s)", strings.Join(probeKinds(), ", "))
	}
	k, ok := kinds[words[0]]
	if !ok {
		return nil, usageErr("unknown probe kind %q (%s)", words[0], strings.Join(probeKinds(), ", "))
	}
	fs := flag.NewFlagSet(k.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	build := k.flags(fs)
	if d.Flags != nil {
		d.Flags(fs)
	}
	pos, rest, err := parseWords(fs, words[1:], k.command)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, usageErr("probe %s: %v", k.name, err)
	}
	if d.flagsOnly {
		return nil, nil
	}
	p, err := build(d, pos, rest)
	switch {
	case errors.Is(err, probe.ErrUsage):
		return nil, withCode(exitUsage, err)
	case err != nil:
		return nil, err
	}
	return p, nil
}

// parseProbeFlags checks the probes' kinds and flags and sets extra's
// (--sim may follow the kind) without building a probe.
func parseProbeFlags(words []string, extra func(*flag.FlagSet)) error {
	_, err := parseProbes(words, probeDeps{Flags: extra, flagsOnly: true})
	return err
}

// printProbeKinds is the help of the probe words (probe, and after sweep's
// and tui's --): every kind and its flags, as --flag like every other help.
func printProbeKinds(w io.Writer) {
	fmt.Fprintln(w, "probe kinds:")
	for _, n := range probeKinds() {
		var b strings.Builder
		fs := flag.NewFlagSet(n, flag.ContinueOnError)
		fs.SetOutput(&b)
		kinds[n].flags(fs)
		fs.PrintDefaults()
		fmt.Fprintf(w, "%s\n    %s\n%s\n", kinds[n].synopsis, kinds[n].summary, dashDash(b.String()))
	}
}

type kind struct {
	name, synopsis, summary string
	command                 bool // the first positional word starts a command line
	// flags binds the kind's flags to a new probe's fields and returns
	// what finishes and checks it once they are parsed.
	flags func(fs *flag.FlagSet) buildFunc
}

type buildFunc func(d probeDeps, pos, rest []string) (probe.Probe, error)

var kinds = map[string]*kind{
	"read":  {name: "read", synopsis: "read [--bs 1M] [--size N|all | --duration D] [--offset N] [--buffered] [--expect-hash H | --full-hash | --no-hash] [--small-pages] FILE|DEVICE", summary: "sequential O_DIRECT reads, like dd iflag=direct; hashes warm-up runs and samples timed ones to compare repeats", flags: readFlags},
	"write": {name: "write", synopsis: "write [--bs 1M] [--size 64M] [--offset N] [--destructive] [--buffered] [--small-pages] NEWFILE|DIR|DEVICE", summary: "O_DIRECT pattern writes, fsync, read back and compare, remove", flags: writeFlags},
	"cmd":   {name: "cmd", synopsis: "cmd [--timeout 10m] (--parse iperf3 [--sender] | --regex RE --unit U | --json-path a.b.c --unit U) [--] COMMAND [ARGS]", summary: "run a workload and take its rate from its output", command: true, flags: cmdFlags},
	"sim":   {name: "sim", synopsis: "sim [--workload read] [--size 64M] [--xfer 120K] [--seed 1]", summary: "model a disk, network or gadget workload on the simulated controller (needs --sim)", flags: simFlags},
}

// probeKinds are the probe kinds' names, sorted (also for completion).
func probeKinds() []string { return slices.Sorted(maps.Keys(kinds)) }

// parseWords parses flags that may be mixed with positional words. With
// command set, the first positional word and all after it are the rest;
// otherwise the words after "--" are.
func parseWords(fs *flag.FlagSet, words []string, command bool) (pos, rest []string, err error) {
	for {
		if err := fs.Parse(words); err != nil {
			return nil, nil, err
		}
		left := fs.Args()
		used := len(words) - len(left)
		if len(left) == 0 || command || (used > 0 && words[used-1] == "--") {
			return pos, left, nil
		}
		pos, words = append(pos, left[0]), left[1:]
	}
}

func oneTarget(path *string, kind string, pos, rest []string) error {
	all := append(pos, rest...)
	switch len(all) {
	case 0:
		return usageErr("probe %s: no target given (a file or block device)", kind)
	case 1:
		*path = all[0]
		return nil
	}
	return usageErr("probe %s: one target expected, got %q", kind, all)
}

// smallPagesVar is --small-pages of the read and write probes.
func smallPagesVar(fs *flag.FlagSet, v *bool) {
	fs.BoolVar(v, "small-pages", false, "transfer through ordinary pages even where the kernel has huge pages (by default a huge page halves the kernel's cost of pinning the buffer; boards have none)")
}

func readFlags(fs *flag.FlagSet) buildFunc {
	p := &probe.ReadProbe{BS: 1 << 20, Verify: probe.VerifyWarmup}
	fs.Var(sizeValue{&p.BS}, "bs", "block size of each read (K, M, G are powers of 1024)")
	fs.Var(sizeValue{&p.Size}, "size", "bytes to read, or \"all\" (default: 256M, or the whole target when smaller)")
	fs.DurationVar(&p.Dur, "duration", 0, "read for this long instead of a size, starting over at the end")
	fs.Var(sizeValue{&p.Offset}, "offset", "start at this byte offset")
	fs.BoolVar(&p.Buffered, "buffered", false, "read through the page cache, dropping it first (needs root); for file systems without O_DIRECT")
	fs.StringVar(&p.ExpectHash, "expect-hash", "", "the data must hash to this (crc32:XXXXXXXX, as printed by an earlier run)")
	noHash := fs.Bool("no-hash", false, "check no data at all (by default warm-up runs hash every byte and timed runs check a 1/4000 sample)")
	fullHash := fs.Bool("full-hash", false, "hash every byte of every run, timed ones too (catches a single flipped byte; costs CPU in the timed runs)")
	smallPagesVar(fs, &p.SmallPages)
	return func(d probeDeps, pos, rest []string) (probe.Probe, error) {
		if err := oneTarget(&p.Path, "read", pos, rest); err != nil {
			return nil, err
		}
		switch {
		case *fullHash && *noHash:
			return nil, usageErr("probe read: give --full-hash or --no-hash, not both")
		case *noHash:
			p.Verify = probe.VerifyNone
		case *fullHash:
			p.Verify = probe.VerifyFull
		}
		return p, p.Check()
	}
}

func writeFlags(fs *flag.FlagSet) buildFunc {
	p := &probe.WriteProbe{BS: 1 << 20, Size: probe.DefaultWriteSize}
	fs.Var(sizeValue{&p.BS}, "bs", "block size of each write")
	fs.Var(sizeValue{&p.Size}, "size", "bytes to write")
	fs.Var(sizeValue{&p.Offset}, "offset", "start at this byte offset (block devices)")
	fs.BoolVar(&p.Destructive, "destructive", false, "allow writing a raw block device, destroying its contents (refused while it or a partition is mounted)")
	fs.BoolVar(&p.Buffered, "buffered", false, "write through the page cache and drop it before reading back (needs root)")
	smallPagesVar(fs, &p.SmallPages)
	return func(d probeDeps, pos, rest []string) (probe.Probe, error) {
		if err := oneTarget(&p.Path, "write", pos, rest); err != nil {
			return nil, err
		}
		return p, p.Check()
	}
}

func cmdFlags(fs *flag.FlagSet) buildFunc {
	o := &probe.CmdOptions{}
	fs.DurationVar(&o.Timeout, "timeout", probe.DefaultTimeout, "kill the command after this long")
	fs.StringVar(&o.Parse, "parse", "", "native output parser: iperf3 (run iperf3 with -J or --json-stream)")
	fs.BoolVar(&o.Sender, "sender", false, "iperf3: take the sender's rate instead of the receiver's")
	fs.StringVar(&o.Regex, "regex", "", "regular expression whose last match (first group) is the rate, e.g. '= *([0-9.]+) MB/sec'")
	fs.StringVar(&o.JSONPath, "json-path", "", "dotted path to the rate in the command's JSON output, e.g. jobs.0.read.bw_bytes")
	fs.StringVar(&o.Unit, "unit", "", "unit of --regex/--json-path numbers: B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, Mbit/s, ... or any other (fps)")
	return func(d probeDeps, pos, rest []string) (probe.Probe, error) {
		o.Argv = append(pos, rest...)
		return o.Probe()
	}
}

func simFlags(fs *flag.FlagSet) buildFunc {
	p := &probe.SimProbe{Size: probe.DefaultSimSize, Seed: 1, Qmult: simmodel.DefaultQmult, Buffers: simmodel.DefaultBuffers}
	fs.Var(sizeValue{&p.Size}, "size", "bytes to transfer")
	fs.Var(sizeValue{&p.Xfer}, "xfer", "bytes per SCSI command (read, write, gadget-storage: default 120KiB), gadget request\n(gadget-in/out: 4KiB) or usbnet URB (net-tx/rx: 1514 bytes, one frame)")
	fs.Uint64Var(&p.Seed, "seed", p.Seed, "noise seed: the same seed gives the same runs")
	fs.BoolVar(&p.Write, "write", false, "the same as --workload write")
	workload := fs.String("workload", "read", "read or write (the board as host of a USB disk), net-tx or net-rx (as host of a USB Ethernet\nadapter, sending or receiving), gadget-in or gadget-out (the board as a g_ncm-like USB device, the PC\npulling or pushing), gadget-storage (as a mass-storage gadget the PC reads)")
	fs.Float64Var(&p.BusLoad, "bus-load", 0, "share of AHB cycles other bus masters hold, 0 to 0.95")
	fs.Float64Var(&p.Noise, "noise", 0, "relative run-to-run spread, up to 0.2 (0: the model's 0.5 %; negative: none)")
	nonBurst := fs.String("non-burst", "soc", "the usbmisc non-burst setting: soc (what Linux leaves: set on i.MX6, not on Vybrid), on or off")
	fs.IntVar(&p.Qmult, "qmult", p.Qmult, "gadget-in/out: g_ether/g_ncm's qmult module parameter; 2 x N requests in flight (u_ether's qlen at high speed)")
	fs.IntVar(&p.Buffers, "num-buffers", p.Buffers, "gadget-storage: f_mass_storage's buffer count, 2 to 32 buffers of 16KiB\n(CONFIG_USB_GADGET_STORAGE_NUM_BUFFERS; the num_buffers module parameter with\nCONFIG_USB_GADGET_DEBUG_FILES)")
	return func(d probeDeps, pos, rest []string) (probe.Probe, error) {
		if len(pos)+len(rest) > 0 {
			return nil, usageErr("probe sim takes no target (got %q): it models the simulated controller", append(pos, rest...))
		}
		p.Ctl, p.Map = d.Sim, d.Map
		if err := p.Check(); err != nil {
			return nil, err
		}
		w, err := simmodel.ParseWorkload(*workload)
		if err != nil {
			return nil, usageErr("probe sim: --workload: %v", err)
		}
		nb, ok := map[string]simmodel.NonBurst{"soc": simmodel.NonBurstSoCDefault, "on": simmodel.NonBurstOn, "off": simmodel.NonBurstOff}[*nonBurst]
		if !ok {
			return nil, usageErr("probe sim: --non-burst %q: want soc, on or off", *nonBurst)
		}
		p.Workload, p.NonBurst = w, nb
		// A flag the workload does not read is a mistake, not a no-op.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if set["qmult"] && w != simmodel.GadgetIn && w != simmodel.GadgetOut {
			return nil, usageErr("probe sim: --qmult is g_ncm's queue: it applies to gadget-in and gadget-out, not %s", w)
		}
		if p.Write && set["workload"] && w != simmodel.StorageWrite {
			return nil, usageErr("probe sim: --write is --workload write: it cannot go with --workload %s", w)
		}
		if set["num-buffers"] && w != simmodel.GadgetStorage {
			return nil, usageErr("probe sim: --num-buffers is f_mass_storage's: it applies to gadget-storage, not %s", w)
		}
		return p, nil
	}
}

// sizeValue is a flag.Value for byte counts ("64M", "all" is -1).
type sizeValue struct{ v *int64 }

func (s sizeValue) String() string {
	switch {
	case s.v == nil || *s.v == 0:
		return "0"
	case *s.v < 0:
		return "all"
	}
	for i, u := range "GMK" {
		if n := int64(1) << (30 - 10*i); *s.v%n == 0 {
			return strconv.FormatInt(*s.v/n, 10) + string(u)
		}
	}
	return strconv.FormatInt(*s.v, 10)
}

func (s sizeValue) Set(v string) (err error) { *s.v, err = units.ParseSize(v); return err }
