package soc

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/citune/citune/regs"
)

// buildMap merges [[register]], [reset] and reset_unknown into a fresh
// ChipIdea map.
func (p *Profile) buildMap(l *locator, ps *problems) *regs.Map {
	m := regs.ChipIdea()
	n0 := len(ps.list)
	origin, built := p.mergeRegisters(m, l, ps)
	m.Sort()
	p.checkOffsets(m, l, ps, origin, built)
	p.applyReset(m, l, ps)
	p.applyResetSources(m, l, ps)
	// Safety net: whatever the checks above missed, the map must validate.
	if err := m.Validate(); err != nil && len(ps.list) == n0 {
		for _, e := range unjoin(err) {
			var at pos
			if name := registerInError(e.Error()); name != "" {
				if i, ok := origin[strings.ToUpper(name)]; ok {
					at = l.at(fmt.Sprintf("register[%d]", i))
				}
			}
			ps.add(at, "%v", e)
		}
	}
	return m
}

// mergeRegisters adds or replaces the [[register]] tables in m. origin
// maps an upper-case register name to the index of the [[register]]
// that defined it last; built[i] says register[i] merged cleanly.
func (p *Profile) mergeRegisters(m *regs.Map, l *locator, ps *problems) (origin map[string]int, built []bool) {
	origin = map[string]int{}
	built = make([]bool, len(p.Registers))
	for i := range p.Registers {
		spec := &p.Registers[i]
		at := fmt.Sprintf("register[%d]", i)
		old := m.Register(spec.Name)
		if old != nil {
			if j, dup := origin[strings.ToUpper(spec.Name)]; dup {
				ps.add(l.at(at+".name"), "register %s: already defined by the [[register]] at line %d", spec.Name, l.line(l.at(fmt.Sprintf("register[%d]", j))))
				continue
			}
		}
		r, ok := spec.merge(l, ps, at, old)
		if r.Name == "" {
			continue
		}
		// A register with problems still joins the map, so that knobs and
		// [reset] naming it report no follow-on errors.
		if old != nil {
			spec.IsReplace = true
			*old = r
		} else {
			m.Registers = append(m.Registers, r)
		}
		origin[strings.ToUpper(r.Name)] = i
		built[i] = ok
	}
	return origin, built
}

// checkOffsets keeps offsets unique: it blames the [[register]] that set
// the later of two equal offsets.
func (p *Profile) checkOffsets(m *regs.Map, l *locator, ps *problems, origin map[string]int, built []bool) {
	for i := range p.Registers {
		if !built[i] {
			continue
		}
		at := fmt.Sprintf("register[%d]", i)
		r := m.Register(p.Registers[i].Name)
		for k := range m.Registers {
			o := &m.Registers[k]
			if o.Offset != r.Offset || strings.EqualFold(o.Name, r.Name) {
				continue
			}
			if j, fromSpec := origin[strings.ToUpper(o.Name)]; fromSpec && j > i {
				continue
			}
			ps.add(l.at(at+".offset"), "register %s: offset %#x is already used by register %s", r.Name, r.Offset, o.Name)
		}
	}
}

// applyReset sets the reset values of [reset] and marks those of
// reset_unknown unknown; a register may be in only one of them.
func (p *Profile) applyReset(m *regs.Map, l *locator, ps *problems) {
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(p.Reset)) {
		at := "reset." + keySeg(name)
		r := m.Register(name)
		if r == nil {
			ps.add(l.at(at), "reset.%s: no such register", name)
			continue
		}
		if prev, dup := seen[strings.ToUpper(r.Name)]; dup {
			ps.add(l.at(at), "reset.%s: register %s already given as %s", name, r.Name, prev)
			continue
		}
		seen[strings.ToUpper(r.Name)] = name
		r.Reset, r.ResetKnown = p.Reset[name], true
		r.Source = "this profile's [reset] table (see its sources)"
	}
	for k, name := range p.ResetUnknown {
		at := fmt.Sprintf("reset_unknown[%d]", k)
		r := m.Register(name)
		if r == nil {
			ps.add(l.at(at), "reset_unknown: no register %q", name)
			continue
		}
		if prev, dup := seen[strings.ToUpper(r.Name)]; dup {
			ps.add(l.at(at), "reset_unknown: register %s also has a value in [reset] (reset.%s)", r.Name, prev)
			continue
		}
		r.ResetKnown = false
		r.Source = "unknown: no source gives it for this SoC"
	}
}

// applyResetSources sets the reset values' sources; per-register texts win.
func (p *Profile) applyResetSources(m *regs.Map, l *locator, ps *problems) {
	if p.ResetSource != "" {
		for i := range m.Registers {
			r := &m.Registers[i]
			if r.ResetKnown && strings.HasPrefix(r.Source, regs.SourceSDK) {
				r.Source = p.ResetSource
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.ResetSources)) {
		r := m.Register(name)
		if r == nil && p.USBMisc != nil && strings.EqualFold(name, p.USBMisc.Name) {
			continue // the usbmisc word: applied where controllers place it
		}
		if r == nil {
			ps.add(l.at("reset_sources."+name), "reset_sources.%s: no such register", name)
			continue
		}
		r.Source = p.ResetSources[name]
	}
}

// buildUSBMisc checks the [usbmisc] table and returns the register it
// describes (offset 0; each controller places it), or nil.
func (p *Profile) buildUSBMisc(l *locator, ps *problems) *regs.Register {
	if p.USBMisc == nil {
		return nil
	}
	if p.USBMisc.Name == "" {
		ps.add(l.at("usbmisc"), "[usbmisc]: missing key \"name\"")
		return nil
	}
	if p.Map.Register(p.USBMisc.Name) != nil {
		ps.add(l.at("usbmisc.name"), "[usbmisc]: name %s is a register of the controller map", p.USBMisc.Name)
		return nil
	}
	if l.has("usbmisc.offset") {
		ps.add(l.at("usbmisc.offset"), "[usbmisc]: no offset here: each controller gives the address of its word (usbmisc = 0x...)")
	}
	r, ok := p.USBMisc.merge(l, ps, "usbmisc", &regs.Register{Name: p.USBMisc.Name})
	if !ok {
		return nil
	}
	r.Window = "usbmisc"
	r.Source = "unknown: no source gives it for this SoC"
	if r.ResetKnown {
		r.Source = "this profile's [usbmisc] reset (see its sources)"
	}
	for name, src := range p.ResetSources {
		if strings.EqualFold(name, r.Name) {
			r.Source = src
		}
	}
	return &r
}

// addUSBMisc puts the usbmisc word into the map of every controller that
// gives its address.
func (p *Profile) addUSBMisc(l *locator, ps *problems, misc *regs.Register) {
	for i := range p.Controllers {
		c := &p.Controllers[i]
		at := fmt.Sprintf("controller[%d]", i)
		if c.USBMisc == 0 {
			if len(c.USBMiscOmit) > 0 {
				ps.add(l.at(at+".usbmisc_omit"), "controller %s: usbmisc_omit without usbmisc", c.Label)
			}
			if c.USBMiscReset != nil {
				ps.add(l.at(at+".usbmisc_reset"), "controller %s: usbmisc_reset without usbmisc", c.Label)
			}
			continue
		}
		switch {
		case misc == nil && p.USBMisc == nil:
			ps.add(l.at(at+".usbmisc"), "controller %s: usbmisc given but the profile has no [usbmisc] table describing the word", c.Label)
			continue
		case misc == nil || c.Map == nil:
			continue // already reported
		case c.USBMisc%4 != 0:
			ps.add(l.at(at+".usbmisc"), "controller %s: usbmisc %#x is not 32-bit aligned", c.Label, c.USBMisc)
			continue
		case c.USBMisc < c.Base+uint64(c.Size) || c.USBMisc-c.Base >= maxSpan:
			ps.add(l.at(at+".usbmisc"), "controller %s: usbmisc %#x must lie after the controller window and within %#x of its base %#x", c.Label, c.USBMisc, maxSpan, c.Base)
			continue
		}
		r := *misc
		r.Fields = nil
		for _, f := range misc.Fields {
			if !slices.ContainsFunc(c.USBMiscOmit, func(n string) bool { return strings.EqualFold(n, f.Name) }) {
				r.Fields = append(r.Fields, f)
			}
		}
		for k, n := range c.USBMiscOmit {
			if misc.Field(n) == nil {
				ps.add(l.at(fmt.Sprintf("%s.usbmisc_omit[%d]", at, k)), "controller %s: usbmisc_omit names %q, which [usbmisc] does not describe", c.Label, n)
			}
		}
		r.Offset = uint32(c.USBMisc - c.Base)
		if c.USBMiscReset != nil {
			r.Reset, r.ResetKnown = *c.USBMiscReset, true
		}
		r.Desc = strings.TrimSpace(fmt.Sprintf("%s [usbmisc word at %#08x, controller base + %#x]", r.Desc, c.USBMisc, r.Offset))
		c.Map.Registers = append(c.Map.Registers, r)
		c.Map.Sort()
	}
}

// registerInError returns the register a regs.Validate message names
// ("register X ..." or "field X.F: ...").
func registerInError(msg string) string {
	for _, prefix := range []string{"field ", "register "} {
		if rest, ok := strings.CutPrefix(msg, prefix); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return ""
			}
			name, _, _ := strings.Cut(strings.Trim(f[0], ":\""), ".")
			return name
		}
	}
	return ""
}

// merge checks one [[register]] (at: "register[2]") and returns the
// register it defines, over old when it replaces one. With a problem, ok
// is false and the register holds the fields whose bits are sane.
func (s *RegisterSpec) merge(l *locator, ps *problems, at string, old *regs.Register) (regs.Register, bool) {
	n0 := len(ps.list)
	has := func(k string) bool { return l.has(at + "." + k) }
	if s.Name == "" {
		ps.add(l.at(at), "[[register]]: missing key \"name\"")
		return regs.Register{}, false
	}
	if !regs.ValidName(s.Name) {
		ps.add(l.at(at+".name"), "register %q: name must be letters, digits and _, starting with a letter", s.Name)
	}
	var r regs.Register
	if old != nil {
		r = *old
		r.Fields = append([]regs.Field(nil), old.Fields...)
		if has("offset") {
			r.Offset = s.Offset
		}
		if has("read_only") {
			r.ReadOnly = s.ReadOnly
		}
		if has("w1c") {
			r.W1C = s.W1C
		}
		if has("desc") {
			r.Desc = s.Desc
		}
		if has("note") {
			r.Note = s.Note
		}
	} else {
		if !has("offset") {
			ps.add(l.at(at), "register %s: missing key \"offset\" (a new register needs one)", s.Name)
		}
		r = regs.Register{Name: s.Name, Offset: s.Offset, ReadOnly: s.ReadOnly, W1C: s.W1C, Desc: s.Desc, Note: s.Note}
	}
	if s.Reset != nil {
		r.Reset, r.ResetKnown = *s.Reset, true
		r.Source = "this profile's [[register]] " + s.Name + " (see its sources)"
	}
	if r.Offset%4 != 0 {
		ps.add(l.at(at+".offset"), "register %s: offset %#x is not 32-bit aligned", s.Name, r.Offset)
	}
	if old == nil || len(s.Fields) > 0 || has("field") {
		r.Fields = nil
		names := map[string]int{}
		for j := range s.Fields {
			fat := fmt.Sprintf("%s.field[%d]", at, j)
			f, bitsOK := s.Fields[j].field(l, ps, fat, s.Name)
			if !bitsOK {
				continue
			}
			if k, dup := names[strings.ToUpper(f.Name)]; dup {
				ps.add(l.at(fat+".name"), "field %s.%s: defined twice (also at line %d)", s.Name, f.Name, l.line(l.at(fmt.Sprintf("%s.field[%d]", at, k))))
			}
			names[strings.ToUpper(f.Name)] = j
			for _, g := range r.Fields {
				if g.Mask()&f.Mask() != 0 {
					ps.add(l.at(fat+".bits"), "field %s.%s: bits %s overlap field %s (bits %s)", s.Name, f.Name, f.Bits(), g.Name, g.Bits())
					break
				}
			}
			r.Fields = append(r.Fields, f)
		}
	}
	if len(ps.list) > n0 {
		return r, false
	}
	// Safety net: the register on its own must validate.
	if err := (&regs.Map{Registers: []regs.Register{r}}).Validate(); err != nil {
		for _, e := range unjoin(err) {
			ps.add(l.at(at), "%v", e)
		}
		return r, false
	}
	return r, true
}

// field checks one field of a [[register]] (at is its path). bitsOK is
// false when the field's bit range is unusable.
func (fs *FieldSpec) field(l *locator, ps *problems, at, reg string) (f regs.Field, bitsOK bool) {
	name := fs.Name
	if name == "" {
		ps.add(l.at(at), "field of register %s: missing key \"name\"", reg)
		name = "?"
	} else if !regs.ValidName(name) {
		ps.add(l.at(at+".name"), "field %s.%s: name must be letters, digits and _, starting with a letter", reg, name)
	}
	where := reg + "." + name
	if !l.has(at + ".bits") {
		ps.add(l.at(at), "field %s: missing key \"bits\"", where)
	}
	f = regs.Field{Name: fs.Name, Lsb: fs.Bits.Lsb, Width: fs.Bits.Msb - fs.Bits.Lsb + 1, Access: fs.Access,
		Knob: fs.Knob, Strict: fs.Strict, Never: fs.Never, Desc: fs.Desc}
	if fs.Bits.Msb < fs.Bits.Lsb || fs.Bits.Msb > 31 { // a Bits built in Go
		ps.add(l.at(at+".bits"), "field %s: bits %d:%d do not fit a 32-bit register", where, fs.Bits.Msb, fs.Bits.Lsb)
		return f, false
	}
	switch len(fs.Range) {
	case 0:
	case 2:
		f.HasRange, f.Min, f.Max = true, fs.Range[0], fs.Range[1]
		if f.Min > f.Max || f.Max > f.WidthMax() {
			ps.add(l.at(at+".range"), "field %s: range [%d, %d] does not fit %d bit(s) (max %d) or has min > max", where, f.Min, f.Max, f.Width, f.WidthMax())
		}
	default:
		ps.add(l.at(at+".range"), "field %s: range wants [min, max]", where)
	}
	seen := map[uint32]int{}
	for k, e := range fs.Values {
		vat := fmt.Sprintf("%s.values[%d]", at, k)
		if e.Value > f.WidthMax() {
			ps.add(l.at(vat+".value"), "field %s: value %s = %d does not fit in %d bit(s) (max %d)", where, e.Name, e.Value, f.Width, f.WidthMax())
		}
		if prev, dup := seen[e.Value]; dup {
			ps.add(l.at(vat+".value"), "field %s: value %d named twice (also at line %d)", where, e.Value, l.line(l.at(fmt.Sprintf("%s.values[%d]", at, prev))))
		}
		seen[e.Value] = k
		if e.Name != "" && !regs.ValidName(e.Name) {
			ps.add(l.at(vat+".name"), "field %s: value name %q must be letters, digits and _, starting with a letter", where, e.Name)
		}
		f.Values = append(f.Values, regs.Enum{Value: e.Value, Name: e.Name, Meaning: e.Meaning, Reserved: e.Reserved})
	}
	if f.Strict && len(f.Values) == 0 {
		ps.add(l.at(at+".strict"), "field %s: strict but no values listed", where)
	}
	return f, true
}

// registerSpec returns the index of the [[register]] named name.
func (p *Profile) registerSpec(name string) (int, bool) {
	for j := len(p.Registers) - 1; j >= 0; j-- {
		if strings.EqualFold(p.Registers[j].Name, name) {
			return j, true
		}
	}
	return 0, false
}
