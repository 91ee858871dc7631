package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/undo"
)

func init() {
	register(&command{name: "set", summary: "change fields: verified, journalled, undoable", usage: "set [--dry-run] FIELD=VALUE...", run: runSet,
		values: true,
		examples: []string{
			"citune --sim set ITC=UF8 AHBBRST=INCR16",
			"citune --sim set TXPBURST=0x10 SDIS=0b1",
			"citune --sim set --dry-run USBCMD=0x00080001",
			"citune --sim set usbh1+0x160=0x0808",
		}})
	register(&command{name: "verify", summary: "check that set's values still hold, or a recommendation after boot",
		usage: "verify [--results RESULTS.jsonl | --dts FILE.dtso]", run: runVerify,
		examples: []string{"citune verify", "citune verify --results usbh1.jsonl", "citune verify --dts usbh1.dtso"}})
}

type setResult struct {
	Register string   `json:"register"`
	Offset   string   `json:"offset"`
	Old      string   `json:"old"`
	New      string   `json:"new"`
	Readback string   `json:"readback,omitempty"`
	Changes  []string `json:"changes"`
	NotHeld  []string `json:"not_held,omitempty"`
}

func runSet(a *app, args []string) error {
	fs := a.flags("set")
	dry := fs.Bool("dry-run", false, "show old and new raw values; write nothing")
	force := fs.Bool("force", false, "change the target even while a sweep or TUI session owns it (its end may undo the change)")
	allowLive := fs.Bool("allow-live", false, "also write live state (list addresses, doorbells, run/stop, schedule enables,\nport control, status): this can stop transfers or reset a device")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) == 0 {
		return usageErr("usage: citune set [--dry-run] FIELD=VALUE...")
	}
	p, changes, err := a.setChanges(fs.Args())
	if err != nil {
		return err
	}
	t, err := a.openProfile(p, !*dry)
	if err != nil {
		return err
	}
	defer t.Close()
	if *dry {
		if err := t.Identify(); err != nil {
			fmt.Fprintf(a.env.stderr, "citune: warning: %v\n", err)
		}
	}
	ws, err := regs.Prepare(t, changes)
	if err != nil {
		return withCode(exitUsage, err)
	}
	if err := a.checkLive(changes, ws, *allowLive); err != nil {
		return err
	}
	// Values the hardware ignores, the driver rewrites or known to hurt
	// this SoC: a dry run says all that a set would.
	warnings := append(inertChanges(t, changes, ws), a.driverWarnings(t, changes)...)
	if *dry {
		return a.printDrySet(t, ws, warnings)
	}
	u, closeUndo, err := a.openUndo(t, undo.KindSet, undoOpts{force: *force, allowLive: *allowLive})
	if err != nil {
		return err
	}
	defer closeUndo()
	results, err := u.Apply(changes)
	if err != nil {
		return err
	}
	return a.printSet(t, results, warnings)
}

// setChanges resolves the profile and checks FIELD=VALUE arguments against
// the controller's map and the DT limits, before anything is opened.
func (a *app) setChanges(args []string) (*soc.Profile, []regs.Change, error) {
	p, err := a.resolveProfile()
	if err != nil {
		return nil, nil, err
	}
	args, c, err := a.addressChanges(p, args)
	if err != nil {
		return nil, nil, err
	}
	changes, err := parseChanges(p.ForController(c).Map, args)
	if err != nil {
		return nil, nil, err
	}
	if err := dtLimits(p, changes); err != nil {
		return nil, nil, err
	}
	return p, changes, nil
}

// addressChanges turns ADDRESS=VALUE arguments (0x02184340, usbh1+0x160,
// a window offset) into REGISTER=VALUE of the controller they pick, and
// returns the command's controller.
func (a *app) addressChanges(p *soc.Profile, args []string) ([]string, *soc.Controller, error) {
	names := make([]string, len(args))
	for i, s := range args {
		names[i], _, _ = strings.Cut(s, "=")
	}
	offs, err := a.resolveAddresses(p, names)
	if err != nil {
		return nil, nil, err
	}
	c, err := pickController(p, a.g.controller)
	if err != nil || len(offs) == 0 {
		return args, c, err
	}
	m := p.ForController(c).Map
	out := slices.Clone(args)
	for i, off := range offs {
		r := m.At(off)
		if r == nil {
			return nil, nil, usageErr("%s: no register of %s at offset %s (0x%08x): citune writes only registers it knows", names[i], c.Label, regs.Off(off), c.Base+uint64(off))
		}
		_, v, _ := strings.Cut(args[i], "=")
		out[i] = r.Name + "=" + v
	}
	return out, c, nil
}

// checkLive refuses changes of live state unless allowed, and warns of each.
func (a *app) checkLive(changes []regs.Change, ws []regs.Write, allow bool) error {
	cur := map[uint32]uint32{}
	for _, w := range ws {
		cur[w.Reg.Offset] = w.Old
	}
	live := regs.LiveChanges(changes, cur)
	if len(live) > 0 && !allow {
		var why []string
		for _, c := range live {
			why = append(why, fmt.Sprintf("%s: %s", c.Ref, regs.LiveRisk(c.Ref)))
		}
		return withCode(exitUsage, fmt.Errorf("%w:\n  %s\nnothing written; --allow-live writes it anyway", undo.ErrLive, strings.Join(why, "\n  ")))
	}
	for _, c := range live {
		fmt.Fprintf(a.env.stderr, "citune: warning: writing live state %s: %s\n", c.Ref, regs.LiveRisk(c.Ref))
	}
	return nil
}

func setResultOf(w regs.Write) setResult {
	return setResult{Register: w.Reg.Name, Offset: regs.Off(w.Reg.Offset), Old: regs.Hex(w.Old), New: regs.Hex(w.New), Changes: changeStrings(w.Changes)}
}

// printDrySet shows what a set would write and warn.
func (a *app) printDrySet(t *soc.Target, ws []regs.Write, warnings []string) error {
	var out []setResult
	for _, w := range ws {
		out = append(out, setResultOf(w))
	}
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			Target   report.JSONTarget `json:"target"`
			DryRun   bool              `json:"dry_run"`
			Writes   []setResult       `json:"writes"`
			Warnings []string          `json:"warnings,omitempty"`
		}{infoOf(t), true, out, warnings})
	}
	fmt.Fprintln(a.env.stdout, header(t))
	for _, r := range out {
		fmt.Fprintf(a.env.stdout, "would write %s (%s): %s -> %s  (%s)\n", r.Register, r.Offset, r.Old, r.New, strings.Join(r.Changes, " "))
	}
	for _, s := range warnings {
		fmt.Fprintln(a.env.stdout, "warning: "+s)
	}
	fmt.Fprintln(a.env.stdout, "dry run: nothing written")
	return nil
}

// printSet reports what a set wrote and read back; a value that did not
// stick is exit 3.
func (a *app) printSet(t *soc.Target, results []regs.Result, warnings []string) error {
	var out []setResult
	var notHeld []string
	for _, r := range results {
		sr := setResultOf(r.Write)
		sr.Readback = regs.Hex(r.Readback)
		for _, m := range r.Mismatches {
			sr.NotHeld = append(sr.NotHeld, m.String())
			notHeld = append(notHeld, explainMismatch(t, m))
		}
		out = append(out, sr)
	}
	if a.g.json {
		if err := writeJSON(a.env.stdout, struct {
			Target   report.JSONTarget `json:"target"`
			Writes   []setResult       `json:"writes"`
			Held     bool              `json:"held"`
			Warnings []string          `json:"warnings,omitempty"`
		}{infoOf(t), out, len(notHeld) == 0, warnings}); err != nil {
			return err
		}
	} else {
		w := humanOut(a.env.stdout, a.env.isTTY)
		fmt.Fprintln(w, header(t))
		for _, r := range out {
			status := "ok"
			if len(r.NotHeld) > 0 {
				status = "DID NOT STICK"
			}
			fmt.Fprintf(w, "%s (%s): %s -> wrote %s, reads %s  %s  (%s)\n", r.Register, r.Offset, r.Old, r.New, r.Readback, status, strings.Join(r.Changes, " "))
		}
		for _, s := range warnings {
			fmt.Fprintln(w, "warning: "+s)
		}
		if t.Kind == soc.KindSim {
			fmt.Fprintln(w, "simulated controller: nothing on real hardware changed")
		} else {
			jp, _ := a.journalPath()
			fmt.Fprintf(w, "originals journalled in %s; undo with `citune restore`\n", jp)
		}
	}
	if len(notHeld) > 0 {
		return withCode(exitNotHeld, fmt.Errorf("%d value(s) did not stick:\n  %s", len(notHeld), strings.Join(notHeld, "\n  ")))
	}
	return nil
}

// dtLimits refuses values above what the device-tree binding allows
// (tx/rx-burst-size-dword: at most 0x20): they could never be made
// permanent, and the binding's limit is all any source says is safe.
func dtLimits(p *soc.Profile, changes []regs.Change) error {
	var errs []error
	for _, c := range changes {
		// A whole-register value (BURSTSIZE=0x4040, or by address) sets
		// every field: each is held to its limit as if named.
		fields := []regs.Change{c}
		if c.Ref.Field == nil {
			fields = nil
			for i := range c.Ref.Reg.Fields {
				f := &c.Ref.Reg.Fields[i]
				fields = append(fields, regs.Change{Ref: regs.Ref{Reg: c.Ref.Reg, Field: f}, Value: f.Get(c.Value)})
			}
		}
		for _, fc := range fields {
			if err := p.DTLimit(fc.Ref, fc.Value); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if len(errs) > 0 {
		return withCode(exitUsage, errors.Join(errs...))
	}
	return nil
}

// inertChanges names the changes the hardware ignores after the write: a
// knob that requires another field's value (burst sizes need
// SBUSCFG.AHBBRST=0) that this command or the register gives otherwise.
func inertChanges(t *soc.Target, changes []regs.Change, ws []regs.Write) []string {
	after := map[uint32]uint32{}
	for _, w := range ws {
		after[w.Reg.Offset] = w.New
	}
	var out []string
	for _, c := range changes {
		k := t.Profile.Knob(c.Ref)
		cond, ok := t.Profile.Condition(k)
		if c.Ref.Field == nil || !ok {
			continue
		}
		v, ok := after[cond.Ref.Reg.Offset]
		if !ok {
			var err error
			if v, err = t.Read32(cond.Ref.Reg.Offset); err != nil {
				continue
			}
		}
		if got := cond.Ref.Field.Get(v); got != cond.Value {
			out = append(out, fmt.Sprintf("%s=%d is written but the controller ignores it while %s=%d: it takes effect only with %s", c.Ref, c.Value, cond.Ref, got, k.Requires))
		}
	}
	return out
}

func changeStrings(cs []regs.Change) []string {
	var s []string
	for _, c := range cs {
		if c.Ref.Field == nil {
			s = append(s, fmt.Sprintf("%s=%s", c.Ref, regs.Hex(c.Value)))
		} else {
			s = append(s, fmt.Sprintf("%s=%d", c.Ref, c.Value))
		}
	}
	return s
}

// driverWarnings names the changes that stick now but that the driver
// takes from a (module-wide) kernel parameter in the controller's current
// role (ITC and park on a host port), then repeats the profile's warn
// text of every knob the changes touch, once each: values known to hurt
// this SoC (Vybrid burst).
func (a *app) driverWarnings(t *soc.Target, changes []regs.Change) []string {
	role, _ := t.RoleNow()
	var ws []string
	seen := map[string]bool{}
	for _, c := range changes {
		k := t.Profile.Knob(c.Ref)
		if c.Ref.Field == nil || k == nil || k.Param == "" || !slices.Contains(k.ParamRoles, role) || seen[k.Param] {
			continue
		}
		seen[k.Param] = true
		users := soc.ParamUsersString(soc.ParamScope(a.env.root, t.Profile, k.Param))
		ws = append(ws, fmt.Sprintf("%s holds only until the driver's next write: in %s role the kernel takes it from %s (sweep it with --axis modparam:%s=...; make it permanent on the kernel command line); %s is module-wide: it changes every controller in host role: %s", c.Ref, role, k.Param, k.Param, k.Param, users))
	}
	seen = map[string]bool{}
	for _, c := range changes {
		if k := t.Profile.Knob(c.Ref); c.Ref.Field != nil && k != nil && k.Warn != "" && !seen[k.Warn] {
			seen[k.Warn] = true
			ws = append(ws, fmt.Sprintf("%s on %s: %s", c.Ref, t.Profile.Name, k.Warn))
		}
	}
	return ws
}

// explainMismatch says why a value may not have stuck.
func explainMismatch(t *soc.Target, m regs.Mismatch) string {
	s := m.String()
	if k := t.Profile.Knob(m.Ref); k != nil && k.Driver != "" {
		s += " (" + k.Driver + ")"
	} else if t.Profile.Emulated {
		s += " (the emulator ignores writes to this register)"
	} else {
		s += " (the register may be read-only on this SoC, clock-gated, or rewritten by the driver)"
	}
	return s
}

func runVerify(a *app, args []string) error {
	fs := a.flags("verify")
	results := fs.String("results", "", "after a reboot with a sweep's recommendation: check that each of its values is in force (registers, /proc/cmdline, /sys/module)")
	dts := fs.String("dts", "", "the same for the values of a device-tree `FILE` (.dts fragment or .dtso overlay; FILE.bootargs beside it is read too)")
	sysRoot := fs.String("sys-root", "", "`DIR` where /proc/cmdline, /sys/module and /proc/device-tree are (default $CITUNE_SYSROOT, else /)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 || *results != "" && *dts != "" {
		return usageErr("usage: citune verify [--results RESULTS.jsonl | --dts FILE.dtso]")
	}
	if *results != "" || *dts != "" {
		return a.verifyBoot(*results, *dts, *sysRoot)
	}
	t, err := a.open(false)
	if err != nil {
		return err
	}
	defer t.Close()
	jp, err := a.journalPath()
	if err != nil {
		return err
	}
	j, err := undo.Load(jp)
	if err != nil {
		return err
	}
	id, err := t.ID()
	if err != nil {
		return err
	}
	e := j.Find(id.Key())
	if e == nil || len(e.Changes) == 0 {
		return fmt.Errorf("nothing to verify: no set on %s is recorded in %s", t, jp)
	}
	type row struct {
		Name  string `json:"name"`
		Want  uint32 `json:"want"`
		Got   uint32 `json:"got"`
		Holds bool   `json:"holds"`
		Why   string `json:"why,omitempty"`
	}
	var rows []row
	var bad []string
	for _, s := range e.Changes {
		c, err := t.Profile.Map.ParseChange(s)
		if err != nil {
			return fmt.Errorf("journal: %w", err)
		}
		v, err := t.Read32(c.Ref.Reg.Offset)
		if err != nil {
			return err
		}
		ms := regs.Check(c.Ref.Reg, []regs.Change{c}, v)
		r := row{Name: c.Ref.String(), Want: c.Value, Got: v, Holds: len(ms) == 0}
		if c.Ref.Field != nil {
			r.Got = c.Ref.Field.Get(v)
		}
		if !r.Holds {
			r.Why = explainMismatch(t, ms[0])
			bad = append(bad, r.Why)
		}
		rows = append(rows, r)
	}
	if a.g.json {
		if err := writeJSON(a.env.stdout, struct {
			Target report.JSONTarget `json:"target"`
			Holds  bool              `json:"holds"`
			Checks []row             `json:"checks"`
		}{infoOf(t), len(bad) == 0, rows}); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(a.env.stdout, header(t))
		for _, r := range rows {
			st := "holds"
			if !r.Holds {
				st = "REVERTED"
			}
			fmt.Fprintf(a.env.stdout, "%-24s set %d, reads %d  %s\n", r.Name, r.Want, r.Got, st)
		}
	}
	if len(bad) > 0 {
		return withCode(exitNotHeld, fmt.Errorf("%d value(s) no longer hold:\n  %s", len(bad), strings.Join(bad, "\n  ")))
	}
	return nil
}
