package soc

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
)

// The checks of a loaded profile's controllers, identity checks and knobs.

func (p *Profile) checkControllers(l *locator, ps *problems, m *regs.Map) {
	seen := map[string]int{}
	blamed := map[string]bool{}
	for i := range p.Controllers {
		c := &p.Controllers[i]
		cc := ctrlCheck{l: l, ps: ps, c: c, at: fmt.Sprintf("controller[%d]", i), who: fmt.Sprintf("controller #%d", i+1)}
		if c.Label != "" {
			cc.who = "controller " + c.Label
		}
		cc.label(seen, i)
		cc.base()
		p.checkSize(cc, m, blamed)
		cc.roles(m)
		for j := 0; j < i; j++ {
			o := &p.Controllers[j]
			if c.Size > 0 && o.Size > 0 && c.Base < o.Base+uint64(o.Size) && o.Base < c.Base+uint64(c.Size) {
				ps.add(l.at(cc.at+".base"), "%s: window %#x+%#x overlaps controller %s (%#x+%#x)", cc.who, c.Base, c.Size, o.Label, o.Base, o.Size)
			}
		}
	}
}

// ctrlCheck is one [[controller]] being checked: at is its key path, who
// names it.
type ctrlCheck struct {
	l       *locator
	ps      *problems
	c       *Controller
	at, who string
}

func (cc ctrlCheck) has(k string) bool { return cc.l.has(cc.at + "." + k) }

// label checks that the label is there and unique (seen: lower-case
// label to index).
func (cc ctrlCheck) label(seen map[string]int, i int) {
	c, l := cc.c, cc.l
	if c.Label == "" {
		cc.ps.add(l.at(cc.at), "%s: missing key \"label\"", cc.who)
	} else if j, dup := seen[strings.ToLower(c.Label)]; dup {
		cc.ps.add(l.at(cc.at+".label"), "%s: duplicate label (also at line %d)", cc.who, l.line(l.at(fmt.Sprintf("controller[%d].label", j))))
	} else {
		seen[strings.ToLower(c.Label)] = i
	}
}

func (cc ctrlCheck) base() {
	c, l := cc.c, cc.l
	switch {
	case !cc.has("base"):
		cc.ps.add(l.at(cc.at), "%s: missing key \"base\"", cc.who)
	case c.Base%4 != 0:
		cc.ps.add(l.at(cc.at+".base"), "%s: base %#x is not 32-bit aligned", cc.who, c.Base)
	case c.Base > math.MaxInt64-uint64(c.Size):
		cc.ps.add(l.at(cc.at+".base"), "%s: base %#x + size %#x is beyond any physical address", cc.who, c.Base, c.Size)
	}
}

// checkSize checks the window's size against the map; blamed keeps a
// register outside a window size from being reported twice.
func (p *Profile) checkSize(cc ctrlCheck, m *regs.Map, blamed map[string]bool) {
	c, l, ps, at, who := cc.c, cc.l, cc.ps, cc.at, cc.who
	switch {
	case !cc.has("size"):
		ps.add(l.at(at), "%s: missing key \"size\"", who)
	case c.Size == 0 || c.Size%4 != 0:
		ps.add(l.at(at+".size"), "%s: size %#x must be a non-zero multiple of 4", who, c.Size)
	case c.Size > maxWindow:
		// A ChipIdea controller window is 0x200 bytes; a mistyped size
		// would map (and let citune write) whatever lies beyond it.
		ps.add(l.at(at+".size"), "%s: size %#x is larger than a controller window can be (at most %#x)", who, c.Size, maxWindow)
	case c.Size < m.End():
		// Blame added registers outside the window; the size if the
		// built-in map does not fit.
		sizeBlamed := false
		for _, r := range m.Registers {
			if r.Offset+4 <= c.Size {
				continue
			}
			if j, ok := p.registerSpec(r.Name); ok && (!p.Registers[j].IsReplace || l.has(fmt.Sprintf("register[%d].offset", j))) {
				key := fmt.Sprintf("%s/%d", r.Name, c.Size)
				if !blamed[key] {
					blamed[key] = true
					ps.add(l.at(fmt.Sprintf("register[%d].offset", j)), "register %s at %#x lies outside %s's window (size %#x)", r.Name, r.Offset, who, c.Size)
				}
				continue
			}
			if !sizeBlamed {
				sizeBlamed = true
				ps.add(l.at(at+".size"), "%s: size %#x does not cover register %s at %#x", who, c.Size, r.Name, r.Offset)
			}
		}
	}
}

// roles checks roles, core and dr_mode against each other, and gives
// the controller its core's map.
func (cc ctrlCheck) roles(m *regs.Map) {
	c, l, ps, at, who := cc.c, cc.l, cc.ps, cc.at, cc.who
	if len(c.Roles) == 0 {
		ps.add(l.at(at+".roles"), "%s: no roles (want \"host\" and/or \"device\")", who)
	}
	// core is optional for profiles written before core types were
	// modelled: the full (OTG) map, as before. Every embedded profile
	// gives it (TestEmbeddedProfilesDeclareCores).
	switch {
	case !cc.has("core"):
		c.Core = regs.CoreOTG
	default:
		core, err := regs.ParseCore(string(c.Core))
		if err != nil {
			ps.add(l.at(at+".core"), "%s: %v", who, err)
			break
		}
		c.Core = core
		if core == regs.CoreHostOnly && c.HasRole(regs.RoleDevice) {
			ps.add(l.at(at+".roles"), "%s: a host-only core cannot take the device role", who)
		}
	}
	c.Map = m.ForCore(c.Core)
	badRoles(l, ps, at+".roles", c.Roles, who)
	switch c.DRMode {
	case "", "otg":
	case "host":
		if c.HasRole(regs.RoleDevice) {
			ps.add(l.at(at+".roles"), "%s: dr_mode \"host\" but roles include \"device\"", who)
		}
	case "peripheral":
		if c.HasRole(regs.RoleHost) {
			ps.add(l.at(at+".roles"), "%s: dr_mode \"peripheral\" but roles include \"host\"", who)
		}
	default:
		ps.add(l.at(at+".dr_mode"), "%s: dr_mode %q (want otg, host or peripheral)", who, c.DRMode)
	}
}

// maxWindow bounds a controller window (the ChipIdea register file is
// 0x200 bytes; its usbmisc word lies within 0x1000 of the base).
const maxWindow = 0x1000

// The ChipIdea ID register's identity fields (ID 5:0 and its complement
// NID 13:8) and their value on every core citune knows.
const (
	idFieldsMask  uint32 = 0x00003f3f
	idFieldsValue uint32 = 0x00003a05
	capMask       uint32 = 0xffff00ff // CAPLENGTH and HCIVERSION
)

// identityPinned reports whether the checks prove the controller is a
// ChipIdea core: they pin ID's identity fields to the ChipIdea value, or,
// where the ID area reads zero (QEMU's model), pin CAPLENGTH and
// HCIVERSION. Anything weaker would let a mistyped base address pass and
// be written.
func identityPinned(checks []Check) bool {
	idPinned, idZero, capPinned := false, false, false
	for _, ch := range checks {
		switch strings.ToUpper(ch.Register) {
		case "ID":
			if ch.Mask&idFieldsMask == idFieldsMask {
				idPinned = idPinned || ch.Value&idFieldsMask == idFieldsValue
				idZero = idZero || ch.Value&idFieldsMask == 0
			}
		case "CAPLENGTH":
			capPinned = capPinned || ch.Mask&capMask == capMask
		}
	}
	return idPinned || idZero && capPinned
}

func (p *Profile) checkIdentity(l *locator, ps *problems, m *regs.Map) {
	if len(p.Identity) > 0 && !identityPinned(p.Identity) {
		ps.add(l.at("identity[0]"), "the identity checks do not pin the controller: check ID under a mask covering %#x (ID and NID) for %#x, or, where the ID area reads zero, CAPLENGTH under %#x (CAPLENGTH and HCIVERSION)", idFieldsMask, idFieldsValue, capMask)
	}
	for i, ch := range p.Identity {
		at := fmt.Sprintf("identity[%d]", i)
		has := func(k string) bool { return l.has(at + "." + k) }
		who := fmt.Sprintf("identity #%d", i+1)
		switch {
		case !has("register"):
			ps.add(l.at(at), "%s: missing key \"register\"", who)
		case m.Register(ch.Register) == nil:
			ps.add(l.at(at+".register"), "%s: no register %q", who, ch.Register)
		}
		switch {
		case !has("mask"):
			ps.add(l.at(at), "%s: missing key \"mask\"", who)
		case ch.Mask == 0:
			ps.add(l.at(at+".mask"), "%s (%s): mask is 0, so the check would prove nothing", who, ch.Register)
		}
		switch {
		case !has("value"):
			ps.add(l.at(at), "%s: missing key \"value\"", who)
		case ch.Mask != 0 && ch.Value&^ch.Mask != 0:
			ps.add(l.at(at+".value"), "%s (%s): value %#x has bits outside mask %#x", who, ch.Register, ch.Value, ch.Mask)
		}
	}
}

// badRoles reports every role of rs (the list at path) that is neither
// host nor device; who starts the message.
func badRoles(l *locator, ps *problems, path string, rs []regs.Role, who string) {
	for k, r := range rs {
		if !r.Valid() {
			ps.add(l.at(fmt.Sprintf("%s[%d]", path, k)), "%s: role %q (want host or device)", who, r)
		}
	}
}

// fieldRef resolves the field key of entry i (at) of the [[what]] list,
// or reports what is wrong with it.
func fieldRef(l *locator, ps *problems, m *regs.Map, what, at string, i int, field string) (ref regs.Ref, ok bool) {
	ref, err := m.Lookup(field)
	switch {
	case field == "":
		ps.add(l.at(at), "%s #%d: missing key \"field\"", what, i+1)
	case err != nil:
		ps.add(l.at(at+".field"), "%s field %q: %s", what, field, strings.TrimPrefix(err.Error(), strconv.Quote(field)+": "))
	case ref.Field == nil:
		ps.add(l.at(at+".field"), "%s field %q: names register %s; want REG.FIELD", what, field, ref.Reg.Name)
	default:
		return ref, true
	}
	return ref, false
}

func (p *Profile) checkKnobs(l *locator, ps *problems, m *regs.Map) {
	seen := map[string]int{}
	for i := range p.Knobs {
		k := &p.Knobs[i]
		at := fmt.Sprintf("knob[%d]", i)
		ref, ok := fieldRef(l, ps, m, "knob", at, i, k.Field)
		if !ok {
			continue
		}
		k.Field = ref.String()
		if j, dup := seen[k.Field]; dup {
			ps.add(l.at(at+".field"), "knob %s: listed twice (also at line %d)", k.Field, l.line(l.at(fmt.Sprintf("knob[%d]", j))))
		}
		seen[k.Field] = i
		if k.DT == "" && k.Param == "" && k.None == "" {
			ps.add(l.at(at), "knob %s: say how it persists (dt, param) or why it cannot (none)", k.Field)
		}
		roles := func(key string, rs []regs.Role, owner string) {
			if len(rs) > 0 && owner == "" {
				ps.add(l.at(at+"."+key), "knob %s: %s given without %s", k.Field, key, strings.TrimSuffix(key, "_roles"))
			}
			badRoles(l, ps, at+"."+key, rs, "knob "+k.Field+": "+key)
		}
		roles("dt_roles", k.DTRoles, k.DT)
		roles("param_roles", k.ParamRoles, k.Param)
		if k.DTMax != nil {
			switch {
			case k.DT == "":
				ps.add(l.at(at+".dt_max"), "knob %s: dt_max given without dt", k.Field)
			case *k.DTMax > ref.Field.WidthMax():
				ps.add(l.at(at+".dt_max"), "knob %s: dt_max %#x does not fit the %d-bit field", k.Field, *k.DTMax, ref.Field.Width)
			}
		}
		switch {
		case !k.ParamEncoding.Known():
			ps.add(l.at(at+".param_encoding"), "knob %s: param_encoding %q (want value, log2 or park)", k.Field, k.ParamEncoding)
		case k.ParamEncoding != "" && k.Param == "":
			ps.add(l.at(at+".param_encoding"), "knob %s: param_encoding given without param", k.Field)
		}
		if mod, par, ok := strings.Cut(k.Param, "."); k.Param != "" && (!ok || mod == "" || par == "") {
			ps.add(l.at(at+".param"), "knob %s: param %q: want module.parameter", k.Field, k.Param)
		}
		if k.Requires != "" {
			if _, err := m.ParseChange(k.Requires); err != nil {
				ps.add(l.at(at+".requires"), "knob %s: requires %q: %v", k.Field, k.Requires, err)
			}
		}
	}
}
