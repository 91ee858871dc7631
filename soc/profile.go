package soc

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/citune/citune/regs"
)

// Profile describes one SoC: how to recognise it, its controllers, the
// register map with this SoC's reset values, and how each tuning knob is
// made persistent.
type Profile struct {
	Name       string   `toml:"name"`
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
	ResetUnknown []string       `toml:"reset_unknown"`
	Registers    []RegisterSpec `toml:"register"`
	Knobs        []Knob         `toml:"knob"`
	Sim          SimSpec        `toml:"sim"`
	Reload       Reload         `toml:"reload"`

	// File is where the profile was loaded from ("embedded:imx6q.toml" or
	// a path); Map is the validated register map.
	File string    `toml:"-"`
	Map  *regs.Map `toml:"-"`
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
	Notes  string   `toml:"notes"`
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
// name.
type RegisterSpec struct {
	Name      string      `toml:"name"`
	Offset    uint32      `toml:"offset"`
	Reset     *uint32     `toml:"reset"`
	ReadOnly  bool        `toml:"read_only"`
	W1C       bool        `toml:"w1c"`
	Desc      string      `toml:"desc"`
	Note      string      `toml:"note"`
	Fields    []FieldSpec `toml:"field"`
	IsReplace bool        `toml:"-"`
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
	ParamEncoding string   `toml:"param_encoding"`
	// None explains why the knob has no persistent mechanism.
	None string `toml:"none"`
	// Driver says when and how the Linux driver rewrites the field.
	Driver string `toml:"driver"`
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

// Controller returns the controller with label l (case ignored).
func (p *Profile) Controller(l string) (*Controller, error) {
	for i := range p.Controllers {
		if strings.EqualFold(p.Controllers[i].Label, l) {
			return &p.Controllers[i], nil
		}
	}
	var ls []string
	for _, c := range p.Controllers {
		ls = append(ls, c.Label)
	}
	return nil, fmt.Errorf("profile %s has no controller %q (controllers: %s)", p.Name, l, strings.Join(ls, ", "))
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
// ("profiles/imx6q.toml"); every error names it and, where it can, the line.
func Parse(name string, data []byte) (*Profile, error) {
	var p Profile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&p)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %w: %s", name, pe.Position.Line, ErrProfile, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w: %v", name, ErrProfile, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var errs []error
		for _, k := range und {
			errs = append(errs, fmt.Errorf("%s:%d: %w: unknown key %q", name, keyLine(data, k), ErrProfile, k.String()))
		}
		return nil, errors.Join(errs...)
	}
	p.File = name
	loc := locator{name: name, data: data}
	if err := p.build(loc); err != nil {
		return nil, err
	}
	return &p, nil
}

// build merges the profile's registers into the ChipIdea map and validates
// the whole profile.
func (p *Profile) build(loc locator) error {
	var errs []error
	add := func(line int, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %w: %s", loc.name, line, ErrProfile, fmt.Sprintf(format, a...)))
	}
	if p.Name == "" {
		add(1, "missing key \"name\"")
	} else if !validProfileName(p.Name) {
		add(loc.line("name"), "name %q: use lower-case letters, digits and '-'", p.Name)
	}
	if len(p.Controllers) == 0 {
		add(1, "no [[controller]] entries")
	}
	m := regs.ChipIdea()
	for i := range p.Registers {
		spec := &p.Registers[i]
		line := loc.nth("[[register]]", i)
		r, err := spec.register()
		if err != nil {
			add(line, "register %s: %v", spec.Name, err)
			continue
		}
		if old := m.Register(r.Name); old != nil {
			if spec.Reset == nil {
				r.Reset, r.ResetKnown = old.Reset, old.ResetKnown
			}
			*old = r
		} else {
			m.Registers = append(m.Registers, r)
		}
	}
	m.Sort()
	for _, name := range sortedKeys(p.Reset) {
		r := m.Register(name)
		if r == nil {
			add(loc.line(name), "[reset] %s: no such register", name)
			continue
		}
		r.Reset, r.ResetKnown = p.Reset[name], true
	}
	for _, name := range p.ResetUnknown {
		r := m.Register(name)
		if r == nil {
			add(loc.line("reset_unknown"), "reset_unknown: no register %s", name)
			continue
		}
		r.ResetKnown = false
	}
	if err := m.Validate(); err != nil {
		for _, e := range unjoin(err) {
			add(loc.lineOfError(e.Error()), "%v", e)
		}
	}
	p.Map = m
	seen := map[string]bool{}
	for i := range p.Controllers {
		c := &p.Controllers[i]
		line := loc.nth("[[controller]]", i)
		switch {
		case c.Label == "":
			add(line, "controller %d: missing label", i+1)
		case seen[strings.ToLower(c.Label)]:
			add(line, "controller %s: duplicate label", c.Label)
		}
		seen[strings.ToLower(c.Label)] = true
		if c.Size < m.End() || c.Size%4 != 0 {
			add(line, "controller %s: size %#x must be a multiple of 4 and cover the register map (%#x bytes)", c.Label, c.Size, m.End())
		}
		if c.Base%4 != 0 {
			add(line, "controller %s: base %#x is not 32-bit aligned", c.Label, c.Base)
		}
		for _, r := range c.Roles {
			if r != "host" && r != "device" {
				add(line, "controller %s: role %q (want host or device)", c.Label, r)
			}
		}
		if len(c.Roles) == 0 {
			add(line, "controller %s: no roles", c.Label)
		}
	}
	if len(p.Identity) == 0 {
		add(1, "no [[identity]] checks: a profile must say how to recognise its controller")
	}
	for i, ch := range p.Identity {
		line := loc.nth("[[identity]]", i)
		r := m.Register(ch.Register)
		switch {
		case r == nil:
			add(line, "identity %d: no register %q", i+1, ch.Register)
		case ch.Mask == 0:
			add(line, "identity %d: mask is 0 (the check would prove nothing)", i+1)
		case ch.Value&^ch.Mask != 0:
			add(line, "identity %d: value %#x has bits outside mask %#x", i+1, ch.Value, ch.Mask)
		}
	}
	for i := range p.Knobs {
		k := &p.Knobs[i]
		line := loc.nth("[[knob]]", i)
		ref, err := m.Lookup(k.Field)
		if err != nil || ref.Field == nil {
			add(line, "knob %q: not a REG.FIELD of the map", k.Field)
			continue
		}
		k.Field = ref.String()
		if k.DT == "" && k.Param == "" && k.None == "" {
			add(line, "knob %s: say how it persists (dt, param) or why it cannot (none)", k.Field)
		}
		for _, r := range append(append([]string{}, k.DTRoles...), k.ParamRoles...) {
			if r != "host" && r != "device" {
				add(line, "knob %s: role %q (want host or device)", k.Field, r)
			}
		}
		switch k.ParamEncoding {
		case "", "value", "log2", "park":
		default:
			add(line, "knob %s: param_encoding %q (want value, log2 or park)", k.Field, k.ParamEncoding)
		}
		if k.Param != "" && !strings.Contains(k.Param, ".") {
			add(line, "knob %s: param %q: want module.parameter", k.Field, k.Param)
		}
		if k.Requires != "" {
			if _, err := m.ParseChange(k.Requires); err != nil {
				add(line, "knob %s: requires %q: %v", k.Field, k.Requires, err)
			}
		}
	}
	for _, s := range p.Sim.ReadAsZero {
		if _, _, err := ParseRange(s); err != nil {
			add(loc.line("read_as_zero"), "sim.read_as_zero: %v", err)
		}
	}
	return errors.Join(errs...)
}

func (s *RegisterSpec) register() (regs.Register, error) {
	r := regs.Register{Name: s.Name, Offset: s.Offset, ReadOnly: s.ReadOnly, W1C: s.W1C, Desc: s.Desc, Note: s.Note}
	if s.Reset != nil {
		r.Reset, r.ResetKnown = *s.Reset, true
	}
	for _, fs := range s.Fields {
		f := regs.Field{Name: fs.Name, Lsb: fs.Bits.Lsb, Width: fs.Bits.Msb - fs.Bits.Lsb + 1, Access: fs.Access,
			Knob: fs.Knob, Strict: fs.Strict, Never: fs.Never, Desc: fs.Desc}
		switch len(fs.Range) {
		case 0:
		case 2:
			f.HasRange, f.Min, f.Max = true, fs.Range[0], fs.Range[1]
		default:
			return r, fmt.Errorf("field %s: range wants [min, max]", fs.Name)
		}
		for _, e := range fs.Values {
			f.Values = append(f.Values, regs.Enum{Value: e.Value, Name: e.Name, Meaning: e.Meaning, Reserved: e.Reserved})
		}
		r.Fields = append(r.Fields, f)
	}
	return r, nil
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

// locator finds approximate line numbers of keys in the profile text, so
// that semantic errors (found after decoding) can name a line.
type locator struct {
	name string
	data []byte
}

// nth returns the line of the n-th (0-based) occurrence of a table header.
func (l locator) nth(header string, n int) int {
	for i, line := range strings.Split(string(l.data), "\n") {
		if strings.TrimSpace(line) == header {
			if n == 0 {
				return i + 1
			}
			n--
		}
	}
	return 1
}

// line returns the first line that defines key (key = ...).
func (l locator) line(key string) int {
	for i, line := range strings.Split(string(l.data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, key) && strings.HasPrefix(strings.TrimSpace(t[len(key):]), "=") {
			return i + 1
		}
	}
	return 1
}

// lineOfError guesses the line an error of regs.Validate refers to: the
// line that names the register (name = "X") or field mentioned first.
func (l locator) lineOfError(msg string) int {
	// messages look like "field REG.FLD: ..." or "register REG ..."
	for _, prefix := range []string{"field ", "register "} {
		if !strings.HasPrefix(msg, prefix) {
			continue
		}
		name := strings.Trim(strings.Fields(msg[len(prefix):])[0], ":\"")
		reg, fld, _ := strings.Cut(name, ".")
		start := 0
		lines := strings.Split(string(l.data), "\n")
		for i, line := range lines {
			if quotedName(line, reg) {
				start = i
				if fld == "" {
					return i + 1
				}
				break
			}
		}
		if fld != "" {
			for i := start; i < len(lines); i++ {
				if quotedName(lines[i], fld) {
					return i + 1
				}
			}
		}
		if start > 0 {
			return start + 1
		}
	}
	return 1
}

func quotedName(line, name string) bool {
	return strings.Contains(line, "name") && strings.Contains(line, `"`+name+`"`)
}

func keyLine(data []byte, k toml.Key) int {
	last := k[len(k)-1]
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, last) && strings.HasPrefix(strings.TrimSpace(t[len(last):]), "=") ||
			strings.Contains(t, last+" =") || strings.Contains(t, last+"=") ||
			t == "["+k.String()+"]" || t == "[["+k.String()+"]]" {
			return i + 1
		}
	}
	return 1
}

// LoadFS loads the profile file name from fsys.
func LoadFS(fsys fs.FS, name string) (*Profile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
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
			errs = append(errs, fmt.Errorf("%s: %w: name %q does not match the file name", n, ErrProfile, p.Name))
			continue
		}
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps, errors.Join(errs...)
}
