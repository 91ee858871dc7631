package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/textwrap"
)

// One grammar for every command (issue 13): flags may stand anywhere on
// the line, before or after positional arguments; `--` ends the flags
// (everything after it is positional: a sweep's probe words, say). Help
// shows flags as `--flag`, the command's own first and the global ones
// once, apart. Every command goes through a.parse; only `probe`, whose
// probe words carry flags of their own, stops at its first positional
// word (fs.Parse through a.parseWith).

// interleave parses args with fs, flags wherever they stand, leaving the
// positional arguments in fs.Args(). A flag that takes a value takes the
// next word, whatever it is (`--out --` names a file "--").
func interleave(fs *flag.FlagSet, args []string) error {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		if takesValue(fs, a) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	if err := fs.Parse(flags); err != nil {
		return err
	}
	return fs.Parse(append([]string{"--"}, pos...))
}

// takesValue reports whether the flag word arg (-name or --name, no
// =value) takes the next word as its value.
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	f := fs.Lookup(name)
	if f == nil || strings.Contains(name, "=") {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// unknownFlagError is a flag the command does not have, with the nearest.
type unknownFlagError struct{ cmd, name, nearest string }

func (e *unknownFlagError) Error() string {
	s := "unknown flag --" + e.name
	if e.nearest != "" {
		s += " (did you mean --" + e.nearest + "?)"
	}
	return s + "; " + flagsHelp(e.cmd)
}

// flagsHelp says where the flags of cmd ("": the global ones) are listed.
func flagsHelp(cmd string) string {
	if cmd == "" {
		return "`citune help` lists the flags"
	}
	return "`citune help " + cmd + "` lists the flags"
}

// quietParse runs parse with fs's messages and usage held back: -h
// prints the usage, any other error is one line (an unknown flag with
// the nearest one) instead of Go's message and the whole usage.
func quietParse(fs *flag.FlagSet, cmd string, parse func() error) error {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := parse()
	fs.Usage = usage
	fs.SetOutput(out)
	if err == nil {
		return nil
	}
	if errors.Is(err, flag.ErrHelp) {
		usage()
		return err
	}
	// The flag package has no typed error for an unknown flag: its
	// message is the only thing to go by.
	if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		err = &unknownFlagError{cmd: cmd, name: name, nearest: nearest(name, names)}
	} else {
		err = fmt.Errorf("%w; %s", err, flagsHelp(cmd))
	}
	return withCode(exitUsage, err)
}

// nearest is the candidate near enough to s to be its typo ("" if none).
func nearest(s string, cands []string) string {
	best, bestD := "", 0
	for _, c := range cands {
		d := regs.EditDistance(strings.ToLower(s), strings.ToLower(c))
		if strings.HasPrefix(c, s) && len(s) >= 3 {
			d = min(d, 1) // a prefix: --jso, --all
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > 2 || bestD == len(s) {
		return ""
	}
	return best
}

func (a *app) parse(fs *flag.FlagSet, args []string) error {
	return a.parseWith(fs, func() error { return interleave(fs, args) })
}

// parseWith runs parse through quietParse, refuses --json on a command
// without a machine form (saying why) and reads the image's sidecar.
func (a *app) parseWith(fs *flag.FlagSet, parse func() error) error {
	if err := quietParse(fs, a.cmd.name, parse); err != nil {
		return err
	}
	if a.g.json && a.cmd.noJSON != "" {
		return usageErr("%s has no --json: %s", a.cmd.name, a.cmd.noJSON)
	}
	return a.applySidecar()
}

func globalNames() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var g globals
	g.register(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

// printFlags lists the flags of fs that keep says to, as `--name TYPE`
// with the usage (and a non-zero default) indented below.
func printFlags(w io.Writer, fs *flag.FlagSet, keep func(string) bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f.Name) {
			return
		}
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += " " + name
		}
		fmt.Fprintln(w, line)
		// A switch's text says what it does; Go's "(default true)" on one
		// that is on unless turned off (--sim-driver) says nothing more.
		_, isBool := f.Value.(interface{ IsBoolFlag() bool })
		if d := f.DefValue; d != "" && d != "0" && d != "false" && d != "0s" && !isBool && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default %s)", d)
		}
		// At most 80 columns (a serial console).
		for _, l := range strings.Split(wordWrap(strings.Join(strings.Fields(usage), " "), 74), "\n") {
			fmt.Fprintln(w, "      "+l)
		}
	})
}

func (a *app) commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\n%s\n", usageLine(c.usage), c.summary)
	g := globalNames()
	own := false
	fs.VisitAll(func(f *flag.Flag) { own = own || !g[f.Name] })
	if own {
		fmt.Fprintf(w, "\nflags (anywhere on the line; -- ends them):\n")
		printFlags(w, fs, func(n string) bool { return !g[n] })
	}
	fmt.Fprintf(w, "\nglobal flags:\n")
	printFlags(w, fs, func(n string) bool { return g[n] })
	if c.noJSON != "" {
		fmt.Fprintf(w, "\n%s\n", wordWrap("no --json: "+c.noJSON, 80))
	}
	if c.values {
		fmt.Fprintf(w, "\n%s\n", wordWrap("values: a number (decimal 16, hex 0x10 or binary 0b10000), the name of one of the field's values (UF8, INCR16), or on/off for a one-bit field; `citune dump` lists the names", 80))
	}
	for _, d := range c.details {
		fmt.Fprintf(w, "\n%s\n", wordWrap(d, 80))
	}
	if len(c.examples) > 0 {
		fmt.Fprintf(w, "\nexamples:\n")
		for _, e := range c.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// helpOut is where help goes: stdout for `citune help CMD`, else stderr.
func (a *app) helpOut() io.Writer {
	if a.helpToStdout {
		return a.env.stdout
	}
	return a.env.stderr
}

// dashDash turns flag.PrintDefaults' `  -flag` lines into `  --flag`.
func dashDash(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  -") && !strings.HasPrefix(l, "  --") {
			lines[i] = "  --" + l[3:]
		}
	}
	return strings.Join(lines, "\n")
}

// usageLine is "usage: citune USAGE" wrapped at 80 columns.
func usageLine(usage string) string {
	const lead = "usage: citune "
	body := wordWrap(usage, 80-len(lead))
	return lead + strings.ReplaceAll(body, "\n", "\n"+strings.Repeat(" ", len(lead)))
}

func wordWrap(s string, width int) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		out = append(out, strings.Join(textwrap.Lines(line, "", "", width), "\n"))
	}
	return strings.Join(out, "\n")
}
