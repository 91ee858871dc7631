package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/soc/mmio"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/undo"
)

const (
	exitOK       = 0
	exitError    = 1
	exitUsage    = 2
	exitNotHeld  = 3 // a written value did not stick or no longer holds
	exitIdentity = 4 // identity check failed: nothing written
)

type exitErr struct {
	code int
	err  error
}

func (e *exitErr) Error() string { return e.err.Error() }
func (e *exitErr) Unwrap() error { return e.err }

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitErr{code, err}
}

func usageErr(format string, a ...any) error {
	return withCode(exitUsage, fmt.Errorf(format, a...))
}

// env is everything a command may touch of the outside world; tests
// replace parts of it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	uid            int
	root           fs.FS // the root file system, for detection
	isTTY          bool  // stdout is a terminal
	errTTY         bool  // stderr is a terminal
	cols           int   // stdout's terminal width (0: no terminal, or unknown)
}

func newEnv() *env {
	return &env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, uid: os.Getuid(), root: os.DirFS(sysroot()),
		isTTY: isTerminal(os.Stdout), errTTY: isTerminal(os.Stderr),
		cols: terminalCols(os.Stdout),
	}
}

// terminalCols is the width of the terminal f is (0 when it is none).
func terminalCols(f *os.File) int {
	if !isTerminal(f) {
		return 0
	}
	w, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return w
}

// utf8Locale reports whether the locale (LC_ALL, else LC_CTYPE, else
// LANG, as setlocale decides) uses UTF-8. The C locale, or none, is
// ASCII: what a vt100 on a serial line shows.
func utf8Locale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}

// sysroot is where detection reads proc/device-tree and sys/devices/soc0:
// $CITUNE_SYSROOT (a copy of those files, for tests and offline use) or /.
func sysroot() string {
	return cmp.Or(os.Getenv("CITUNE_SYSROOT"), "/")
}

// isTerminal reports whether f is a terminal: one that answers the
// terminal ioctl, not any character device (/dev/null is one, and
// `2>/dev/null` must not get the progress bar).
func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// globals are the flags every command takes.
type globals struct {
	profile, controller, memFile, journal string
	sim, json                             bool
	// The simulated controller's: --sim-driver=false (the simulated
	// ehci-hcd is on by default, as on a board), --reset-values,
	// --sim-cmdline and --sim-role.
	noSimDriver, resetVals bool
	simCmdline, simRole    string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.profile, "profile", g.profile, "SoC `NAME|FILE`: a built-in profile (see citune profiles) or a TOML file")
	fs.StringVar(&g.controller, "controller", g.controller, "controller `LABEL` as in the DT (usbotg, usbh1, usbdev0, ...) or its node name\n(usb@2184200) (default usbh1)")
	fs.StringVar(&g.memFile, "mem-file", g.memFile, "use a register image `FILE` instead of /dev/mem")
	fs.BoolVar(&g.sim, "sim", g.sim, "use the built-in simulated controller (no board, no root)")
	fs.BoolFunc("sim-driver", "with --sim: simulate ehci-hcd writing its cached USBCMD back after transfers\non host ports, as on a board (--sim-driver=false: ITC and park hold)", func(s string) error {
		v, err := strconv.ParseBool(s)
		g.noSimDriver = !v
		return err
	})
	fs.StringVar(&g.simCmdline, "sim-cmdline", g.simCmdline, "with --sim: the kernel command line the simulated board booted with, e.g.\n'ehci_hcd.park=3 ehci_hcd.log2_irq_thresh=0' (its ehci_hcd parameters; other words are ignored)")
	fs.StringVar(&g.simRole, "sim-role", g.simRole, "with --sim: the `ROLE` an OTG port starts in: host (a USB disk on an OTG cable: the ID\npin reads 0) or device (no cable; the default for dr_mode \"otg\")")
	fs.BoolVar(&g.resetVals, "reset-values", g.resetVals, "with --sim and mkimage: start from the controller's reset values, before\nany driver, instead of what Linux leaves on a running board")
	fs.BoolVar(&g.json, "json", g.json, "print JSON on stdout (lower-case snake_case keys)")
	fs.StringVar(&g.journal, "journal", g.journal, "journal `FILE` (default $CITUNE_JOURNAL, else\n/var/lib/citune/journal.json as root, else in ~/.local/state/citune)")
}

// app is one invocation.
type app struct {
	ctx  context.Context
	env  *env
	g    globals
	args []string // the whole command line, for journals and results
	cmd  *command // the command running

	helpToStdout bool // `citune help CMD`: help goes to stdout
	sidecarDone  bool // the --mem-file image's sidecar was read

	// Where --profile and --controller came from ("": the command line).
	profileFrom, controllerFrom string

	// minGain is dts's and report's --min-gain (negative: the sweep's).
	minGain float64
}

// command is one citune command and its help.
type command struct {
	name, summary, usage string
	run                  func(a *app, args []string) error
	// examples close the help, one command line each (the help's test
	// runs those on --sim); details are paragraphs after the flags.
	examples, details []string
	values            bool // the help says in what forms register values come
	// noJSON says why the command has no machine form (refusing --json).
	noJSON string
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func commandNames() []string { return slices.Sorted(maps.Keys(commands)) }

func run(ctx context.Context, args []string, e *env) int {
	a := &app{ctx: ctx, env: e, args: append([]string{"citune"}, args...), minGain: -1}
	err := a.main(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	// Errors quote files others may have written (results files,
	// profiles, journals): shown escaped.
	fmt.Fprintf(humanOut(e.stderr, e.errTTY), "citune: %s%s\n", textwrap.Escape(err.Error()), advice(err))
	if ee := (*exitErr)(nil); errors.As(err, &ee) {
		return ee.code
	}
	return exitError
}

func (a *app) main(args []string) error {
	fs := flag.NewFlagSet("citune", flag.ContinueOnError)
	fs.SetOutput(a.env.stderr)
	a.g.register(fs)
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { a.usage(a.env.stderr) }
	// Global flags before the command; the command parses the rest with
	// the shared grammar (its flags and the global ones, anywhere).
	if err := quietParse(fs, "", func() error { return fs.Parse(args) }); err != nil {
		return err
	}
	rest := fs.Args()
	if *version {
		rest = append([]string{"version"}, rest...)
	}
	if len(rest) == 0 {
		a.usage(a.env.stderr)
		return usageErr("no command given")
	}
	name := rest[0]
	if name == "__complete" {
		for _, c := range complete(a, rest[1:]) {
			fmt.Fprintln(a.env.stdout, c)
		}
		return nil
	}
	if name == "help" || name == "-h" {
		if len(rest) > 1 {
			if c := commands[rest[1]]; c != nil {
				// The command's own -h, on stdout.
				a.helpToStdout, a.cmd = true, c
				return c.run(a, []string{"--help"})
			}
			return unknownCommand(rest[1])
		}
		a.usage(a.env.stdout)
		return nil
	}
	c := commands[name]
	if c == nil {
		return unknownCommand(name)
	}
	a.cmd = c
	return c.run(a, rest[1:])
}

func unknownCommand(name string) error {
	if n := nearest(name, commandNames()); n != "" {
		return usageErr("unknown command %q (did you mean %s? `citune help` lists the commands)", name, n)
	}
	return usageErr("unknown command %q (run `citune help`)", name)
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, "citune tunes the ChipIdea USB controller of i.MX6 and Vybrid SoCs.\n\nusage: citune [global flags] COMMAND [flags] [args]\n\ncommands:\n")
	for _, n := range commandNames() {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintf(w, "\nglobal flags (anywhere on the line; -- ends the flags):\n")
	fs := flag.NewFlagSet("citune", flag.ContinueOnError)
	var g globals
	g.register(fs)
	fs.Bool("version", false, "print the version and exit (also: citune version)")
	printFlags(w, fs, func(string) bool { return true })
	fmt.Fprintf(w, "\nrun `citune help COMMAND` (or COMMAND --help) for a command's own flags\n")
	fmt.Fprintf(w, "\nexit codes: 0 ok, 1 error, 2 usage, 3 a value did not stick or no longer\nholds, 4 the controller identity check failed (nothing written)\n")
}

// flags returns a FlagSet for a command that also accepts the globals.
func (a *app) flags(c string) *flag.FlagSet {
	fs := flag.NewFlagSet("citune "+c, flag.ContinueOnError)
	fs.SetOutput(a.helpOut())
	a.g.register(fs)
	if cmd := commands[c]; cmd != nil {
		fs.Usage = func() { a.commandUsage(a.helpOut(), cmd, fs) }
	}
	return fs
}

// journalPath is where the journal lives (an error without a private place).
func (a *app) journalPath() (string, error) {
	if a.g.journal != "" {
		return a.g.journal, nil
	}
	return undo.DefaultPath(a.env.getenv, a.env.uid)
}

func builtinProfiles() ([]*soc.Profile, error) {
	names, err := profiles.PackedNames()
	if err != nil {
		return nil, err
	}
	var ps []*soc.Profile
	for _, n := range names {
		p, err := builtinProfile(n)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name }) // as soc.LoadAll
	return ps, nil
}

// builtinProfile loads the embedded profile of the file name, pre-parsed
// (soc/packed.go).
func builtinProfile(name string) (*soc.Profile, error) {
	s, err := profiles.Packed(name)
	if err != nil {
		return nil, err
	}
	p, err := soc.UnpackProfile(s)
	if err != nil {
		return nil, fmt.Errorf("embedded:%s: %w", name, err)
	}
	p.File = "embedded:" + p.File
	return p, nil
}

// loadProfile resolves --profile: a file path (contains a path separator
// or ends in .toml) or a built-in name.
func loadProfile(spec string) (*soc.Profile, error) {
	if strings.ContainsRune(spec, os.PathSeparator) || strings.HasSuffix(spec, ".toml") {
		data, err := os.ReadFile(spec)
		if err != nil {
			return nil, fmt.Errorf("profile: %w", err)
		}
		return soc.Parse(spec, data)
	}
	// Built-in names are lower case (--profile IMX6Q is imx6q); only the
	// named profile is loaded: every command starts here.
	spec = strings.ToLower(spec)
	if p, err := builtinProfile(spec + ".toml"); err == nil {
		return p, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// Not a file name: an alias (imx6dl, imx6ull, imx6ulz) of one of them.
	if ps, err := builtinProfiles(); err == nil {
		if p := soc.Lookup(ps, spec); p != nil {
			return p, nil
		}
	}
	names, _ := profiles.PackedNames()
	for i := range names {
		names[i] = strings.TrimSuffix(names[i], ".toml")
	}
	return nil, usageErr("unknown profile %q (built-in: %s; or give a .toml file)", spec, strings.Join(names, ", "))
}

const defaultSimProfile = "imx6q"

// resolveProfile is --profile, the default for --sim, or the detected one.
func (a *app) resolveProfile() (*soc.Profile, error) {
	switch {
	case a.g.profile != "":
		return loadProfile(a.g.profile)
	case a.g.sim:
		return loadProfile(defaultSimProfile)
	}
	ps, err := builtinProfiles()
	if err != nil {
		return nil, err
	}
	d, err := soc.Detect(a.env.root, ps, a.identifyLive)
	if errors.Is(err, soc.ErrNoProfile) && a.g.memFile != "" {
		if _, ok, _ := readSidecar(a.g.memFile); !ok {
			return nil, usageErr("register image %s has no %s beside it (citune mkimage writes one) to say which SoC and controller it holds: give --profile NAME (and --controller LABEL)", a.g.memFile, sidecarPath(a.g.memFile))
		}
	}
	if err != nil {
		return nil, err
	}
	return d.Chosen, nil
}

// identifyLive runs the identity checks of the profile's controller
// (through /dev/mem, or the --mem-file image).
func (a *app) identifyLive(p *soc.Profile) error {
	t, err := a.openProfile(p, false)
	if err != nil {
		return err
	}
	defer t.Close()
	return t.Identify()
}

// pickController resolves the named controller (--controller), else usbh1,
// else the profile's first controller.
func pickController(p *soc.Profile, name string) (*soc.Controller, error) {
	if name != "" {
		c, err := p.Controller(name)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		return c, nil
	}
	// Decision: the default is usbh1, the first host port on every
	// shipped SoC (a disk to probe is plugged into a host port).
	if c, err := p.Controller("usbh1"); err == nil {
		return c, nil
	}
	return &p.Controllers[0], nil
}

// open opens the target the flags name; writable, its identity check must
// pass (exit 4 otherwise).
func (a *app) open(writable bool) (*soc.Target, error) {
	p, err := a.resolveProfile()
	if err != nil {
		return nil, err
	}
	return a.openProfile(p, writable)
}

// openProfile opens the target of an already resolved profile (commands
// check their arguments against its map before anything is opened).
func (a *app) openProfile(p *soc.Profile, writable bool) (*soc.Target, error) {
	if a.g.sim && a.g.memFile != "" {
		return nil, usageErr("--sim and --mem-file exclude each other")
	}
	c, err := pickController(p, a.g.controller)
	if err != nil {
		return nil, err
	}
	w := soc.Where{Sim: a.g.sim, Image: a.g.memFile, Writable: writable}
	if a.g.sim {
		if w.SimOptions, err = a.simOptions(); err != nil {
			return nil, err
		}
	}
	t, err := soc.Open(p, c, w)
	if err != nil {
		return nil, err
	}
	if writable {
		if err := t.Identify(); err != nil {
			t.Close()
			return nil, withCode(exitIdentity, fmt.Errorf("%w\nnothing was written. Is this the right --profile/--controller?", err))
		}
	}
	return t, nil
}

// parseChanges validates every NAME=VALUE against the map, and refuses
// two changes of the same bits (AHBBRST=0 AHBBRST=3, or AHBBRST=0
// SBUSCFG=0x7): the last would silently win.
func parseChanges(m *regs.Map, args []string) ([]regs.Change, error) {
	if len(args) == 0 {
		return nil, usageErr("no FIELD=VALUE given")
	}
	var cs []regs.Change
	var errs []error
	type claim struct {
		mask uint32
		arg  string
	}
	claims := map[uint32][]claim{}
	for _, s := range args {
		c, err := m.ParseChange(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		mask := ^uint32(0)
		if c.Ref.Field != nil {
			mask = c.Ref.Field.Mask()
		}
		for _, o := range claims[c.Ref.Reg.Offset] {
			if o.mask&mask != 0 {
				errs = append(errs, fmt.Errorf("%s and %s both set %s bits %s: give each field once", o.arg, s, c.Ref.Reg.Name, regs.Hex(o.mask&mask)))
			}
		}
		claims[c.Ref.Reg.Offset] = append(claims[c.Ref.Reg.Offset], claim{mask, s})
		cs = append(cs, c)
	}
	if len(errs) > 0 {
		return nil, withCode(exitUsage, errors.Join(errs...))
	}
	return cs, nil
}

// advice is what a user can do about err, in this command line's terms:
// the library packages say what is wrong in domain words (a TUI user has
// no flags), and the CLI adds the flags here, in one place.
func advice(err error) string {
	var exists *existsError
	switch {
	case errors.As(err, &exists):
		return "; --force replaces it"
	case errors.Is(err, soc.ErrNoProfile):
		return "; choose a profile with --profile (see `citune profiles`), or use --sim"
	case errors.Is(err, mmio.ErrNotRoot):
		return "; without a board, use --sim, or --mem-file with a saved image"
	case errors.Is(err, undo.ErrUntrusted), errors.Is(err, undo.ErrNoPlace):
		return "; give a journal in a folder only you can write with --journal FILE (or $CITUNE_JOURNAL)"
	case errors.Is(err, undo.ErrRefused):
		var re *undo.RefusedError
		if errors.As(err, &re) && re.Live {
			return "; `citune restore --allow-live` writes live state back too"
		}
		return ""
	case errors.Is(err, undo.ErrStore):
		return "; give a writable place with --journal FILE (or $CITUNE_JOURNAL), e.g. on a tmpfs; it must survive until `citune restore`"
	case errors.Is(err, plan.ErrNoAxes):
		return "; give --axis NAME=V1,V2 or a --plan file"
	case errors.Is(err, results.ErrExists):
		return "; continue it with --resume, choose another --out, or --force replaces it"
	case errors.Is(err, sweep.ErrNotReloaded):
		return "; give the modules to reload, top first, with --reload"
	case errors.Is(err, probe.ErrNoDirect):
		return "; try another --bs, or --buffered (it drops the page cache before each run instead)"
	}
	return ""
}
