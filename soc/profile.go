package soc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/citune/citune/regs"
)

// Profile describes one SoC: how to recognise it, its controllers, the
// register map with this SoC's reset values, and how each tuning knob is
// made persistent.
type Profile struct {
	Name string `toml:"name"`
	// Aliases are other names --profile accepts for this profile: the
	// SoCs of the family it covers (imx6dl for imx6q, imx6ull for imx6ul).
	Aliases    []string `toml:"aliases"`
	Title      string   `toml:"title"`
	Compatible []string `toml:"compatible"`
	SocID      []string `toml:"soc_id"`
	// Emulated marks a profile for an emulator (QEMU); detection prefers
	// the profile whose identity checks pass.
	Emulated bool     `toml:"emulated"`
	Sources  []string `toml:"sources"`
	Notes    string   `toml:"notes"`

	Identity    []Check      `toml:"identity"`
	Controllers []Controller `toml:"controller"`
	// Reset overrides reset values of the base map, by register name.
	Reset map[string]uint32 `toml:"reset"`
	// ResetUnknown names registers whose reset value no source gives.
	ResetUnknown []string `toml:"reset_unknown"`
	// ResetSource says where this SoC's reset values come from when they
	// are the built-in map's (i.MX6 SDK); ResetSources names the source
	// of single registers' values (those of [reset], for example).
	ResetSource  string            `toml:"reset_source"`
	ResetSources map[string]string `toml:"reset_sources"`
	Registers    []RegisterSpec    `toml:"register"`
	// USBMisc describes each controller's control word in the SoC's
	// usbmisc (non-core, USBNC) block, the second window of the profile:
	// its name, fields and reset value. Controllers say where their word
	// is (Controller.USBMisc); it joins their map at the offset of that
	// address from the controller base, beyond the controller window.
	USBMisc *RegisterSpec `toml:"usbmisc"`
	Knobs   []Knob        `toml:"knob"`
	Sim     SimSpec       `toml:"sim"`
	Reload  Reload        `toml:"reload"`

	// Board lists what Linux leaves on a running board (board.go).
	Board []BoardValue `toml:"board"`

	// File is where the profile was loaded from ("embedded:imx6q.toml" or
	// a path); Map is the validated register map.
	File string    `toml:"-"`
	Map  *regs.Map `toml:"-"`

	src []byte // the text, for the line of LoadAll's error
}

// Check is one identity test: Register & Mask must equal Value.
type Check struct {
	Register string `toml:"register"`
	Mask     uint32 `toml:"mask"`
	Value    uint32 `toml:"value"`
	Why      string `toml:"why"`
}

// Controller is one controller instance of the SoC.
type Controller struct {
	Label string `toml:"label"` // DT label: usbotg, usbh1, usbdev0
	Node  string `toml:"node"`  // DT node name: usb@2184200
	Base  uint64 `toml:"base"`  // physical base address
	Size  uint32 `toml:"size"`  // window size in bytes
	IRQ   string `toml:"irq"`   // name in /proc/interrupts: 2184200.usb
	// Roles the controller can take: "host", "device".
	Roles  []string `toml:"roles"`
	DRMode string   `toml:"dr_mode"`
	// Core is the kind of ChipIdea core: "otg" (host and device register
	// sets) or "host-only" (no device registers: i.MX6Q UH1-UH3, the
	// i.MX6SL/SX HSIC port). Optional: "otg" when left out.
	Core regs.Core `toml:"core"`
	// USBMisc is the physical address of the controller's control word
	// in the usbmisc block (0: none described); USBMiscReset overrides
	// the [usbmisc] reset value for this word.
	USBMisc      uint64  `toml:"usbmisc"`
	USBMiscReset *uint32 `toml:"usbmisc_reset"`
	Notes        string  `toml:"notes"`
	// Map is the profile's register map narrowed to this controller's
	// core (regs.Map.ForCore): only the registers the core has.
	Map *regs.Map `toml:"-" json:"-"`
}

// HasRole reports whether the controller can take role r.
func (c *Controller) HasRole(r string) bool {
	for _, x := range c.Roles {
		if x == r {
			return true
		}
	}
	return false
}

// RegisterSpec adds a register to the base map or replaces one of the same
// name (case ignored). A replacement keeps the built-in value of every key
// the profile leaves out (offset, reset, read_only, w1c, desc, note, and the
// field list when no field is given); given fields replace the whole list.
type RegisterSpec struct {
	Name     string      `toml:"name"`
	Offset   uint32      `toml:"offset"`
	Reset    *uint32     `toml:"reset"`
	ReadOnly bool        `toml:"read_only"`
	W1C      bool        `toml:"w1c"`
	Desc     string      `toml:"desc"`
	Note     string      `toml:"note"`
	Fields   []FieldSpec `toml:"field"`
	// IsReplace is set by Parse when the spec replaced a built-in register.
	IsReplace bool `toml:"-"`
}

// FieldSpec is a field in a profile.
type FieldSpec struct {
	Name   string      `toml:"name"`
	Bits   Bits        `toml:"bits"`
	Access regs.Access `toml:"access"`
	Knob   bool        `toml:"knob"`
	Strict bool        `toml:"strict"`
	Never  bool        `toml:"never"`
	Range  []uint32    `toml:"range"`
	Values []EnumSpec  `toml:"values"`
	Desc   string      `toml:"desc"`
}

// EnumSpec names a field value in a profile.
type EnumSpec struct {
	Value    uint32 `toml:"value"`
	Name     string `toml:"name"`
	Meaning  string `toml:"meaning"`
	Reserved bool   `toml:"reserved"`
}

// Bits is a bit range written "23:16" or "5".
type Bits struct{ Msb, Lsb uint }

// UnmarshalText parses "MSB:LSB" or "N".
func (b *Bits) UnmarshalText(t []byte) error {
	s := strings.TrimSpace(string(t))
	hi, lo, ok := strings.Cut(s, ":")
	if !ok {
		lo = hi
	}
	h, err1 := regs.ParseNumber(hi)
	l, err2 := regs.ParseNumber(lo)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bits %q: want \"MSB:LSB\" or \"N\"", s)
	}
	if h < l {
		return fmt.Errorf("bits %q: MSB below LSB", s)
	}
	if h > 31 {
		return fmt.Errorf("bits %q: bit %d is outside the 32-bit register", s, h)
	}
	b.Msb, b.Lsb = uint(h), uint(l)
	return nil
}

// MarshalText renders the range.
func (b Bits) MarshalText() ([]byte, error) {
	if b.Msb == b.Lsb {
		return []byte(fmt.Sprint(b.Lsb)), nil
	}
	return []byte(fmt.Sprintf("%d:%d", b.Msb, b.Lsb)), nil
}

// Knob says how a tuning field is made persistent on this SoC and when the
// Linux driver rewrites it.
type Knob struct {
	Field string `toml:"field"` // REG.FIELD
	// DT property that sets the field, and the roles in which the value
	// the driver writes from it is kept.
	DT      string   `toml:"dt"`
	DTRoles []string `toml:"dt_roles"`
	DTMax   *uint32  `toml:"dt_max"`
	// Requires names a condition for the DT property to take effect,
	// "REG.FIELD=VALUE" (burst sizes need SBUSCFG.AHBBRST=0).
	Requires string `toml:"requires"`
	// Param is the kernel parameter that sets the field in ParamRoles;
	// ParamEncoding is "value" (field = param), "log2" (field = 2^param)
	// or "park" (ASPE=1 and ASP=param when param > 0).
	Param         string   `toml:"param"`
	ParamRoles    []string `toml:"param_roles"`
	ParamEncoding Encoding `toml:"param_encoding"`
	// None explains why the knob has no persistent mechanism.
	None string `toml:"none"`
	// Warn is a caution that set and dts repeat whenever the field is
	// changed or its property emitted (values known to hurt this SoC).
	Warn string `toml:"warn"`
	// Driver says when and how the Linux driver rewrites the field.
	Driver string `toml:"driver"`
	// Source cites where the rule comes from (kernel file and function,
	// DT binding, measurement); "unknown" is shown when it is empty.
	Source string `toml:"source"`
}

// SimSpec describes how the simulated controller differs from the
// register map's semantics (QEMU: read-as-zero, write-ignored ranges).
type SimSpec struct {
	// ReadAsZero lists byte ranges "0x000-0x0FF" that read 0 and ignore
	// writes.
	ReadAsZero []string `toml:"read_as_zero"`
}

// Reload is the module stack that a modparam sweep reloads.
type Reload struct {
	// Modules to remove, top first, and to load again in reverse order.
	Modules []string `toml:"modules"`
	// Wait is what to wait for after loading (a path that must exist).
	Wait string `toml:"wait"`
}

// Controller returns the controller with label l, or with the DT node
// name l (usb@2184200, as /proc/device-tree shows it), case ignored.
func (p *Profile) Controller(l string) (*Controller, error) {
	for i := range p.Controllers {
		if strings.EqualFold(p.Controllers[i].Label, l) {
			return &p.Controllers[i], nil
		}
	}
	for i := range p.Controllers {
		if n := p.Controllers[i].Node; n != "" && strings.EqualFold(n, l) {
			return &p.Controllers[i], nil
		}
	}
	var ls []string
	for _, c := range p.Controllers {
		ls = append(ls, c.Label+" ("+c.Node+")")
	}
	return nil, fmt.Errorf("profile %s has no controller %q (controllers: %s)", p.Name, l, strings.Join(ls, ", "))
}

// ForController returns the profile as one controller sees it: a shallow
// copy whose Map is the controller's map (only the registers its core
// has). Targets carry this view, so dump, get/set, sweeps and the TUI use
// the controller's registers without knowing about core types.
func (p *Profile) ForController(c *Controller) *Profile {
	if c == nil || p.Map == nil {
		return p
	}
	q := *p
	q.Map = nil
	for i := range p.Controllers {
		if &p.Controllers[i] == c && c.Map != nil {
			q.Map = c.Map
		}
	}
	if q.Map == nil {
		// A controller of another profile (or built by hand): narrow
		// this profile's map to its core.
		q.Map = p.Map.ForCore(c.Core)
	}
	return &q
}

// Knob returns the knob entry for a register field, or nil.
func (p *Profile) Knob(ref regs.Ref) *Knob {
	for i := range p.Knobs {
		if strings.EqualFold(p.Knobs[i].Field, ref.String()) {
			return &p.Knobs[i]
		}
	}
	return nil
}

// ErrProfile is wrapped by every profile loading or validation error.
var ErrProfile = errors.New("invalid profile")

// Parse decodes and validates a profile. name is used in error messages
// ("profiles/imx6q.toml"). Every error reads "NAME:LINE: invalid profile:
// MESSAGE", where LINE is the line of the key at fault (or of its table
// header when a required key is missing) and MESSAGE names the key. All
// problems found are reported, in line order, joined with errors.Join.
//
// Parsing is strict: TOML syntax errors, keys the format does not define
// (keys are case-sensitive, also inside inline tables), values of the wrong
// type or outside their Go type, and every semantic problem of the merged
// register map are errors.
func Parse(name string, data []byte) (*Profile, error) {
	// A first, untyped decode separates TOML syntax errors (whose position
	// the parser knows) from type errors of the typed decode below (whose
	// position the decoder reports for the last occurrence of the key
	// only); the locator (locate.go) reads its paths.
	var generic map[string]any
	if _, err := toml.Decode(string(data), &generic); err != nil {
		return nil, newLocator(name, data, nil).decodeError(err, false)
	}
	loc := newLocator(name, data, generic)
	var p Profile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&p)
	if err != nil {
		return nil, loc.decodeError(err, true)
	}
	ps := &problems{name: name, loc: loc}
	loc.unknownKeys(ps, md)
	if ps.failed() {
		// Further checks would mostly report consequences of the typos.
		return nil, ps.err()
	}
	p.File = name
	p.src = data
	p.build(loc, ps)
	if ps.failed() {
		return nil, ps.err()
	}
	return &p, nil
}

// problems collects validation errors with their lines.
type problems struct {
	name string
	loc  *locator
	list []problem
}

type problem struct {
	at   pos
	line int // resolved by err
	msg  string
}

func (ps *problems) add(at pos, format string, a ...any) {
	ps.list = append(ps.list, problem{at: at, msg: fmt.Sprintf(format, a...)})
}

func (ps *problems) failed() bool { return len(ps.list) > 0 }

// err joins the problems in line order, each as "NAME:LINE: invalid
// profile: MESSAGE"; identical problems are reported once.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	for i := range ps.list {
		ps.list[i].line = max(ps.loc.line(ps.list[i].at), 1)
	}
	sort.SliceStable(ps.list, func(i, j int) bool { return ps.list[i].line < ps.list[j].line })
	var errs []error
	type key struct {
		line int
		msg  string
	}
	seen := map[key]bool{}
	for _, p := range ps.list {
		if seen[key{p.line, p.msg}] {
			continue
		}
		seen[key{p.line, p.msg}] = true
		errs = append(errs, fmt.Errorf("%s:%d: %w: %s", ps.name, p.line, ErrProfile, p.msg))
	}
	return errors.Join(errs...)
}

// build merges the profile's registers into the ChipIdea map and validates
// the whole profile, adding every problem to ps.
func (p *Profile) build(l *locator, ps *problems) {
	if p.Name == "" {
		ps.add(pos{}, "missing key \"name\"")
	} else if !validProfileName(p.Name) {
		ps.add(l.at("name"), "name %q: use lower-case letters, digits and '-'", p.Name)
	}
	for k, a := range p.Aliases {
		if !validProfileName(a) || a == p.Name {
			ps.add(l.at(fmt.Sprintf("aliases[%d]", k)), "aliases: %q: use lower-case letters, digits and '-', and not the profile's own name", a)
		}
	}
	if len(p.Controllers) == 0 {
		ps.add(pos{}, "no [[controller]] entries")
	}
	if len(p.Identity) == 0 {
		ps.add(pos{}, "no [[identity]] checks: a profile must say how to recognise its controller")
	}
	m := p.buildMap(l, ps)
	p.Map = m
	misc := p.buildUSBMisc(l, ps)
	p.checkControllers(l, ps, m)
	p.addUSBMisc(l, ps, misc)
	p.checkIdentity(l, ps, m)
	km := m
	if misc != nil {
		// Knobs may name the usbmisc word's fields; its offset differs
		// per controller, so validate against a copy that has it
		// anywhere past the map.
		km = m.Clone()
		r := *misc
		r.Offset = (m.End() + 3) &^ 3
		km.Registers = append(km.Registers, r)
	}
	p.checkKnobs(l, ps, km)
	p.checkBoard(l, ps, km) // board values may name the usbmisc word
	for k, s := range p.Sim.ReadAsZero {
		if _, _, err := ParseRange(s); err != nil {
			ps.add(l.at(fmt.Sprintf("sim.read_as_zero[%d]", k)), "sim.read_as_zero: %v", err)
		}
	}
	for k, mod := range p.Reload.Modules {
		if mod == "" || strings.ContainsAny(mod, " \t\n/") {
			ps.add(l.at(fmt.Sprintf("reload.modules[%d]", k)), "reload.modules: %q is not a module name", mod)
		}
	}
}

// buildMap merges [[register]], [reset] and reset_unknown into a fresh
// ChipIdea map. A [[register]] whose name matches a register of the map
// replaces it; keys it leaves out keep the map's values (its field list
// too, unless it gives fields).
func (p *Profile) buildMap(l *locator, ps *problems) *regs.Map {
	m := regs.ChipIdea()
	n0 := len(ps.list)
	// origin: upper-case register name -> index of the [[register]] that
	// defined it last.
	origin := map[string]int{}
	built := make([]bool, len(p.Registers))
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
		// A register with problems still joins the map, so that knobs
		// and [reset] naming it do not report follow-on errors; the
		// profile is refused anyway.
		if old != nil {
			spec.IsReplace = true
			*old = r
		} else {
			m.Registers = append(m.Registers, r)
		}
		origin[strings.ToUpper(r.Name)] = i
		built[i] = ok
	}
	m.Sort()
	// Offsets must stay unique: blame the [[register]] that set the later
	// of two equal offsets.
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
	seen := map[string]string{}
	for _, name := range sortedKeys(p.Reset) {
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
	// Reset sources: the SoC-wide one replaces the built-in text where the
	// built-in value stands; per-register texts win.
	if p.ResetSource != "" {
		for i := range m.Registers {
			r := &m.Registers[i]
			if r.ResetKnown && strings.HasPrefix(r.Source, regs.SourceSDK) {
				r.Source = p.ResetSource
			}
		}
	}
	for _, name := range sortedKeys(p.ResetSources) {
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
	// merge over an empty register of that name: no offset needed, the
	// reset value is unknown unless given.
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
		r.Fields = append([]regs.Field(nil), misc.Fields...)
		r.Offset = uint32(c.USBMisc - c.Base)
		if c.USBMiscReset != nil {
			r.Reset, r.ResetKnown = *c.USBMiscReset, true
		}
		r.Desc = strings.TrimSpace(fmt.Sprintf("%s [usbmisc word at %#08x, controller base + %#x]", r.Desc, c.USBMisc, r.Offset))
		c.Map.Registers = append(c.Map.Registers, r)
		c.Map.Sort()
	}
}

// maxSpan bounds how far past its base a controller's usbmisc word may
// be: one mapping covers both.
const maxSpan = 0x10000

// Span is the number of bytes from the controller base that its map
// reaches: the controller window, or up to its usbmisc word. Targets map
// (and images hold) this much.
func (c *Controller) Span() uint32 {
	if c.Map != nil && c.Map.End() > c.Size {
		return c.Map.End()
	}
	return c.Size
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

// merge checks one [[register]] (at is its path, "register[2]") and
// returns the register it defines, applied over old when it replaces a
// register of the map. ok is false if it found a problem; the register
// then holds the fields whose bits are sane, or no name if it has none.
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
		var used uint32
		names := map[string]int{}
		for j := range s.Fields {
			f, bitsOK := s.Fields[j].field(l, ps, fmt.Sprintf("%s.field[%d]", at, j), s.Name)
			if !bitsOK {
				continue
			}
			fat := fmt.Sprintf("%s.field[%d]", at, j)
			if k, dup := names[strings.ToUpper(f.Name)]; dup {
				ps.add(l.at(fat+".name"), "field %s.%s: defined twice (also at line %d)", s.Name, f.Name, l.line(l.at(fmt.Sprintf("%s.field[%d]", at, k))))
			}
			names[strings.ToUpper(f.Name)] = j
			if used&f.Mask() != 0 {
				for _, g := range r.Fields {
					if g.Mask()&f.Mask() != 0 {
						ps.add(l.at(fat+".bits"), "field %s.%s: bits %s overlap field %s (bits %s)", s.Name, f.Name, f.Bits(), g.Name, g.Bits())
						break
					}
				}
			}
			used |= f.Mask()
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
	if fs.Bits.Msb < fs.Bits.Lsb || fs.Bits.Msb > 31 {
		// Bits.UnmarshalText refuses these; a Bits built in Go may not.
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

func (p *Profile) checkControllers(l *locator, ps *problems, m *regs.Map) {
	seen := map[string]int{}
	blamed := map[string]bool{}
	for i := range p.Controllers {
		c := &p.Controllers[i]
		at := fmt.Sprintf("controller[%d]", i)
		has := func(k string) bool { return l.has(at + "." + k) }
		who := fmt.Sprintf("controller #%d", i+1)
		if c.Label != "" {
			who = "controller " + c.Label
		}
		if c.Label == "" {
			ps.add(l.at(at), "%s: missing key \"label\"", who)
		} else if j, dup := seen[strings.ToLower(c.Label)]; dup {
			ps.add(l.at(at+".label"), "%s: duplicate label (also at line %d)", who, l.line(l.at(fmt.Sprintf("controller[%d].label", j))))
		} else {
			seen[strings.ToLower(c.Label)] = i
		}
		switch {
		case !has("base"):
			ps.add(l.at(at), "%s: missing key \"base\"", who)
		case c.Base%4 != 0:
			ps.add(l.at(at+".base"), "%s: base %#x is not 32-bit aligned", who, c.Base)
		case c.Base > math.MaxInt64-uint64(c.Size):
			ps.add(l.at(at+".base"), "%s: base %#x + size %#x is beyond any physical address", who, c.Base, c.Size)
		}
		switch {
		case !has("size"):
			ps.add(l.at(at), "%s: missing key \"size\"", who)
		case c.Size == 0 || c.Size%4 != 0:
			ps.add(l.at(at+".size"), "%s: size %#x must be a non-zero multiple of 4", who, c.Size)
		case c.Size > maxWindow:
			// A ChipIdea controller window is 0x200 bytes; a mistyped size
			// would map (and let citune write) whatever lies beyond it.
			ps.add(l.at(at+".size"), "%s: size %#x is larger than a controller window can be (at most %#x)", who, c.Size, maxWindow)
		case c.Size < m.End():
			// Blame added registers that lie outside the window; the
			// size itself if the built-in map does not fit.
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
		if len(c.Roles) == 0 {
			ps.add(l.at(at+".roles"), "%s: no roles (want \"host\" and/or \"device\")", who)
		}
		// core is optional for profiles written before core types were
		// modelled: without it the controller keeps the full (OTG) map,
		// which is what citune showed before. Every embedded profile
		// gives it (TestEmbeddedProfilesDeclareCores).
		switch {
		case !has("core"):
			c.Core = regs.CoreOTG
		default:
			core, err := regs.ParseCore(string(c.Core))
			if err != nil {
				ps.add(l.at(at+".core"), "%s: %v", who, err)
				break
			}
			c.Core = core
			if core == regs.CoreHostOnly && c.HasRole("device") {
				ps.add(l.at(at+".roles"), "%s: a host-only core cannot take the device role", who)
			}
		}
		c.Map = m.ForCore(c.Core)
		for k, r := range c.Roles {
			if r != "host" && r != "device" {
				ps.add(l.at(fmt.Sprintf("%s.roles[%d]", at, k)), "%s: role %q (want host or device)", who, r)
			}
		}
		switch c.DRMode {
		case "", "otg":
		case "host":
			if c.HasRole("device") {
				ps.add(l.at(at+".roles"), "%s: dr_mode \"host\" but roles include \"device\"", who)
			}
		case "peripheral":
			if c.HasRole("host") {
				ps.add(l.at(at+".roles"), "%s: dr_mode \"peripheral\" but roles include \"host\"", who)
			}
		default:
			ps.add(l.at(at+".dr_mode"), "%s: dr_mode %q (want otg, host or peripheral)", who, c.DRMode)
		}
		for j := 0; j < i; j++ {
			o := &p.Controllers[j]
			if c.Size > 0 && o.Size > 0 && c.Base < o.Base+uint64(o.Size) && o.Base < c.Base+uint64(c.Size) {
				ps.add(l.at(at+".base"), "%s: window %#x+%#x overlaps controller %s (%#x+%#x)", who, c.Base, c.Size, o.Label, o.Base, o.Size)
			}
		}
	}
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

func (p *Profile) checkKnobs(l *locator, ps *problems, m *regs.Map) {
	seen := map[string]int{}
	for i := range p.Knobs {
		k := &p.Knobs[i]
		at := fmt.Sprintf("knob[%d]", i)
		if k.Field == "" {
			ps.add(l.at(at), "knob #%d: missing key \"field\"", i+1)
			continue
		}
		ref, err := m.Lookup(k.Field)
		switch {
		case err != nil:
			ps.add(l.at(at+".field"), "knob field %q: %s", k.Field, strings.TrimPrefix(err.Error(), strconv.Quote(k.Field)+": "))
			continue
		case ref.Field == nil:
			ps.add(l.at(at+".field"), "knob field %q: names register %s; want REG.FIELD", k.Field, ref.Reg.Name)
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
		roles := func(key string, rs []string, owner string) {
			if len(rs) > 0 && owner == "" {
				ps.add(l.at(at+"."+key), "knob %s: %s given without %s", k.Field, key, strings.TrimSuffix(key, "_roles"))
			}
			for n, r := range rs {
				if r != "host" && r != "device" {
					ps.add(l.at(fmt.Sprintf("%s.%s[%d]", at, key, n)), "knob %s: %s: role %q (want host or device)", k.Field, key, r)
				}
			}
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

// ParseRange parses "0x000-0x0FF" (inclusive).
func ParseRange(s string) (lo, hi uint32, err error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, fmt.Errorf("range %q: want LO-HI", s)
	}
	lo, err1 := regs.ParseNumber(a)
	hi, err2 := regs.ParseNumber(b)
	if err1 != nil || err2 != nil || hi < lo {
		return 0, 0, fmt.Errorf("range %q: want LO-HI with LO <= HI", s)
	}
	return lo, hi, nil
}

func validProfileName(s string) bool {
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return s != ""
}

func sortedKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// LoadFS loads the profile file name from fsys.
func LoadFS(fsys fs.FS, name string) (*Profile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Lookup returns the profile of ps named name or having it as an alias.
func Lookup(ps []*Profile, name string) *Profile {
	for _, p := range ps {
		if strings.EqualFold(p.Name, name) {
			return p
		}
	}
	for _, p := range ps {
		for _, a := range p.Aliases {
			if strings.EqualFold(a, name) {
				return p
			}
		}
	}
	return nil
}

// LoadAll loads every *.toml profile in fsys, sorted by name.
func LoadAll(fsys fs.FS) ([]*Profile, error) {
	names, err := fs.Glob(fsys, "*.toml")
	if err != nil {
		return nil, err
	}
	var ps []*Profile
	var errs []error
	for _, n := range names {
		p, err := LoadFS(fsys, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if path.Base(n) != p.Name+".toml" {
			errs = append(errs, fmt.Errorf("%s:%d: %w: name %q does not match the file name (want name = %q)", n, newLocator(n, p.src, nil).line(pos{path: "name"}), ErrProfile, p.Name, strings.TrimSuffix(path.Base(n), ".toml")))
			continue
		}
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	// A name or alias must lead to one profile.
	owner := map[string]string{}
	for _, p := range ps {
		owner[p.Name] = p.Name
	}
	for _, p := range ps {
		for _, a := range p.Aliases {
			if o, dup := owner[a]; dup && o != p.Name {
				errs = append(errs, fmt.Errorf("%s: %w: alias %q is already the name or an alias of profile %s", p.File, ErrProfile, a, o))
				continue
			}
			owner[a] = p.Name
		}
	}
	return ps, errors.Join(errs...)
}
