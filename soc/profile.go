package soc

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/textwrap"
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
	// ResetSource says where this SoC's built-in reset values come from;
	// ResetSources names the source of single registers' values.
	ResetSource  string            `toml:"reset_source"`
	ResetSources map[string]string `toml:"reset_sources"`
	Registers    []RegisterSpec    `toml:"register"`
	// USBMisc describes each controller's control word in the SoC's
	// usbmisc (non-core, USBNC) block; it joins a controller's map beyond
	// the controller window, at the address Controller.USBMisc gives.
	USBMisc *RegisterSpec `toml:"usbmisc"`
	Knobs   []Knob        `toml:"knob"`
	Sim     SimSpec       `toml:"sim"`
	Reload  Reload        `toml:"reload"`
	Board   []BoardValue  `toml:"board"` // what Linux leaves on a running board

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
	Label  string      `toml:"label"` // DT label: usbotg, usbh1, usbdev0
	Node   string      `toml:"node"`  // DT node name: usb@2184200
	Base   uint64      `toml:"base"`  // physical base address
	Size   uint32      `toml:"size"`  // window size in bytes
	IRQ    string      `toml:"irq"`   // name in /proc/interrupts: 2184200.usb
	Roles  []regs.Role `toml:"roles"` // regs.RoleHost, regs.RoleDevice
	DRMode string      `toml:"dr_mode"`
	// Core is "otg" (the default) or "host-only" (no device registers:
	// i.MX6Q UH1-UH3, the i.MX6SL/SX HSIC port).
	Core regs.Core `toml:"core"`
	// USBMisc is the physical address of the controller's control word
	// in the usbmisc block (0: none described); USBMiscReset overrides
	// the [usbmisc] reset value for this word.
	USBMisc      uint64  `toml:"usbmisc"`
	USBMiscReset *uint32 `toml:"usbmisc_reset"`
	// USBMiscOmit names [usbmisc] fields this port's word does not have
	// (the i.MX6 SDK marks UH2/UH3_CTRL bits 9:0 and 30:16 reserved on
	// the HSIC ports): they are left undecoded there, shown raw.
	USBMiscOmit []string  `toml:"usbmisc_omit"`
	Notes       string    `toml:"notes"`
	Map         *regs.Map `toml:"-" json:"-"` // the profile's, for this core (ForCore)
}

// DRRole is the role a device tree's dr_mode value fixes; ok is false
// for "otg" and "" (the port may take either).
func DRRole(drMode string) (r regs.Role, ok bool) {
	switch drMode {
	case "host":
		return regs.RoleHost, true
	case "peripheral":
		return regs.RoleDevice, true
	}
	return "", false
}

// JoinRoles joins roles with sep, as strings.Join does.
func JoinRoles(rs []regs.Role, sep string) string {
	ss := make([]string, len(rs))
	for i, r := range rs {
		ss[i] = string(r)
	}
	return strings.Join(ss, sep)
}

// HasRole reports whether the controller can take role r.
func (c *Controller) HasRole(r regs.Role) bool { return slices.Contains(c.Roles, r) }

// RegisterSpec adds a register to the base map or replaces one of the same
// name (case ignored), keeping the built-in value of every key it leaves
// out; given fields replace the whole list.
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

// Knob says how a tuning field is made persistent on this SoC.
type Knob struct {
	Field string `toml:"field" json:"field"` // REG.FIELD
	// DT property that sets the field, and the roles in which the driver
	// keeps it.
	DT      string      `toml:"dt" json:"dt,omitempty"`
	DTRoles []regs.Role `toml:"dt_roles" json:"dt_roles,omitempty"`
	DTMax   *uint32     `toml:"dt_max" json:"dt_max,omitempty"`
	// Requires names a condition for the DT property to take effect,
	// "REG.FIELD=VALUE" (burst sizes need SBUSCFG.AHBBRST=0).
	Requires string `toml:"requires" json:"requires,omitempty"`
	// Param is the kernel parameter that sets the field in ParamRoles;
	// ParamEncoding is "value" (field = param), "log2" (field = 2^param)
	// or "park" (ASPE=1 and ASP=param when param > 0).
	Param         string      `toml:"param" json:"param,omitempty"`
	ParamRoles    []regs.Role `toml:"param_roles" json:"param_roles,omitempty"`
	ParamEncoding Encoding    `toml:"param_encoding" json:"param_encoding,omitempty"`
	// None explains why the knob has no persistent mechanism.
	None   string `toml:"none" json:"none,omitempty"`
	Warn   string `toml:"warn" json:"warn,omitempty"`     // a caution set and dts repeat
	Driver string `toml:"driver" json:"driver,omitempty"` // when the driver rewrites it
	// Source cites where the rule comes from (kernel file and function,
	// DT binding, measurement).
	Source string `toml:"source" json:"source,omitempty"`
}

// SimSpec describes how the simulated controller differs from the
// register map's semantics (QEMU).
type SimSpec struct {
	ReadAsZero []string `toml:"read_as_zero"` // byte ranges "0x000-0x0FF": read 0, writes ignored
}

// Reload is the module stack that a modparam sweep reloads.
type Reload struct {
	Modules []string `toml:"modules"` // top first; loaded again in reverse
	Wait    string   `toml:"wait"`    // a path that must exist after loading
}

// Controller returns the controller with label l, or with the DT node
// name l (usb@2184200, as /proc/device-tree shows it), case ignored.
func (p *Profile) Controller(l string) (*Controller, error) {
	if i := slices.IndexFunc(p.Controllers, func(c Controller) bool { return strings.EqualFold(c.Label, l) }); i >= 0 {
		return &p.Controllers[i], nil
	}
	if i := slices.IndexFunc(p.Controllers, func(c Controller) bool { return c.Node != "" && strings.EqualFold(c.Node, l) }); i >= 0 {
		return &p.Controllers[i], nil
	}
	var ls []string
	for _, c := range p.Controllers {
		ls = append(ls, c.Label+" ("+c.Node+")")
	}
	return nil, fmt.Errorf("profile %s has no controller %q (controllers: %s)", p.Name, l, strings.Join(ls, ", "))
}

// ForController returns the profile as one controller sees it: a shallow
// copy with the controller's map and board values. Targets carry this
// view, so nothing above them knows about core types.
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
		q.Map = p.Map.ForCore(c.Core) // a controller of another profile
	}
	q.Board = nil
	for _, b := range p.Board {
		if len(b.Controllers) == 0 || slices.ContainsFunc(b.Controllers, func(l string) bool { return strings.EqualFold(l, c.Label) }) {
			q.Board = append(q.Board, b)
		}
	}
	return &q
}

// Knob returns the knob entry for a register field, or nil.
func (p *Profile) Knob(ref regs.Ref) *Knob {
	if i := slices.IndexFunc(p.Knobs, func(k Knob) bool { return strings.EqualFold(k.Field, ref.String()) }); i >= 0 {
		return &p.Knobs[i]
	}
	return nil
}

// Condition is the field change knob k takes effect only with (its
// Requires); ok is false, and c meaningless, when k is nil or names no
// field condition.
func (p *Profile) Condition(k *Knob) (c regs.Change, ok bool) {
	if k == nil || k.Requires == "" {
		return c, false
	}
	c, err := p.Map.ParseChange(k.Requires)
	return c, err == nil && c.Ref.Field != nil
}

// ErrProfile is wrapped by every profile loading or validation error.
var ErrProfile = errors.New("invalid profile")

// Parse decodes and validates a profile, strictly: TOML syntax errors,
// keys the format does not define (case-sensitive, also inside inline
// tables), values of the wrong type and every semantic problem of the
// merged register map are errors. Each reads "NAME:LINE: invalid
// profile: MESSAGE" with the line of the key at fault; all are reported
// in line order, joined with errors.Join.
func Parse(name string, data []byte) (*Profile, error) {
	// A first, untyped decode separates syntax errors (whose position the
	// parser knows) from type errors of the typed decode (reported for the
	// key's last occurrence only); the locator reads its paths.
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
		return nil, ps.err() // further checks would report the typos' consequences
	}
	controlText(ps, loc, "", generic, 0)
	if ps.failed() {
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

// controlText refuses terminal control characters (escape sequences, C1
// controls, bidirectional overrides) anywhere in a profile: its titles
// and notes reach terminals, so a shared profile file must not carry them.
func controlText(ps *problems, l *locator, path string, v any, depth int) {
	if depth > 8 {
		return // deeper than any key: unknown keys are refused before this
	}
	switch v := v.(type) {
	case string:
		if textwrap.Escape(v) != v {
			ps.add(l.at(path), "%s: %q holds a control character (a terminal escape sequence?): not allowed in a profile", path, v)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			controlText(ps, l, joinPath(path, k), v[k], depth+1)
		}
	case []map[string]any, []any:
		for i, e := range elements(v) {
			controlText(ps, l, fmt.Sprintf("%s[%d]", path, i), e, depth+1)
		}
	}
}

// maxEntries bounds a profile's array entries (see build).
const maxEntries = 1024

// build merges the profile's registers into the ChipIdea map and validates
// the whole profile into ps.
func (p *Profile) build(l *locator, ps *problems) {
	// A controller window of at most 0x800 bytes holds at most 512
	// registers: more is a broken or hostile file, refused before the
	// checks that compare registers with each other.
	if n := len(p.Registers) + len(p.Controllers) + len(p.Knobs) + len(p.Board); n > maxEntries {
		ps.add(pos{}, "%d [[register]], [[controller]], [[knob]] and [[board]] entries: a profile has at most %d", n, maxEntries)
		return
	}
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
	bad := func(c rune) bool { return !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') }
	return s != "" && !strings.ContainsFunc(s, bad)
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// DTLimit refuses a value above what the device-tree binding allows for
// the knob of ref (tx/rx-burst-size-dword: at most 0x20): it could never
// be made permanent, and the binding's limit is all any source says is
// safe. `set` and every sweep axis refuse alike.
func (p *Profile) DTLimit(ref regs.Ref, v uint32) error {
	if k := p.Knob(ref); ref.Field != nil && k != nil && k.DTMax != nil && v > *k.DTMax {
		return fmt.Errorf("%s=%d: the DT binding allows %s up to %#x (%d): refused, it could never be made permanent", ref, v, k.DT, *k.DTMax, *k.DTMax)
	}
	return nil
}
