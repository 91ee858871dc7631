package dtsout

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// DTSInput is what a device-tree fragment is made from: settings to make
// permanent (by axis name: REG.FIELD, module.param or a file path) and
// the register snapshot that gives every other field's value (conditions
// such as AHBBRST=0 for the burst sizes, and park's two fields).
type DTSInput struct {
	Profile    *soc.Profile
	Controller *soc.Controller
	// Role is "host", "device" or "" (unknown: both roles' mechanisms are
	// given).
	Role     string
	Settings []Setting
	Snapshot soc.Snapshot
	// Header lines say where the values come from.
	Header []string
	// ParamUsers are, per module parameter, the controllers it changes
	// (from the sweep's header or the running system); where a
	// parameter has no entry, the profile's controllers are named.
	ParamUsers map[string][]soc.ParamUser
}

// Setting is one value to make permanent, with the comment that goes on
// its line (measured gain and confidence).
type Setting struct {
	Name    string
	Value   string
	Comment string `json:"comment,omitempty"`
}

// DTS is a device-tree fragment for the controller's node, the kernel
// parameters, and notes for what has neither.
type DTS struct {
	Label  string
	Header []string
	Props  []DTSLine
	Params []DTSLine
	Notes  []string
}

// DTSLine is a property ("ahb-burst-config = <0x0>") or a kernel
// parameter ("ehci_hcd.log2_irq_thresh=3") with its comment.
type DTSLine struct {
	Text    string `json:"text"`
	Comment string `json:"comment,omitempty"`
}

// boolProps are DT properties that are booleans: present means the
// field takes this value.
var boolProps = map[string]uint32{"non-zero-ttctrl-ttha": 0x7f}

// BuildDTS decides, for every setting, how the kernel would take it:
// a device-tree property where the driver keeps the value in the
// controller's role (burst sizes only together with
// ahb-burst-config = <0x0>, values above the binding's maximum refused),
// a kernel parameter where a module parameter sets it (ITC = 2^N through
// ehci_hcd.log2_irq_thresh=N, park through ehci_hcd.park=N), or a note
// when there is no persistent mechanism.
func BuildDTS(in DTSInput) DTS {
	d := DTS{Label: in.Controller.Label, Header: in.Header}
	// The controller's view: its core's registers and its usbmisc word.
	p := in.Profile.ForController(in.Controller)
	m := p.Map
	given := map[string]string{}
	for _, s := range in.Settings {
		given[s.Name] = s.Value
	}
	value := func(ref regs.Ref) uint32 {
		if v, ok := given[ref.String()]; ok {
			n, _ := strconv.ParseUint(v, 10, 32)
			return uint32(n)
		}
		raw, _ := in.Snapshot.Value(ref.Reg.Name)
		return ref.Field.Get(raw)
	}
	roleOK := func(roles []string) bool { return in.Role == "" || slices.Contains(roles, in.Role) }
	roleNote := func(roles []string) string {
		if in.Role == "" && len(roles) > 0 {
			return fmt.Sprintf(" (%s role)", strings.Join(roles, ", "))
		}
		return ""
	}
	hasProp := func(name string) bool {
		for _, l := range d.Props {
			if strings.HasPrefix(l.Text, name+" ") || l.Text == name {
				return true
			}
		}
		return false
	}
	parkDone := false
	for _, s := range in.Settings {
		switch {
		case strings.HasPrefix(s.Name, "/"):
			d.Notes = append(d.Notes, fmt.Sprintf("%s = %s: a file, not a device-tree property; write it at boot (a udev rule or tmpfiles.d entry). %s", s.Name, s.Value, s.Comment))
			continue
		case isModParam(m, s.Name):
			mod, param, _ := strings.Cut(s.Name, ".")
			d.Params = append(d.Params, DTSLine{Text: s.Name + "=" + s.Value,
				Comment: joinComment(s.Comment, fmt.Sprintf("or `options %s %s=%s` in /etc/modprobe.d when %s is a module", mod, param, s.Value, mod))})
			continue
		}
		ref, err := m.Lookup(s.Name)
		if err != nil || ref.Field == nil {
			d.Notes = append(d.Notes, fmt.Sprintf("%s = %s: not a field of %s's register map", s.Name, s.Value, p.Name))
			continue
		}
		v := value(ref)
		k := p.Knob(ref)
		if k == nil {
			d.Notes = append(d.Notes, fmt.Sprintf("%s = %d: profile %s names no device-tree property or kernel parameter for this field. %s", ref, v, p.Name, s.Comment))
			continue
		}
		var cond *regs.Change
		if k.Requires != "" {
			if c, err := m.ParseChange(k.Requires); err == nil && c.Ref.Field != nil {
				cond = &c
				if value(c.Ref) != c.Value {
					d.Notes = append(d.Notes, fmt.Sprintf("%s = %d is not emitted: it takes effect only with %s, and that field is %d here", ref, v, c, value(c.Ref)))
					continue
				}
			}
		}
		handled := false
		if k.DT != "" && roleOK(k.DTRoles) {
			handled = true
			if k.Warn != "" && !slices.Contains(d.Notes, "WARNING: "+k.Warn) {
				d.Notes = append(d.Notes, "WARNING: "+k.Warn)
			}
			on, isBool := boolProps[k.DT]
			switch {
			case isBool && v == on:
				d.Props = append(d.Props, DTSLine{Text: k.DT, Comment: joinComment(fmt.Sprintf("%s=%#x", ref.Field.Name, v)+roleNote(k.DTRoles), s.Comment)})
			case isBool && v == 0:
				d.Notes = append(d.Notes, fmt.Sprintf("%s = 0: leave %s out of the tree (absent means 0)", ref, k.DT))
			case isBool:
				d.Notes = append(d.Notes, fmt.Sprintf("%s = %#x cannot be set from the device tree: %s sets %#x or nothing", ref, v, k.DT, on))
			case k.DTMax != nil && v > *k.DTMax:
				d.Notes = append(d.Notes, fmt.Sprintf("%s = %#x is not emitted: the binding allows %s up to %#x", ref, v, k.DT, *k.DTMax))
			default:
				d.Props = append(d.Props, DTSLine{Text: fmt.Sprintf("%s = <%#x>", k.DT, v), Comment: joinComment(fmt.Sprintf("%s=%d", ref.Field.Name, v)+roleNote(k.DTRoles), s.Comment)})
			}
			if cond != nil {
				if ck := p.Knob(cond.Ref); ck != nil && ck.DT != "" && !hasProp(ck.DT) {
					d.Props = append([]DTSLine{{Text: fmt.Sprintf("%s = <%#x>", ck.DT, cond.Value),
						Comment: fmt.Sprintf("%s=%d: %s takes effect only with it", cond.Ref.Field.Name, cond.Value, k.DT)}}, d.Props...)
				}
			}
		}
		if k.Param != "" && roleOK(k.ParamRoles) {
			handled = true
			switch k.ParamEncoding {
			case soc.EncodingLog2:
				n, ok := k.ParamEncoding.ParamFor(v)
				if !ok {
					d.Notes = append(d.Notes, fmt.Sprintf("%s = %d cannot be set through %s, which gives %s = 2^N for N = 0..6", ref, v, k.Param, ref.Field.Name))
					break
				}
				d.Params = append(d.Params, DTSLine{Text: fmt.Sprintf("%s=%d", k.Param, n),
					Comment: joinComment(fmt.Sprintf("%s=%d", ref.Field.Name, v)+roleNote(k.ParamRoles), s.Comment)})
			case soc.EncodingPark:
				if parkDone {
					break
				}
				parkDone = true
				asp, aspe := parkFields(m, value)
				n := uint32(0)
				if aspe == 1 {
					n = asp
				}
				c := fmt.Sprintf("ASPE=%d ASP=%d", aspe, asp)
				if aspe == 1 && asp == 0 {
					c += ": ehci-hcd parks only with 1-3 packets; 0 turns park off"
				}
				d.Params = append(d.Params, DTSLine{Text: fmt.Sprintf("%s=%d", k.Param, n), Comment: joinComment(c+roleNote(k.ParamRoles), s.Comment)})
			default:
				d.Params = append(d.Params, DTSLine{Text: fmt.Sprintf("%s=%d", k.Param, v), Comment: joinComment(fmt.Sprintf("%s=%d", ref.Field.Name, v)+roleNote(k.ParamRoles), s.Comment)})
			}
		}
		if handled {
			continue
		}
		switch {
		case k.None != "":
			d.Notes = append(d.Notes, fmt.Sprintf("%s = %d: %s", ref, v, k.None))
		case k.DT != "":
			d.Notes = append(d.Notes, fmt.Sprintf("%s = %d: %s is kept only in %s role, and this controller runs as %s. %s", ref, v, k.DT, strings.Join(k.DTRoles, ", "), in.Role, k.Driver))
		default:
			d.Notes = append(d.Notes, fmt.Sprintf("%s = %d: no mechanism in %s role. %s", ref, v, in.Role, k.Driver))
		}
	}
	// Module parameters are module-wide: say which controllers each one
	// emitted changes.
	seenParam := map[string]bool{}
	for _, l := range d.Params {
		name, _, _ := strings.Cut(l.Text, "=")
		if seenParam[name] || !strings.Contains(name, ".") {
			continue
		}
		seenParam[name] = true
		us, ok := in.ParamUsers[name]
		if !ok {
			us = soc.ParamScope(nil, p, name)
		}
		if len(us) > 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("%s is module-wide: it changes every EHCI controller in host role, not only %s: %s", name, in.Controller.Label, soc.ParamUsersString(us)))
		}
	}
	return d
}

func parkFields(m *regs.Map, value func(regs.Ref) uint32) (asp, aspe uint32) {
	if r := m.Register("USBCMD"); r != nil {
		if f := r.Field("ASP"); f != nil {
			asp = value(regs.Ref{Reg: r, Field: f})
		}
		if f := r.Field("ASPE"); f != nil {
			aspe = value(regs.Ref{Reg: r, Field: f})
		}
	}
	return asp, aspe
}

// isModParam tells module.param from REG.FIELD: module names are lower
// case and not registers of the map.
func isModParam(m *regs.Map, name string) bool {
	mod, _, ok := strings.Cut(name, ".")
	return ok && mod == strings.ToLower(mod) && m.Register(mod) == nil
}

func joinComment(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + ": " + b
}

// safe keeps text from closing a C comment.
func safe(s string) string { return strings.ReplaceAll(s, "*/", "* /") }

// String renders the fragment: valid dts to place after a tree that
// defines the controller's label, with the kernel parameters and notes
// as comments.
func (d DTS) String() string {
	var b strings.Builder
	if len(d.Header) > 0 {
		b.WriteString("/*\n")
		for _, h := range d.Header {
			fmt.Fprintf(&b, " * %s\n", safe(h))
		}
		b.WriteString(" */\n")
	}
	fmt.Fprintf(&b, "&%s {\n", d.Label)
	if len(d.Props) == 0 {
		b.WriteString("\t/* no device-tree property to change */\n")
	}
	for _, p := range d.Props {
		fmt.Fprintf(&b, "\t%s;", p.Text)
		if p.Comment != "" {
			fmt.Fprintf(&b, "\t/* %s */", safe(p.Comment))
		}
		b.WriteString("\n")
	}
	b.WriteString("};\n")
	if len(d.Params) > 0 {
		b.WriteString("\n/*\n * Kernel command line (not device tree):\n")
		for _, p := range d.Params {
			fmt.Fprintf(&b, " *   %s", p.Text)
			if p.Comment != "" {
				fmt.Fprintf(&b, "\t%s", safe(p.Comment))
			}
			b.WriteString("\n")
		}
		b.WriteString(" */\n")
	}
	if len(d.Notes) > 0 {
		b.WriteString("\n/*\n * Notes:\n")
		for _, n := range d.Notes {
			fmt.Fprintf(&b, " *   %s\n", safe(strings.TrimSpace(n)))
		}
		b.WriteString(" */\n")
	}
	return b.String()
}

// KernelParams returns just the kernel parameters, space-separated.
func (d DTS) KernelParams() string {
	var s []string
	for _, p := range d.Params {
		s = append(s, p.Text)
	}
	return strings.Join(s, " ")
}

// WinnerSettings turns a results file's winner into settings for
// BuildDTS, each commented with the winner's gain over the baseline and,
// where the results have a point that differs from the baseline in that
// setting alone, that point's gain.
func WinnerSettings(res *results.Results, rk rank.Ranking) ([]Setting, error) {
	w := rk.Winner()
	if w == nil {
		return nil, fmt.Errorf("no point was ranked in the results: nothing to make permanent")
	}
	gain := "winner " + rank.VsString(w.VsBaseline)
	var out []Setting
	for _, a := range res.Header.Plan.Axes {
		v, ok := w.Settings[a.Name]
		if !ok {
			continue
		}
		c := gain
		if alone := aloneGain(res, rk, a.Name, v); alone != "" {
			c += "; alone " + alone
		}
		if res.Header.Originals[a.Name] == v {
			c = "unchanged from the original; " + c
		}
		out = append(out, Setting{Name: a.Name, Value: v, Comment: c})
	}
	return out, nil
}

// aloneGain finds a ranked point that sets name=v and otherwise keeps
// the original values, and returns its comparison with the baseline.
func aloneGain(res *results.Results, rk rank.Ranking, name, v string) string {
	for _, r := range rk.Ranked {
		if r.Settings[name] != v || r.VsBaseline == nil {
			continue
		}
		other := false
		for k, x := range r.Settings {
			if k != name && res.Header.Originals[k] != x {
				other = true
			}
		}
		if !other {
			return r.VsBaseline.String()
		}
	}
	return ""
}

// LiveSettings lists every knob of the profile with its current value
// (for `citune dts` without a results file).
func LiveSettings(p *soc.Profile, snap soc.Snapshot) []Setting {
	var out []Setting
	for _, k := range p.Knobs {
		ref, err := p.Map.Lookup(k.Field)
		if err != nil || ref.Field == nil {
			continue
		}
		raw, _ := snap.Value(ref.Reg.Name)
		out = append(out, Setting{Name: ref.String(), Value: strconv.FormatUint(uint64(ref.Field.Get(raw)), 10), Comment: "live value, not measured"})
	}
	return out
}
