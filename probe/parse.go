package probe

import (
	"errors"
	"flag"
	"fmt"

	"github.com/citune/citune/units"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/rx"
	"github.com/citune/citune/simmodel"
)

// Deps is what Parse needs besides the words: the machine (Env, whose
// ProcRoot the read and write probes use for drop_caches and the mount
// table; pass the same Env in Options), and, for the sim probe, the
// simulated controller and its register map.
type Deps struct {
	Env
	Sim SimController
	Map *regs.Map
	// Flags, if not nil, registers the caller's own flags (for example
	// --repeat) so that they may appear among a probe's words. It is
	// called once per probe, so it must register each variable with its
	// current value as the default.
	Flags func(*flag.FlagSet)

	flagsOnly bool // ParseFlags: parse, build nothing
}

// ErrUsage is matched (errors.Is) by errors in how a probe was asked
// for: unknown kinds or flags, missing targets, bad sizes.
var ErrUsage = errors.New("probe usage error")

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// Also separates probes that run at the same time in ParseAll's words.
const Also = "--also"

// ParseAll parses "KIND [flags] [TARGET] [--also KIND [flags] [TARGET]]..."
// into probes that MeasureAll runs together.
func ParseAll(words []string, d Deps) ([]Probe, error) {
	var ps []Probe
	start := 0
	for i := 0; i <= len(words); i++ {
		if i < len(words) && words[i] != Also {
			continue
		}
		p, err := Parse(words[start:i], d)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
		start = i + 1
	}
	return ps, nil
}

// Parse parses the words "KIND [flags] [TARGET]" of one probe, checks
// them (the target must exist; nothing is written), and returns the
// probe. Errors in the words match ErrUsage; -h gives flag.ErrHelp.
func Parse(words []string, d Deps) (Probe, error) {
	if len(words) == 0 {
		return nil, usagef("no probe kind given (%s)", strings.Join(kindNames(), ", "))
	}
	k, ok := kinds[words[0]]
	if !ok {
		return nil, usagef("unknown probe kind %q (%s)", words[0], strings.Join(kindNames(), ", "))
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
		return nil, usagef("probe %s: %v", k.name, err)
	}
	if d.flagsOnly {
		return nil, nil
	}
	return build(d, pos, rest)
}

// ParseFlags parses the probes' words for their flags only: the kinds
// and flags are checked and extra's flags (the caller's own, which may
// stand among a probe's words) are set, but no probe is built, so no
// target, controller or map is needed yet. A command uses it to learn
// its global flags (--sim after the kind) before it opens the target.
func ParseFlags(words []string, extra func(*flag.FlagSet)) error {
	_, err := ParseAll(words, Deps{Flags: extra, flagsOnly: true})
	return err
}

// PrintUsage describes every probe kind and its flags.
func PrintUsage(w io.Writer) {
	for _, n := range kindNames() {
		k := kinds[n]
		fmt.Fprintf(w, "%s\n    %s\n", k.synopsis, k.summary)
		fs := flag.NewFlagSet(n, flag.ContinueOnError)
		fs.SetOutput(w)
		k.flags(fs)
		fs.PrintDefaults()
		fmt.Fprintln(w)
	}
}

type kind struct {
	name, synopsis, summary string
	// command: the first word that is not a flag starts the command,
	// which takes all words after it.
	command bool
	// flags registers the kind's flags and returns the function that
	// builds the probe once they are parsed.
	flags func(fs *flag.FlagSet) func(d Deps, pos, rest []string) (Probe, error)
}

var kinds = map[string]*kind{
	"read":  {name: "read", synopsis: "read [--bs 1M] [--size N|all | --duration D] [--offset N] [--buffered] [--expect-hash H | --full-hash | --no-hash] [--small-pages] FILE|DEVICE", summary: "sequential O_DIRECT reads, like dd iflag=direct; hashes warm-up runs and samples timed ones to compare repeats", flags: readFlags},
	"write": {name: "write", synopsis: "write [--bs 1M] [--size 64M] [--offset N] [--destructive] [--buffered] [--small-pages] NEWFILE|DIR|DEVICE", summary: "O_DIRECT pattern writes, fsync, read back and compare, remove", flags: writeFlags},
	"cmd":   {name: "cmd", synopsis: "cmd [--timeout 10m] (--parse iperf3 [--sender] | --regex RE --unit U | --json-path a.b.c --unit U) [--] COMMAND [ARGS]", summary: "run a workload and take its rate from its output", command: true, flags: cmdFlags},
	"sim":   {name: "sim", synopsis: "sim [--workload read] [--size 64M] [--xfer 120K] [--seed 1]", summary: "model a disk, network or gadget workload on the simulated controller (needs --sim)", flags: simFlags},
}

// Kinds are the probe kinds' names, sorted (for completion).
func Kinds() []string { return kindNames() }

func kindNames() []string {
	var ns []string
	for n := range kinds {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

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
		if used > 0 && words[used-1] == "--" {
			return pos, left, nil
		}
		if len(left) == 0 {
			return pos, nil, nil
		}
		if command {
			return pos, left, nil
		}
		pos, words = append(pos, left[0]), left[1:]
	}
}

func oneTarget(kind string, pos, rest []string) (string, error) {
	all := append(pos, rest...)
	switch len(all) {
	case 0:
		return "", usagef("probe %s: no target given (a file or block device)", kind)
	case 1:
		return all[0], nil
	}
	return "", usagef("probe %s: one target expected, got %q", kind, all)
}

func checkBS(bs int64) error {
	if bs <= 0 || bs > 1<<30 {
		return usagef("--bs %s: give a block size from 512 bytes to 1GiB", units.Size(bs))
	}
	if bs%sectorSize != 0 {
		return usagef("--bs %d is not a multiple of 512 bytes: O_DIRECT needs block-aligned transfers", bs)
	}
	return nil
}

// smallPagesFlag is --small-pages of the read and write probes.
func smallPagesFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("small-pages", false, "transfer through ordinary pages even where the kernel has huge pages (by default a huge page halves the kernel's cost of pinning the buffer; boards have none)")
}

func readFlags(fs *flag.FlagSet) func(Deps, []string, []string) (Probe, error) {
	bs := sizeFlag(fs, "bs", 1<<20, "block size of each read (K, M, G are powers of 1024)")
	size := sizeFlag(fs, "size", 0, "bytes to read, or \"all\" (default: 256M, or the whole target when smaller)")
	dur := fs.Duration("duration", 0, "read for this long instead of a size, starting over at the end")
	off := sizeFlag(fs, "offset", 0, "start at this byte offset")
	buffered := fs.Bool("buffered", false, "read through the page cache, dropping it first (needs root); for file systems without O_DIRECT")
	expect := fs.String("expect-hash", "", "the data must hash to this (crc32:XXXXXXXX, as printed by an earlier run)")
	noHash := fs.Bool("no-hash", false, "check no data at all (by default warm-up runs hash every byte and timed runs check a 1/4000 sample)")
	fullHash := fs.Bool("full-hash", false, "hash every byte of every run, timed ones too (catches a single flipped byte; costs CPU in the timed runs)")
	small := smallPagesFlag(fs)
	return func(d Deps, pos, rest []string) (Probe, error) {
		path, err := oneTarget("read", pos, rest)
		if err != nil {
			return nil, err
		}
		if err := checkBS(*bs); err != nil {
			return nil, err
		}
		if *dur > 0 && *size != 0 {
			return nil, usagef("probe read: give --size or --duration, not both")
		}
		if *expect != "" && *noHash {
			return nil, usagef("probe read: --expect-hash needs hashing: drop --no-hash")
		}
		if *fullHash && *noHash {
			return nil, usagef("probe read: give --full-hash or --no-hash, not both")
		}
		verify := VerifyWarmup
		switch {
		case *noHash:
			verify = VerifyNone
		case *fullHash:
			verify = VerifyFull
		}
		if *expect != "" && *dur > 0 {
			return nil, usagef("probe read: --expect-hash needs a fixed --size, not --duration")
		}
		if *off < 0 || *off%sectorSize != 0 {
			return nil, usagef("--offset %d is not a multiple of 512 bytes: O_DIRECT needs aligned offsets", *off)
		}
		if _, err := statTarget(path); err != nil {
			return nil, err
		}
		return &ReadProbe{Path: path, BS: *bs, Size: *size, Dur: *dur, Offset: *off, Buffered: *buffered, ExpectHash: *expect, Verify: verify, SmallPages: *small, procRoot: d.ProcRoot}, nil
	}
}

func writeFlags(fs *flag.FlagSet) func(Deps, []string, []string) (Probe, error) {
	bs := sizeFlag(fs, "bs", 1<<20, "block size of each write")
	size := sizeFlag(fs, "size", DefaultWriteSize, "bytes to write")
	off := sizeFlag(fs, "offset", 0, "start at this byte offset (block devices)")
	destructive := fs.Bool("destructive", false, "allow writing a raw block device, destroying its contents (refused while it or a partition is mounted)")
	buffered := fs.Bool("buffered", false, "write through the page cache and drop it before reading back (needs root)")
	small := smallPagesFlag(fs)
	return func(d Deps, pos, rest []string) (Probe, error) {
		path, err := oneTarget("write", pos, rest)
		if err != nil {
			return nil, err
		}
		if err := checkBS(*bs); err != nil {
			return nil, err
		}
		if *size <= 0 || *size%sectorSize != 0 {
			return nil, usagef("--size %d: give a positive multiple of 512 bytes", *size)
		}
		if *off < 0 || *off%sectorSize != 0 {
			return nil, usagef("--offset %d is not a multiple of 512 bytes", *off)
		}
		p := &WriteProbe{Path: path, BS: *bs, Size: *size, Offset: *off, Destructive: *destructive, Buffered: *buffered, SmallPages: *small, procRoot: d.ProcRoot}
		if _, _, err := p.destination(); err != nil {
			return nil, err
		}
		return p, nil
	}
}

func cmdFlags(fs *flag.FlagSet) func(Deps, []string, []string) (Probe, error) {
	timeout := fs.Duration("timeout", DefaultTimeout, "kill the command after this long")
	parse := fs.String("parse", "", "native output parser: iperf3 (run iperf3 with -J or --json-stream)")
	sender := fs.Bool("sender", false, "iperf3: take the sender's rate instead of the receiver's")
	re := fs.String("regex", "", "regular expression whose last match (first group) is the rate, e.g. '= *([0-9.]+) MB/sec'")
	jp := fs.String("json-path", "", "dotted path to the rate in the command's JSON output, e.g. jobs.0.read.bw_bytes")
	unit := fs.String("unit", "", "unit of --regex/--json-path numbers: B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, bit/s, Mbit/s, ... or any other (fps)")
	return func(d Deps, pos, rest []string) (Probe, error) {
		argv := append(pos, rest...)
		if len(argv) == 0 {
			return nil, usagef("probe cmd: no command given (put it after --)")
		}
		p := &CmdProbe{Argv: argv, Timeout: *timeout}
		n := 0
		for _, s := range []string{*parse, *re, *jp} {
			if s != "" {
				n++
			}
		}
		if n != 1 {
			return nil, usagef("probe cmd: say how to find the rate: one of --parse iperf3, --regex RE --unit U, --json-path PATH --unit U")
		}
		switch {
		case *parse != "":
			if *parse != "iperf3" {
				return nil, usagef("probe cmd: --parse knows iperf3 only; for other tools use --regex or --json-path with --unit")
			}
			p.Parse = &Iperf3Parser{Sender: *sender}
		case *re != "":
			x, err := rx.Compile(*re)
			if err != nil {
				return nil, usagef("probe cmd: --regex: %v", err)
			}
			if x.NumSubexp() > 1 {
				return nil, usagef("probe cmd: --regex %q has %d groups; use one group around the number (or (?:...) for the others)", *re, x.NumSubexp())
			}
			u, err := ParseUnit(*unit)
			if err != nil {
				return nil, err
			}
			p.Parse = &RegexParser{Re: x, Unit: u}
		default:
			u, err := ParseUnit(*unit)
			if err != nil {
				return nil, err
			}
			p.Parse = &JSONPathParser{Path: *jp, Unit: u}
		}
		if *sender && *parse == "" {
			return nil, usagef("probe cmd: --sender goes with --parse iperf3")
		}
		return p, nil
	}
}

func simFlags(fs *flag.FlagSet) func(Deps, []string, []string) (Probe, error) {
	size := sizeFlag(fs, "size", DefaultSimSize, "bytes to transfer")
	xfer := sizeFlag(fs, "xfer", 0, "bytes per SCSI command (read, write, gadget-storage: default 120KiB), gadget request\n(gadget-in/out: 4KiB) or usbnet URB (net-tx/rx: 1514 bytes, one frame)")
	seed := fs.Uint64("seed", 1, "noise seed: the same seed gives the same runs")
	write := fs.Bool("write", false, "the same as --workload write")
	workload := fs.String("workload", "read", "read or write (the board as host of a USB disk), net-tx or net-rx (as host of a USB Ethernet\nadapter, sending or receiving), gadget-in or gadget-out (the board as a g_ncm-like USB device, the PC\npulling or pushing), gadget-storage (as a mass-storage gadget the PC reads)")
	load := fs.Float64("bus-load", 0, "share of AHB cycles other bus masters hold, 0 to 0.95")
	noise := fs.Float64("noise", 0, "relative run-to-run spread, up to 0.2 (0: the model's 0.5 %; negative: none)")
	nonBurst := fs.String("non-burst", "soc", "the usbmisc non-burst setting: soc (what Linux leaves: set on i.MX6, not on Vybrid), on or off")
	qmult := fs.Int("qmult", simmodel.DefaultQmult, "gadget-in/out: g_ether/g_ncm's qmult module parameter; 2 x N requests in flight (u_ether's qlen at high speed)")
	buffers := fs.Int("num-buffers", simmodel.DefaultBuffers, "gadget-storage: f_mass_storage's buffer count, 2 to 32 buffers of 16KiB\n(CONFIG_USB_GADGET_STORAGE_NUM_BUFFERS; the num_buffers module parameter with\nCONFIG_USB_GADGET_DEBUG_FILES)")
	return func(d Deps, pos, rest []string) (Probe, error) {
		if len(pos)+len(rest) > 0 {
			return nil, usagef("probe sim takes no target (got %q): it models the simulated controller", append(pos, rest...))
		}
		if d.Sim == nil || d.Map == nil {
			return nil, usagef("probe sim measures the simulated controller: run `citune --sim probe sim`")
		}
		if *size <= 0 || (*xfer != 0 && *xfer < simPacket) {
			return nil, usagef("probe sim: --size must be positive and --xfer at least 512 bytes")
		}
		w, err := simmodel.ParseWorkload(*workload)
		if err != nil {
			return nil, usagef("probe sim: --workload: %v", err)
		}
		if *load < 0 || *load > 0.95 {
			return nil, usagef("probe sim: --bus-load %g: give a share from 0 to 0.95", *load)
		}
		nb, ok := map[string]simmodel.NonBurst{"soc": simmodel.NonBurstSoCDefault, "on": simmodel.NonBurstOn, "off": simmodel.NonBurstOff}[*nonBurst]
		if !ok {
			return nil, usagef("probe sim: --non-burst %q: want soc, on or off", *nonBurst)
		}
		if *qmult < 1 || *qmult > 100 {
			return nil, usagef("probe sim: --qmult %d: give 1 to 100", *qmult)
		}
		if *buffers < 2 || *buffers > 32 {
			return nil, usagef("probe sim: --num-buffers %d: f_mass_storage takes 2 to 32", *buffers)
		}
		if *noise > 0.2 {
			return nil, usagef("probe sim: --noise %g: give at most 0.2 (20 %% spread; wider noise would hide the model)", *noise)
		}
		// A flag the workload does not read is a mistake, not a no-op.
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if set["qmult"] && w != simmodel.GadgetIn && w != simmodel.GadgetOut {
			return nil, usagef("probe sim: --qmult is g_ncm's queue: it applies to gadget-in and gadget-out, not %s", w)
		}
		if *write && set["workload"] && w != simmodel.StorageWrite {
			return nil, usagef("probe sim: --write is --workload write: it cannot go with --workload %s", w)
		}
		if set["num-buffers"] && w != simmodel.GadgetStorage {
			return nil, usagef("probe sim: --num-buffers is f_mass_storage's: it applies to gadget-storage, not %s", w)
		}
		return &SimProbe{Ctl: d.Sim, Map: d.Map, Size: *size, Xfer: *xfer, Seed: *seed, Write: *write, Workload: w, BusLoad: *load, Noise: *noise, NonBurst: nb, Qmult: *qmult, Buffers: *buffers}, nil
	}
}

// size is a flag.Value for byte counts.
type size struct{ v *int64 }

func sizeFlag(fs *flag.FlagSet, name string, def int64, usage string) *int64 {
	v := def
	fs.Var(size{&v}, name, usage)
	return &v
}

func (s size) String() string {
	if s.v == nil {
		return "0"
	}
	switch {
	case *s.v < 0:
		return "all"
	case *s.v == 0:
		return "0"
	}
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if *s.v%u.n == 0 {
			return strconv.FormatInt(*s.v/u.n, 10) + u.suffix
		}
	}
	return strconv.FormatInt(*s.v, 10)
}

func (s size) Set(v string) error {
	n, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s.v = n
	return nil
}
