package main

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/textwrap"
)

// The states of a recommended value after the board rebooted with it.
const (
	inForce       = "in force"
	notInForce    = "not in force"
	notApplicable = "not applicable"
)

// bootCheck is one recommended value verified after boot.
type bootCheck struct {
	Name   string `json:"name"` // REG.FIELD, module.param or a file
	Want   string `json:"want"`
	Got    string `json:"got,omitempty"`
	Via    string `json:"via,omitempty"` // the property or kernel parameter that sets it
	Status string `json:"status"`
	Why    string `json:"why,omitempty"`
}

// want is one value to check and how the boot sets it.
type want struct {
	name, value string
	prop        string // DT property (with its value) that sets it
	param       string // module.param=value that sets it
	unmade      string // why nothing at boot sets it
}

// bootVerifier checks values against the registers through t and
// /proc/cmdline, /sys/module and the running device tree under root.
type bootVerifier struct {
	t    *soc.Target
	root fs.FS
}

// verifyBoot is `citune verify --results FILE` or `--dts FILE`.
func (a *app) verifyBoot(resultsFile, dtsFile, sysRoot string) error {
	root := a.env.root
	if sysRoot != "" {
		root = os.DirFS(sysRoot)
	}
	var ws []want
	var t *soc.Target
	from := resultsFile
	if resultsFile != "" {
		_, in, err := a.decideResults(resultsFile, nil)
		if err != nil {
			return err
		}
		a.g.controller = cmp.Or(a.g.controller, in.Controller.Label)
		if t, err = a.openProfile(in.Profile, false); err != nil {
			return err
		}
		ws = resultsWants(in, dtsout.BuildDTS(in))
	} else {
		from = dtsFile
		b, err := os.ReadFile(dtsFile)
		if err != nil {
			return err
		}
		ba, _ := os.ReadFile(strings.TrimSuffix(strings.TrimSuffix(dtsFile, ".dtso"), ".dts") + ".bootargs")
		src := dtsout.ParseSource(string(b), string(ba))
		p, err := a.resolveProfile()
		if err != nil {
			return err
		}
		if a.g.controller == "" {
			for _, c := range p.Controllers {
				if c.Label == src.Label || src.Path != "" && strings.HasSuffix(src.Path, "/"+c.Node) {
					a.g.controller = c.Label
				}
			}
		}
		if t, err = a.openProfile(p, false); err != nil {
			return err
		}
		if ws = sourceWants(p, src); len(ws) == 0 {
			t.Close()
			return fmt.Errorf("%s: no property or kernel parameter of %s's knobs in it: nothing to verify", dtsFile, p.Name)
		}
	}
	defer t.Close()
	v := bootVerifier{t: t, root: root}
	var out []bootCheck
	bad := 0
	for _, w := range ws {
		c := v.check(w)
		if c.Status == notInForce {
			bad++
		}
		out = append(out, c)
	}
	if a.g.json {
		if err := writeJSON(a.env.stdout, struct {
			From    string      `json:"from"`
			Target  string      `json:"target"`
			Cmdline string      `json:"cmdline"`
			InForce bool        `json:"in_force"`
			Checks  []bootCheck `json:"checks"`
		}{from, header(t), v.cmdline(), bad == 0, out}); err != nil {
			return err
		}
	} else {
		w := a.env.stdout
		fmt.Fprintf(w, "%s: the values of %s after boot\n", header(t), from)
		for _, c := range out {
			st := c.Status
			if st == notInForce {
				st = "NOT IN FORCE"
			}
			fmt.Fprintf(w, "%-26s want %s, reads %s  %s\n", c.Name, c.Want, cmp.Or(c.Got, "-"), st)
			fmt.Fprint(w, textwrap.Escape(textwrap.Block(c.Why, "    ", 80))) // "" for ""
		}
	}
	if bad > 0 {
		return withCode(exitNotHeld, fmt.Errorf("%d recommended value(s) not in force after boot", bad))
	}
	return nil
}

// resultsWants are the winner's settings with the lines dts gave them.
func resultsWants(in dtsout.DTSInput, d dtsout.DTS) []want {
	p := in.Profile.ForController(in.Controller)
	var ws []want
	for _, s := range in.Settings {
		if k := dtsout.KnobOfDT(p, s.Name); k != nil {
			s.Name = k.Field // a dt: axis's setting: the field it sets
		}
		w := want{name: s.Name, value: s.Value}
		for _, u := range d.Unmade {
			if strings.HasPrefix(u, s.Name+" ") || strings.HasPrefix(u, s.Name+":") {
				w.unmade = u
			}
		}
		if ref, err := p.Map.Lookup(s.Name); err == nil && ref.Field != nil {
			if k := p.Knob(ref); k != nil {
				w.prop = findLine(d.Props, k.DT, " ")
				w.param = findLine(d.Params, k.Param, "=")
			}
		} else if !strings.HasPrefix(s.Name, "/") {
			w.param = s.Name + "=" + s.Value
		}
		ws = append(ws, w)
	}
	// Every kernel parameter of the recommendation is checked itself,
	// also where the register happens to hold the value without it.
	for _, l := range d.Params {
		name, val, _ := strings.Cut(l.Text, "=")
		if !slices.ContainsFunc(ws, func(w want) bool { return w.name == name }) {
			ws = append(ws, want{name: name, value: val, param: l.Text})
		}
	}
	return ws
}

func findLine(ls []dtsout.DTSLine, name, sep string) string {
	for _, l := range ls {
		if name != "" && (strings.HasPrefix(l.Text, name+sep) || l.Text == name) {
			return l.Text
		}
	}
	return ""
}

// sourceWants are what a fragment or overlay sets on profile p's knobs.
func sourceWants(p *soc.Profile, src dtsout.Source) []want {
	var ws []want
	for _, k := range p.Knobs {
		if v, ok := src.Props[k.DT]; ok && k.DT != "" {
			ws = append(ws, want{name: k.Field, value: strconv.FormatUint(uint64(v), 10), prop: fmt.Sprintf("%s = <%#x>", k.DT, v)})
		}
	}
	for _, kp := range src.Params {
		name, val, _ := strings.Cut(kp, "=")
		n, err := strconv.ParseUint(val, 0, 32)
		ws = append(ws, want{name: name, value: val, param: kp})
		for _, k := range p.Knobs {
			if k.Param != name || err != nil {
				continue
			}
			fv := k.ParamEncoding.FieldFor(uint32(n))
			if k.ParamEncoding == soc.EncodingPark && strings.HasSuffix(k.Field, "ASPE") {
				fv = uint32(min(n, 1))
			} else if k.ParamEncoding == soc.EncodingPark && n == 0 {
				continue // park off: ASP is not set
			}
			ws = append(ws, want{name: k.Field, value: strconv.FormatUint(uint64(fv), 10), param: kp})
		}
	}
	return ws
}

// readFile is the trimmed text of the file name under root ("" where it
// cannot be read).
func readFile(root fs.FS, name string) string {
	b, err := fs.ReadFile(root, strings.TrimPrefix(name, "/"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (v bootVerifier) cmdline() string { return readFile(v.root, "proc/cmdline") }

// check verifies one value, and when it is not in force, why.
func (v bootVerifier) check(w want) bootCheck {
	c := bootCheck{Name: w.name, Want: w.value, Via: w.prop + w.param}
	if strings.HasPrefix(w.name, "/") {
		c.Got = readFile(v.root, w.name)
		c.Status, c.Why = inForce, ""
		if c.Got != w.value {
			c.Status, c.Why = notInForce, "nothing at boot writes it: a udev rule or tmpfiles.d entry must"
		}
		return c
	}
	p := v.t.Profile
	ref, err := p.Map.Lookup(w.name)
	if err != nil || ref.Field == nil { // a module parameter
		c.Got, c.Status, c.Why = v.param(w.param)
		return c
	}
	if p.ReadsAsZero(ref.Reg.Offset) {
		c.Status = notApplicable
		c.Why = fmt.Sprintf("the emulator ignores writes to %s (it reads 0): the value cannot be in force here%s", ref.Reg.Name, v.propNote(w.prop))
		return c
	}
	raw, err := v.t.Read32(ref.Reg.Offset)
	if err != nil {
		c.Status, c.Why = notInForce, err.Error()
		return c
	}
	c.Got = strconv.FormatUint(uint64(ref.Field.Get(raw)), 10)
	k := p.Knob(ref)
	switch {
	case c.Got == w.value:
		c.Status = inForce
	case w.unmade != "":
		c.Status, c.Why = notApplicable, "nothing at boot sets it: "+w.unmade
	case w.prop != "":
		c.Status, c.Why = notInForce, v.propWhy(w.prop, ref, k)
	case w.param != "":
		c.Status = notInForce
		if _, st, why := v.param(w.param); st != inForce {
			c.Why = why
		} else {
			c.Why = "value rewritten by the driver although " + w.param + " is in force"
			if p.Emulated {
				c.Status, c.Why = notApplicable, "the emulator does not keep it although "+w.param+" is in force"
			}
			if k != nil && k.Driver != "" {
				c.Why += ": " + k.Driver
			}
		}
	default:
		c.Status, c.Why = notInForce, "no device-tree property or kernel parameter of the recommendation sets it"
	}
	return c
}

// liveProp reads property name of the controller's node in the running
// device tree: its one cell, present, and whether the node was found.
func (v bootVerifier) liveProp(name string) (val uint32, present, node bool) {
	const top = "proc/device-tree"
	t := dtsout.ReadTree(v.root, top)
	if t == nil {
		return 0, false, false
	}
	for _, p := range t.Paths {
		if strings.HasSuffix(p, "/"+v.t.Controller.Node) {
			b, err := fs.ReadFile(v.root, path.Join(top, p, name))
			if err != nil {
				return 0, false, true
			}
			if len(b) >= 4 {
				val = binary.BigEndian.Uint32(b)
			}
			return val, true, true
		}
	}
	return 0, false, false
}

func (v bootVerifier) propNote(prop string) string {
	if prop == "" {
		return ""
	}
	name, _, _ := strings.Cut(prop, " ")
	if val, ok, _ := v.liveProp(name); ok {
		return fmt.Sprintf("; the running device tree has %s = <%#x>", name, val)
	}
	return fmt.Sprintf("; the running device tree has no %s", name)
}

// propWhy says why a value a property sets is not in force: the overlay
// was not applied, the driver ignored the property or rewrote the value.
func (v bootVerifier) propWhy(prop string, ref regs.Ref, k *soc.Knob) string {
	name, _, _ := strings.Cut(prop, " ")
	val, ok, node := v.liveProp(name)
	wantVal := dtsout.ParseSource(prop+";", "").Props[name] // a boolean property
	if _, cell, found := strings.Cut(prop, "<"); found {
		n, _ := strconv.ParseUint(strings.TrimSuffix(cell, ">"), 0, 32)
		wantVal = uint32(n)
	}
	switch {
	case !node:
		return fmt.Sprintf("overlay not applied? the running device tree (/proc/device-tree) has no node %s", v.t.Controller.Node)
	case !ok:
		return fmt.Sprintf("overlay not applied: the running device tree has no %s (want %s)", name, prop)
	case val != wantVal:
		return fmt.Sprintf("overlay not applied: the running device tree has %s = <%#x> (want %s)", name, val, prop)
	}
	if cond, ok := v.t.Profile.Condition(k); ok {
		if raw, err := v.t.Read32(cond.Ref.Reg.Offset); err == nil && cond.Ref.Field.Get(raw) != cond.Value {
			return fmt.Sprintf("property ignored: the driver writes %s only when %s reads %d, and it reads %d", name, cond.Ref, cond.Value, cond.Ref.Field.Get(raw))
		}
	}
	why := fmt.Sprintf("value rewritten by the driver: the running tree has %s, yet %s reads otherwise", prop, ref)
	if role, err := v.t.RoleNow(); err == nil && role != "" && k != nil && len(k.DTRoles) > 0 && !slices.Contains(k.DTRoles, role) {
		why = fmt.Sprintf("property ignored: the driver keeps %s only in %s role", name, soc.JoinRoles(k.DTRoles, ", "))
	}
	if k != nil && k.Driver != "" {
		why += " (" + k.Driver + ")"
	}
	return why
}

// param checks module.param=value in /sys/module, else /proc/cmdline.
func (v bootVerifier) param(kp string) (got, status, why string) {
	name, val, _ := strings.Cut(kp, "=")
	mod, par, _ := strings.Cut(name, ".")
	var onCmdline string
	found := false
	for _, f := range strings.Fields(v.cmdline()) {
		n, x, _ := strings.Cut(f, "=")
		if host.ModuleName(n) == host.ModuleName(name) {
			onCmdline, found = x, true // the last one counts
		}
	}
	sys := "sys/module/" + host.ModuleName(mod) + "/parameters/" + par
	got = readFile(v.root, sys)
	_, serr := fs.Stat(v.root, sys)
	switch {
	case serr == nil && got == val:
		return got, inForce, ""
	case serr == nil && !found:
		return got, notInForce, fmt.Sprintf("parameter missing: /proc/cmdline has no %s, and /%s reads %s", kp, sys, got)
	case serr == nil:
		return got, notInForce, fmt.Sprintf("/proc/cmdline has %s=%s, yet /%s reads %s (a modprobe.d option or the driver rewrote it)", name, onCmdline, sys, got)
	case found && onCmdline == val:
		return onCmdline, inForce, ""
	case found:
		return onCmdline, notInForce, fmt.Sprintf("/proc/cmdline has %s=%s", name, onCmdline)
	}
	return "", notInForce, fmt.Sprintf("parameter missing: /proc/cmdline has no %s, and /%s is not there (module not loaded?)", kp, sys)
}
