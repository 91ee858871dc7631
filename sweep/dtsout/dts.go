package dtsout

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

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
	// Role is regs.RoleHost, regs.RoleDevice or "" (unknown: both roles'
	// mechanisms are given).
	Role     regs.Role
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
	Label         string
	Header        []string
	Props, Params []DTSLine
	Notes         []string
	// Unmade are the settings that got neither a property nor a kernel
	// parameter, each as "NAME: why" (the note's text): what cannot be
	// made permanent this way.
	Unmade []string `json:"-"`
}

// DTSLine is a property ("ahb-burst-config = <0x0>") or a kernel
// parameter ("ehci_hcd.log2_irq_thresh=3") with its comment.
type DTSLine struct {
	Text    string `json:"text"`
	Comment string `json:"comment,omitempty"`
}

// BuildDTS decides, for every setting, how the kernel would take it: a
// device-tree property where the driver keeps the value in the
// controller's role (burst sizes only with ahb-burst-config = <0x0>,
// values above the binding's maximum refused), a kernel parameter where a
// module parameter sets it (ITC = 2^N, park), or a note.
func BuildDTS(in DTSInput) DTS {
	// The controller's view: its core's registers and its usbmisc word.
	p := in.Profile.ForController(in.Controller)
	b := &dtsBuilder{in: in, d: DTS{Label: in.Controller.Label, Header: in.Header}, p: p, m: p.Map, given: map[string]string{}}
	// A dt: axis's setting names its property: it is the field it sets.
	in.Settings = slices.Clone(in.Settings)
	for i, s := range in.Settings {
		if k := KnobOfDT(p, s.Name); k != nil {
			in.Settings[i].Name = k.Field
		}
		b.given[in.Settings[i].Name] = s.Value
	}
	for _, s := range in.Settings {
		notes := len(b.d.Notes)
		b.made = false
		b.setting(s)
		if !b.made {
			// The note names the field and says why; without one, say it.
			why := s.Name + ": no device-tree property or kernel parameter"
			if len(b.d.Notes) > notes {
				why = b.d.Notes[len(b.d.Notes)-1]
			}
			b.d.Unmade = append(b.d.Unmade, why)
		}
	}
	b.moduleWideNotes()
	return b.d
}

// dtsBuilder is BuildDTS's state: the fragment so far and what each
// setting is decided against.
type dtsBuilder struct {
	in    DTSInput
	d     DTS
	p     *soc.Profile
	m     *regs.Map
	given map[string]string
	// parkDone: ASP and ASPE make one ehci_hcd.park line, emitted once.
	// made: the setting being decided got its own property, kernel
	// parameter or permanent absence, not only a condition's or a note.
	parkDone, made bool
}

// value is a field's value: the setting's where one is given, else the
// snapshot's.
func (b *dtsBuilder) value(ref regs.Ref) uint32 {
	if v, ok := b.given[ref.String()]; ok {
		n, _ := strconv.ParseUint(v, 10, 32)
		return uint32(n)
	}
	raw, _ := b.in.Snapshot.Value(ref.Reg.Name)
	return ref.Field.Get(raw)
}

func (b *dtsBuilder) roleOK(roles []regs.Role) bool {
	return b.in.Role == "" || slices.Contains(roles, b.in.Role)
}

func (b *dtsBuilder) roleNote(roles []regs.Role) string {
	if b.in.Role == "" && len(roles) > 0 {
		return fmt.Sprintf(" (%s role)", soc.JoinRoles(roles, ", "))
	}
	return ""
}

func (b *dtsBuilder) hasProp(name string) bool {
	return slices.ContainsFunc(b.d.Props, func(l DTSLine) bool { return strings.HasPrefix(l.Text, name+" ") || l.Text == name })
}

func (b *dtsBuilder) note(format string, args ...any) {
	b.d.Notes = append(b.d.Notes, fmt.Sprintf(format, args...))
}

// setting decides how one setting is made permanent.
func (b *dtsBuilder) setting(s Setting) {
	switch {
	case strings.HasPrefix(s.Name, "/"):
		b.note("%s = %s: a file, not a device-tree property; write it at boot (a udev rule or tmpfiles.d entry). %s", s.Name, s.Value, s.Comment)
		return
	case isModParam(b.m, s.Name):
		mod, param, _ := strings.Cut(s.Name, ".")
		b.made = true
		b.d.Params = append(b.d.Params, DTSLine{Text: s.Name + "=" + s.Value,
			Comment: joinComment(s.Comment, fmt.Sprintf("or `options %s %s=%s` in /etc/modprobe.d when %s is a module", mod, param, s.Value, mod))})
		return
	}
	ref, err := b.m.Lookup(s.Name)
	if err != nil || ref.Field == nil {
		b.note("%s = %s: not a field of %s's register map", s.Name, s.Value, b.p.Name)
		return
	}
	v := b.value(ref)
	k := b.p.Knob(ref)
	if k == nil {
		b.note("%s = %d: profile %s names no device-tree property or kernel parameter for this field. %s", ref, v, b.p.Name, s.Comment)
		return
	}
	cond, ok := b.condition(ref, v, k)
	if !ok {
		return
	}
	handled := false
	if k.DT != "" && b.roleOK(k.DTRoles) {
		handled = true
		b.dtProp(s, ref, v, k, cond)
	}
	if k.Param != "" && b.roleOK(k.ParamRoles) {
		handled = true
		b.kernelParam(s, ref, v, k)
	}
	if !handled {
		b.noMechanism(ref, v, k)
	}
}

// condition is the change the knob takes effect only with (nil when
// none); ok is false, with a note, when the snapshot or the settings
// leave that condition unmet.
func (b *dtsBuilder) condition(ref regs.Ref, v uint32, k *soc.Knob) (cond *regs.Change, ok bool) {
	c, ok := b.p.Condition(k)
	if !ok {
		return nil, true
	}
	if b.value(c.Ref) != c.Value {
		b.note("%s = %d is not emitted: it takes effect only with %s, and that field is %d here", ref, v, c, b.value(c.Ref))
		return nil, false
	}
	return &c, true
}

// dtProp emits the knob's device-tree property, and the property of its
// condition first when that is not in the fragment yet.
func (b *dtsBuilder) dtProp(s Setting, ref regs.Ref, v uint32, k *soc.Knob, cond *regs.Change) {
	if k.Warn != "" && !slices.Contains(b.d.Notes, "WARNING: "+k.Warn) {
		b.d.Notes = append(b.d.Notes, "WARNING: "+k.Warn)
	}
	on, isBool := boolProp(k.DT)
	switch {
	case isBool && v == on:
		b.made = true
		b.d.Props = append(b.d.Props, DTSLine{Text: k.DT, Comment: joinComment(fmt.Sprintf("%s=%#x", ref.Field.Name, v)+b.roleNote(k.DTRoles), s.Comment)})
	case isBool && v == 0:
		b.made = true
		b.note("%s = 0: leave %s out of the tree (absent means 0)", ref, k.DT)
	case isBool:
		b.note("%s = %#x cannot be set from the device tree: %s sets %#x or nothing", ref, v, k.DT, on)
	case k.DTMax != nil && v > *k.DTMax:
		b.note("%s = %#x is not emitted: the binding allows %s up to %#x", ref, v, k.DT, *k.DTMax)
	default:
		b.made = true
		b.d.Props = append(b.d.Props, DTSLine{Text: fmt.Sprintf("%s = <%#x>", k.DT, v), Comment: joinComment(fmt.Sprintf("%s=%d", ref.Field.Name, v)+b.roleNote(k.DTRoles), s.Comment)})
	}
	if cond != nil {
		if ck := b.p.Knob(cond.Ref); ck != nil && ck.DT != "" && !b.hasProp(ck.DT) {
			b.d.Props = append([]DTSLine{{Text: fmt.Sprintf("%s = <%#x>", ck.DT, cond.Value),
				Comment: fmt.Sprintf("%s=%d: %s takes effect only with it", cond.Ref.Field.Name, cond.Value, k.DT)}}, b.d.Props...)
		}
	}
}

// kernelParam emits the knob's kernel parameter in its encoding.
func (b *dtsBuilder) kernelParam(s Setting, ref regs.Ref, v uint32, k *soc.Knob) {
	switch k.ParamEncoding {
	case soc.EncodingLog2:
		n, ok := k.ParamEncoding.ParamFor(v)
		if !ok {
			b.note("%s = %d cannot be set through %s, which gives %s = 2^N for N = 0..6", ref, v, k.Param, ref.Field.Name)
			return
		}
		b.made = true
		b.d.Params = append(b.d.Params, DTSLine{Text: fmt.Sprintf("%s=%d", k.Param, n),
			Comment: joinComment(fmt.Sprintf("%s=%d", ref.Field.Name, v)+b.roleNote(k.ParamRoles), s.Comment)})
	case soc.EncodingPark:
		b.made = true // ASP and ASPE share one line
		if b.parkDone {
			return
		}
		b.parkDone = true
		asp, aspe := parkFields(b.m, b.value)
		n := uint32(0)
		if aspe == 1 {
			n = asp
		}
		c := fmt.Sprintf("ASPE=%d ASP=%d", aspe, asp)
		if aspe == 1 && asp == 0 {
			c += ": ehci-hcd parks only with 1-3 packets; 0 turns park off"
		}
		b.d.Params = append(b.d.Params, DTSLine{Text: fmt.Sprintf("%s=%d", k.Param, n), Comment: joinComment(c+b.roleNote(k.ParamRoles), s.Comment)})
	default:
		b.made = true
		b.d.Params = append(b.d.Params, DTSLine{Text: fmt.Sprintf("%s=%d", k.Param, v), Comment: joinComment(fmt.Sprintf("%s=%d", ref.Field.Name, v)+b.roleNote(k.ParamRoles), s.Comment)})
	}
}

// noMechanism notes a knob with no mechanism in the controller's role.
func (b *dtsBuilder) noMechanism(ref regs.Ref, v uint32, k *soc.Knob) {
	switch {
	case k.None != "":
		b.note("%s = %d: %s", ref, v, k.None)
	case k.DT != "":
		b.note("%s = %d: %s is kept only in %s role, and this controller runs as %s. %s", ref, v, k.DT, soc.JoinRoles(k.DTRoles, ", "), b.in.Role, k.Driver)
	default:
		b.note("%s = %d: no mechanism in %s role. %s", ref, v, b.in.Role, k.Driver)
	}
}

// moduleWideNotes say, for every module parameter emitted, which
// controllers it changes: module parameters are module-wide.
func (b *dtsBuilder) moduleWideNotes() {
	seenParam := map[string]bool{}
	for _, l := range b.d.Params {
		name, _, _ := strings.Cut(l.Text, "=")
		if seenParam[name] || !strings.Contains(name, ".") {
			continue
		}
		seenParam[name] = true
		us, ok := b.in.ParamUsers[name]
		if !ok {
			us = soc.ParamScope(nil, b.p, name)
		}
		if len(us) > 0 {
			b.note("%s is module-wide: it changes every EHCI controller in host role, not only %s: %s", name, b.in.Controller.Label, soc.ParamUsersString(us))
		}
	}
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
	d.props(&b, "\t")
	b.WriteString("};\n")
	block(&b, "Kernel command line (not device tree):", mapf(d.Params, func(p DTSLine) string {
		if p.Comment != "" {
			return p.Text + "\t" + safe(p.Comment)
		}
		return p.Text
	}))
	block(&b, "Notes:", notes(d.Notes))
	return b.String()
}

// props writes the properties after indent, each with its comment.
func (d DTS) props(b *strings.Builder, indent string) {
	if len(d.Props) == 0 {
		b.WriteString(indent + "/* no device-tree property to change */\n")
	}
	for _, p := range d.Props {
		fmt.Fprintf(b, "%s%s;", indent, p.Text)
		if p.Comment != "" {
			fmt.Fprintf(b, "\t/* %s */", safe(p.Comment))
		}
		b.WriteString("\n")
	}
}

// block writes a comment of the lines under head, after an empty line;
// nothing without lines.
func block(b *strings.Builder, head string, lines []string) {
	if len(lines) == 0 {
		return
	}
	b.WriteString("\n/*\n * " + head + "\n")
	for _, l := range lines {
		b.WriteString(" *   " + l + "\n")
	}
	b.WriteString(" */\n")
}

// notes are the notes made safe for a comment.
func notes(ns []string) []string {
	return mapf(ns, func(n string) string { return safe(strings.TrimSpace(n)) })
}

func mapf[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// KernelParams returns just the kernel parameters, space-separated.
func (d DTS) KernelParams() string {
	return strings.Join(mapf(d.Params, func(p DTSLine) string { return p.Text }), " ")
}

// Permanence is the verdict's test of what can be made permanent on the
// controller of in: of a point's changes, those BuildDTS gives neither a
// property nor a kernel parameter, with why. The answers are kept, so each
// point's fragment is built once per sweep, not once per visit.
func Permanence(in DTSInput) func(changes map[string]string) []string {
	var mu sync.Mutex
	seen := map[string][]string{}
	return func(changes map[string]string) []string {
		x := in
		x.Settings = nil
		var key strings.Builder
		for _, k := range slices.Sorted(maps.Keys(changes)) {
			x.Settings = append(x.Settings, Setting{Name: k, Value: changes[k]})
			fmt.Fprintf(&key, "%q=%q ", k, changes[k])
		}
		mu.Lock()
		defer mu.Unlock()
		if u, ok := seen[key.String()]; ok {
			return u
		}
		u := BuildDTS(x).Unmade
		seen[key.String()] = u
		return u
	}
}

// WinnerSettings turns a results file's verdict into settings for
// BuildDTS: with "apply", every swept setting at the recommended value,
// the changes commented with the gain (and that of a point changing it
// alone), the others as kept; else every setting at its original value.
func WinnerSettings(res *results.Results, rk rank.Ranking) ([]Setting, error) {
	v := rk.Verdict
	if len(rk.Ranked) == 0 {
		return nil, fmt.Errorf("no point was ranked in the results: nothing to make permanent")
	}
	if v.Kind != rank.VerdictApply {
		return originalSettings(res, v)
	}
	gain := "measured " + rank.VsString(v.Vs)
	var out []Setting
	for _, a := range res.Header.Plan.Axes {
		val, ok := v.Settings[a.Name]
		if !ok {
			continue
		}
		c := gain
		if _, changed := v.Changes[a.Name]; !changed {
			c = "unchanged from the original"
			if slices.Contains(v.NoEffect, a.Name) {
				c += " (no measurable effect among the best points)"
			}
		} else if alone := aloneGain(res, rk, a.Name, val); alone != "" {
			c += "; alone " + alone
		}
		out = append(out, Setting{Name: a.Name, Value: val, Comment: c})
	}
	return out, nil
}

// originalSettings is WinnerSettings without a change to make: every
// swept setting at its original value.
func originalSettings(res *results.Results, v rank.Verdict) ([]Setting, error) {
	why := "original value: the verdict is to keep it"
	if v.Kind == rank.VerdictNone {
		why = "original value: no decision yet"
	}
	var out []Setting
	for _, a := range res.Header.Plan.Axes {
		val, ok := res.Header.Originals[a.Name]
		if !ok {
			continue
		}
		out = append(out, Setting{Name: a.Name, Value: val, Comment: why})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the verdict keeps the original settings, and the results file does not record them: nothing to write")
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
	return liveSettings(p, snap, nil)
}

// TargetSettings is LiveSettings for target t: a value that is the
// profile's assumption on the simulator or an image (soc.AssumedValue)
// says so instead of passing for a live value.
func TargetSettings(t *soc.Target, snap soc.Snapshot) []Setting {
	return liveSettings(t.Profile, snap, t)
}

func liveSettings(p *soc.Profile, snap soc.Snapshot, t *soc.Target) []Setting {
	var out []Setting
	for _, k := range p.Knobs {
		ref, err := p.Map.Lookup(k.Field)
		if err != nil || ref.Field == nil {
			continue
		}
		raw, _ := snap.Value(ref.Reg.Name)
		v := ref.Field.Get(raw)
		c := "live value, not measured"
		if t.AssumedValue(ref, v) != "" {
			c = "assumed value, not read from silicon (the profile's board value has no source)"
		}
		out = append(out, Setting{Name: ref.String(), Value: strconv.FormatUint(uint64(v), 10), Comment: c})
	}
	return out
}
