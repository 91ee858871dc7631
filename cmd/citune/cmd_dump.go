package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/textwrap"
)

func init() {
	register(&command{name: "dump", summary: "decode every register of the controller (knobs first)", usage: "dump [--raw] [--explain] [REGISTER...]", run: runDump})
	register(&command{name: "get", summary: "print fields or registers", usage: "get FIELD|REGISTER...", run: runGet})
}

func runDump(a *app, args []string) error {
	fs := a.flags("dump")
	raw := fs.Bool("raw", false, "one line per register: offset, name, raw value")
	explain := fs.Bool("explain", false, "cite where each reset value and each knob's rule comes from (\"unknown\" where no source gives it)")
	strict := fs.Bool("strict", false, "exit 4 when the controller's identity check fails (default: a warning)")
	width := fs.Int("width", 0, "fit the lines to `N` columns, cutting long values with ... (default: the terminal's\nwidth; into a file or a pipe every text is whole)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if *width < 0 || *width > 0 && *width < 40 {
		return usageErr("dump: --width must be at least 40")
	}
	cols := *width
	if cols == 0 && a.env.isTTY {
		cols = cmp.Or(a.env.cols, termWidth)
	}
	t, offs, err := a.openNamed(fs.Args(), *strict)
	if err != nil {
		return err
	}
	defer t.Close()
	m := t.Profile.Map
	regsToShow, err := dumpRegisters(t, fs.Args(), offs)
	if err != nil {
		return err
	}
	var ds []regs.Decoded
	for i := range regsToShow {
		r := m.Register(regsToShow[i].Name)
		v, err := t.Read32(r.Offset)
		if err != nil {
			return err
		}
		ds = append(ds, r.Decode(v))
	}
	if a.g.json {
		out := struct {
			Target    report.JSONTarget `json:"target"`
			Registers []jsonReg         `json:"registers"`
		}{Target: infoOf(t)}
		for _, d := range ds {
			out.Registers = append(out.Registers, toJSONReg(d))
		}
		return writeJSON(a.env.stdout, out)
	}
	// Names and descriptions may come from a user's profile.
	w := textwrap.EscapeWriter(a.env.stdout)
	if *raw {
		for _, d := range ds {
			fmt.Fprintf(w, "0x%03x %s %-14s %s\n", d.Reg.Offset, phys(t, d.Reg.Offset), d.Reg.Name, regs.Hex(d.Raw))
		}
		return nil
	}
	fmt.Fprintln(w, header(t))
	if len(fs.Args()) == 0 {
		printKnobs(w, t, ds, cols)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Registers (* knob, ! differs from reset, ? reset unknown; offset, address):")
	for _, d := range ds {
		printDecoded(w, d, phys(t, d.Reg.Offset), cols)
		if *explain {
			printSources(w, t.Profile, d.Reg)
		}
	}
	return nil
}

// printSources cites the sources of a register's reset value and rules.
func printSources(w io.Writer, p *soc.Profile, r *regs.Register) {
	fmt.Fprint(w, textwrap.Block("reset value: "+orUnknown(r.Source), "      ", 78))
	for i := range r.Fields {
		if k := p.Knob(regs.Ref{Reg: r, Field: &r.Fields[i]}); k != nil {
			fmt.Fprint(w, textwrap.Block(r.Fields[i].Name+" rule: "+orUnknown(k.Source), "      ", 78))
		}
	}
}

// mark is m when on, else a blank of its width.
func mark(on bool, m string) string {
	if on {
		return m
	}
	return " "
}

// printKnobs prints the knobs and how each persists, cut to cols (0: whole).
func printKnobs(w io.Writer, t *soc.Target, ds []regs.Decoded, cols int) {
	fmt.Fprintln(w, "Tuning knobs:")
	for _, d := range ds {
		for _, fv := range d.Fields {
			if !fv.Field.Knob {
				continue
			}
			ref := regs.Ref{Reg: d.Reg, Field: fv.Field}
			val := fmt.Sprint(fv.Value)
			if fv.Meaning != "" {
				val += " " + fv.Meaning
			}
			if t.AssumedValue(ref, fv.Value) != "" {
				val += " [assumed, not read from silicon]"
			}
			fmt.Fprintf(w, " %s %-24s %s\n", mark(fv.Changed, "!"), ref.String(), truncate(val, cols-28))
			if k := t.Profile.Knob(ref); k != nil {
				fmt.Fprintf(w, "   %-24s %s\n", "", truncate(persistText(k, t.Controller), cols-28))
			}
		}
	}
}

func persistText(k *soc.Knob, c *soc.Controller) string {
	var parts []string
	for _, role := range c.Roles {
		switch {
		case k.Param != "" && slices.Contains(k.ParamRoles, role):
			parts = append(parts, string(role)+": "+k.Param)
		case k.DT != "" && slices.Contains(k.DTRoles, role):
			parts = append(parts, string(role)+": DT "+k.DT)
		case k.None != "":
			parts = append(parts, string(role)+": no persistent setting")
		default:
			parts = append(parts, string(role)+": driver default")
		}
	}
	return strings.Join(parts, "; ")
}

// truncate cuts s to n bytes with "..." (cols 0 gives n <= 0: whole).
func truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

// phys is the physical address of a register (also simulated or an image).
func phys(t *soc.Target, off uint32) string {
	return fmt.Sprintf("%#08x", t.Controller.Base+uint64(off))
}

// registerAt is the register at an offset the user gave as an address.
func registerAt(t *soc.Target, name string, off uint32) (*regs.Register, error) {
	r := t.Profile.Map.At(off)
	if r == nil {
		return nil, usageErr("%s: no register of %s at offset %s (%s): citune reads only registers it knows", name, t.Controller.Label, regs.Off(off), phys(t, off))
	}
	return r, nil
}

func printDecoded(w io.Writer, d regs.Decoded, addr string, cols int) {
	r := d.Reg
	changed, reset := "?", "reset unknown"
	if r.ResetKnown {
		changed, reset = mark(d.Changed, "!"), "reset "+regs.Hex(r.Reset)
	}
	fmt.Fprintf(w, "%s%s0x%03x %s %-14s %s  %s\n", mark(r.HasKnob(), "*"), changed, r.Offset, addr, r.Name, regs.Hex(d.Raw), reset)
	for _, fv := range d.Fields {
		f := fv.Field
		val := fv.FormatValue()
		if fv.Illegal && fv.Meaning == "" {
			val += "  (not a legal value)"
		}
		fmt.Fprintf(w, "   %s%s %-6s %-12s %-3s %s\n", mark(f.Knob, "*"), mark(fv.Changed, "!"), f.Bits(), f.Name, f.Access, truncate(val, cols-32))
	}
	if d.Unknown != 0 {
		fmt.Fprintf(w, "      undescribed bits set: %s\n", regs.Hex(d.Unknown))
	}
	if r.Note != "" {
		fmt.Fprint(w, textwrap.Block("note: "+r.Note, "      ", 78))
	}
}

func runGet(a *app, args []string) error {
	fs := a.flags("get")
	strict := fs.Bool("strict", false, "exit 4 when the controller's identity check fails (default: a warning)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) == 0 {
		return usageErr("usage: citune get FIELD|REGISTER...")
	}
	t, offs, err := a.openNamed(fs.Args(), *strict)
	if err != nil {
		return err
	}
	defer t.Close()
	var refs []regs.Ref
	byAddr := map[int]bool{} // refs named by an address
	for i, n := range fs.Args() {
		if off, ok := offs[i]; ok {
			r, err := registerAt(t, n, off)
			if err != nil {
				return err
			}
			byAddr[len(refs)] = true
			refs = append(refs, regs.Ref{Reg: r})
			continue
		}
		ref, err := t.Profile.Map.Lookup(n)
		if err != nil {
			return withCode(exitUsage, err)
		}
		refs = append(refs, ref)
	}
	type item struct {
		Name    string `json:"name"`
		Address string `json:"address"`
		Value   uint32 `json:"value"`
		Raw     string `json:"raw"`
		Meaning string `json:"meaning,omitempty"`
		Assumed string `json:"assumed,omitempty"`
	}
	var items []item
	for _, ref := range refs {
		v, err := t.Read32(ref.Reg.Offset)
		if err != nil {
			return err
		}
		it := item{Name: ref.String(), Address: phys(t, ref.Reg.Offset), Value: v, Raw: regs.Hex(v)}
		if ref.Field != nil {
			it.Value = ref.Field.Get(v)
			it.Meaning = regs.Meaning(ref.Field, it.Value)
			it.Assumed = t.AssumedValue(ref, it.Value)
		}
		items = append(items, it)
	}
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			Target report.JSONTarget `json:"target"`
			Values []item            `json:"values"`
		}{infoOf(t), items})
	}
	w := a.env.stdout
	for i, it := range items {
		switch {
		case byAddr[i]: // an address may be any controller's: say whose, and where
			fmt.Fprintf(w, "%s %s (%s) = %s\n", t.Controller.Label, it.Name, it.Address, regs.Hex(it.Value))
		case strings.Contains(it.Name, "."):
			fmt.Fprintf(w, "%s=%d", it.Name, it.Value)
			if it.Meaning != "" {
				fmt.Fprintf(w, "  (%s)", it.Meaning)
			}
			if it.Assumed != "" {
				fmt.Fprint(w, "  [assumed, not read from silicon]")
			}
			fmt.Fprintln(w)
		default:
			fmt.Fprintf(w, "%s=%s\n", it.Name, regs.Hex(it.Value))
		}
	}
	return nil
}

// dumpRegisters are every register, or those named (by name or address).
func dumpRegisters(t *soc.Target, names []string, offs map[int]uint32) ([]regs.Register, error) {
	m := t.Profile.Map
	if len(names) == 0 {
		return m.Registers, nil
	}
	var out []regs.Register
	for i, n := range names {
		if off, ok := offs[i]; ok {
			r, err := registerAt(t, n, off)
			if err != nil {
				return nil, err
			}
			out = append(out, *r)
			continue
		}
		r := m.Register(n)
		if r == nil {
			if _, err := m.Lookup(n); errors.Is(err, regs.ErrAbsent) {
				return nil, withCode(exitUsage, err)
			}
			return nil, usageErr("no register %q", n)
		}
		out = append(out, *r)
	}
	return out, nil
}

// openNamed opens the target for reading, with the names that are
// addresses resolved to offsets of the window, by index. A failed identity
// check is a loud warning (the values may be nonsense), or with strict
// exit 4.
func (a *app) openNamed(names []string, strict bool) (*soc.Target, map[int]uint32, error) {
	p, err := a.resolveProfile()
	if err != nil {
		return nil, nil, err
	}
	offs, err := a.resolveAddresses(p, names)
	if err != nil {
		return nil, nil, err
	}
	t, err := a.openProfile(p, false)
	if err != nil {
		return nil, nil, err
	}
	if err := t.Identify(); err != nil {
		if strict {
			t.Close()
			return nil, nil, withCode(exitIdentity, fmt.Errorf("%w\nIs this the right --profile/--controller?", err))
		}
		fmt.Fprintf(humanOut(a.env.stderr, a.env.errTTY), "citune: WARNING: the identity check failed, what follows may be nonsense: %v\nIs this the right --profile/--controller? (--strict makes this an error)\n", err)
	}
	return t, offs, nil
}
