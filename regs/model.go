package regs

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Enum names one value of a field.
type Enum struct {
	Value    uint32
	Name     string
	Meaning  string
	Reserved bool // the value exists but must not be written
}

// Field is a contiguous bit range of a register.
type Field struct {
	Name   string
	Lsb    uint // lowest bit
	Width  uint // number of bits, 1..32
	Access Access
	// Values names values of the field. With Strict set, only the named,
	// non-reserved values are legal.
	Values []Enum
	Strict bool
	// Min and Max bound legal values when HasRange is set (inclusive).
	HasRange bool
	Min, Max uint32
	// Never lists field values citune never writes (USBCMD.RST=1).
	// A read-modify-write stores 0 into such a field.
	Never bool
	// Knob marks a tuning knob: shown first and highlighted.
	Knob bool
	Desc string
}

// Mask is the field's bit mask within the register.
func (f *Field) Mask() uint32 { return f.WidthMax() << f.Lsb }

// WidthMax is the largest value the field's width can hold.
func (f *Field) WidthMax() uint32 {
	if f.Width >= 32 {
		return ^uint32(0)
	}
	return (uint32(1) << f.Width) - 1
}

// Get extracts the field from a raw register value.
func (f *Field) Get(raw uint32) uint32 { return (raw & f.Mask()) >> f.Lsb }

// Put returns raw with the field replaced by v (v must fit).
func (f *Field) Put(raw, v uint32) uint32 {
	return raw&^f.Mask() | (v<<f.Lsb)&f.Mask()
}

// Bits renders the bit range as "23:16" or "5".
func (f *Field) Bits() string {
	if f.Width == 1 {
		return fmt.Sprintf("%d", f.Lsb)
	}
	return fmt.Sprintf("%d:%d", f.Lsb+f.Width-1, f.Lsb)
}

// Enum returns the named value v, or nil.
func (f *Field) Enum(v uint32) *Enum {
	if i := slices.IndexFunc(f.Values, func(e Enum) bool { return e.Value == v }); i >= 0 {
		return &f.Values[i]
	}
	return nil
}

// Register is one 32-bit register of a controller window.
type Register struct {
	Name   string
	Offset uint32
	// Reset is the documented reset value; ResetKnown is false where no
	// source gives one (e.g. Vybrid, TTCTRL).
	Reset      uint32
	ResetKnown bool
	// ReadOnly registers are never written by citune (all fields RO, or
	// registers whose writes trigger actions, like ULPI_VIEWPORT).
	ReadOnly bool
	// W1C marks a status register whose bits not covered by a field are
	// also write-1-to-clear: a read-modify-write stores 0 in all of them.
	W1C    bool
	Fields []Field
	Desc   string
	// Note explains when the Linux driver rewrites the register.
	Note string
	// DeviceOnly registers belong to the device part of an OTG core (see
	// Map.ForCore); with HostName set, a host-only core has a host
	// register at the same offset instead (0x154 PERIODICLISTBASE for
	// DEVICEADDR), described by HostDesc and HostFields.
	DeviceOnly bool
	HostName   string
	HostDesc   string
	HostFields []Field
	// HostSource, when set, keeps the register on a host-only core with
	// the value HostReset (DCCPARAMS: Linux needs its HC bit on every
	// core) and says where that value comes from.
	HostReset  uint32
	HostSource string
	// Source says where the reset value comes from ("unknown" where no
	// source gives one); profiles replace it for their SoC.
	Source string
	// Window names the block the register lives in when it is not the
	// controller's own window ("usbmisc": the SoC's non-core control
	// word of this controller, placed past the controller window).
	Window string
}

// Field returns the named field or nil.
func (r *Register) Field(name string) *Field {
	for i := range r.Fields {
		if f := &r.Fields[i]; strings.EqualFold(f.Name, name) {
			return f
		}
	}
	return nil
}

// Covered is the mask of bits that some field describes.
func (r *Register) Covered() uint32 {
	var m uint32
	for i := range r.Fields {
		m |= r.Fields[i].Mask()
	}
	return m
}

// ZeroOnWrite is the mask of bits that a read-modify-write must store as 0
// unless the user asked for them: W1C, SC and WC fields (a WC counter is
// cleared by the write whatever is stored; 0 says so), fields citune never
// sets, and, in a W1C register, the bits no field covers.
func (r *Register) ZeroOnWrite() uint32 {
	var m uint32
	for i := range r.Fields {
		f := &r.Fields[i]
		if f.Access == W1C || f.Access == SC || f.Access == WC || f.Never {
			m |= f.Mask()
		}
	}
	if r.W1C {
		m |= ^r.Covered()
	}
	return m
}

// HasKnob reports whether any field is a tuning knob.
func (r *Register) HasKnob() bool {
	return slices.ContainsFunc(r.Fields, func(f Field) bool { return f.Knob })
}

// Map is the register map of one controller window.
type Map struct {
	Name      string
	Registers []Register // sorted by offset
	// Core is the kind of core the map was narrowed to by ForCore ("" for
	// the full map); Absent lists the registers it removed.
	Core   Core
	Absent []Absence
}

// Register returns the named register or nil.
func (m *Map) Register(name string) *Register {
	for i := range m.Registers {
		if r := &m.Registers[i]; strings.EqualFold(r.Name, name) {
			return r
		}
	}
	return nil
}

// At returns the register at offset off or nil. Register and At loop by
// pointer: a Register is 208 bytes, and slices.IndexFunc would copy each
// (every guarded access and the simulator's writes look registers up).
func (m *Map) At(off uint32) *Register {
	for i := range m.Registers {
		if r := &m.Registers[i]; r.Offset == off {
			return r
		}
	}
	return nil
}

// End is the first byte offset after the last register.
func (m *Map) End() uint32 {
	var end uint32
	for i := range m.Registers {
		if e := m.Registers[i].Offset + 4; e > end {
			end = e
		}
	}
	return end
}

// Clone returns a deep copy that can be modified without touching m.
func (m *Map) Clone() *Map {
	c := &Map{Name: m.Name, Registers: make([]Register, len(m.Registers)), Core: m.Core, Absent: append([]Absence(nil), m.Absent...)}
	copyFields := func(fs []Field) []Field {
		if fs == nil {
			return nil
		}
		fs = append([]Field(nil), fs...)
		for j := range fs {
			fs[j].Values = append([]Enum(nil), fs[j].Values...)
		}
		return fs
	}
	for i, r := range m.Registers {
		r.Fields = copyFields(r.Fields)
		r.HostFields = copyFields(r.HostFields)
		c.Registers[i] = r
	}
	return c
}

// Sort orders registers by offset.
func (m *Map) Sort() {
	sort.SliceStable(m.Registers, func(i, j int) bool { return m.Registers[i].Offset < m.Registers[j].Offset })
}

// ErrNotFound is returned by Lookup for a name that matches nothing.
var ErrNotFound = errors.New("no such register or field")

// ErrAmbiguous is returned by Lookup for a bare field name that several
// registers have.
var ErrAmbiguous = errors.New("ambiguous field name")

// Ref names a register and optionally one of its fields (nil Field means
// the whole register).
type Ref struct {
	Reg   *Register
	Field *Field
}

// String renders "REG.FIELD" or "REG".
func (r Ref) String() string {
	if r.Field == nil {
		return r.Reg.Name
	}
	return r.Reg.Name + "." + r.Field.Name
}

// Lookup resolves "REG.FIELD", a bare "FIELD" that exactly one register has,
// or a register name "REG" (whole register). Case is ignored. A bare name
// is tried in that order: a field name that exactly one register has wins
// (FRINDEX is FRINDEX.FRINDEX), then a register name (ID is the register,
// although ID.ID and OTGSC.ID exist), and a field name that several
// registers have is an ErrAmbiguous error listing the REG.FIELD choices.
func (m *Map) Lookup(name string) (Ref, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Ref{}, fmt.Errorf("%w: empty name", ErrNotFound)
	}
	if reg, fld, ok := strings.Cut(name, "."); ok {
		r := m.Register(reg)
		if r == nil {
			if a := m.absentNamed(reg); a != nil {
				return Ref{}, fmt.Errorf("%q: %w", name, a)
			}
			if sug := m.suggestRegister(reg); sug != "" {
				return Ref{}, fmt.Errorf("%q: %w (no register %q; did you mean %s?)", name, ErrNotFound, reg, sug)
			}
			return Ref{}, fmt.Errorf("%q: %w (no register %q)", name, ErrNotFound, reg)
		}
		f := r.Field(fld)
		if f == nil {
			return Ref{}, fmt.Errorf("%q: %w (register %s has fields %s)", name, ErrNotFound, r.Name, r.FieldNames())
		}
		return Ref{r, f}, nil
	}
	var hits []Ref
	for i := range m.Registers {
		if f := m.Registers[i].Field(name); f != nil {
			hits = append(hits, Ref{&m.Registers[i], f})
		}
	}
	if len(hits) == 1 {
		return hits[0], nil
	}
	if r := m.Register(name); r != nil {
		return Ref{Reg: r}, nil
	}
	if a := m.absentNamed(name); a != nil && len(hits) == 0 {
		return Ref{}, fmt.Errorf("%q: %w", name, a)
	}
	if len(hits) > 1 {
		var s []string
		for _, h := range hits {
			s = append(s, h.String())
		}
		return Ref{}, fmt.Errorf("%q: %w: say one of %s", name, ErrAmbiguous, strings.Join(s, ", "))
	}
	if sug := m.suggest(name); sug != "" {
		return Ref{}, fmt.Errorf("%q: %w (did you mean %s?)", name, ErrNotFound, sug)
	}
	return Ref{}, fmt.Errorf("%q: %w", name, ErrNotFound)
}

// FieldNames lists the register's fields for messages ("none" without).
func (r *Register) FieldNames() string {
	if len(r.Fields) == 0 {
		return "none"
	}
	var s []string
	for i := range r.Fields {
		s = append(s, r.Fields[i].Name)
	}
	return strings.Join(s, ", ")
}

// suggest returns the name of the map (REG.FIELD or REG) closest to name:
// the smallest edit distance among the names that are close enough or that
// contain name or are contained in it; "" when none is.
func (m *Map) suggest(name string) string {
	up := strings.ToUpper(name)
	if up == "" {
		return ""
	}
	best, bestD := "", -1
	consider := func(cand, full string) {
		c := strings.ToUpper(cand)
		d := EditDistance(up, c)
		near := d <= 1 || d <= len(c)/3 ||
			len(up) > 1 && strings.Contains(c, up) ||
			len(c) > 2 && strings.Contains(up, c)
		if near && (bestD < 0 || d < bestD) {
			best, bestD = full, d
		}
	}
	for i := range m.Registers {
		r := &m.Registers[i]
		consider(r.Name, r.Name)
		for j := range r.Fields {
			consider(r.Fields[j].Name, r.Name+"."+r.Fields[j].Name)
		}
	}
	return best
}

// suggestRegister is suggest restricted to register names.
func (m *Map) suggestRegister(name string) string {
	regsOnly := &Map{Registers: make([]Register, len(m.Registers))}
	for i := range m.Registers {
		regsOnly.Registers[i] = Register{Name: m.Registers[i].Name}
	}
	return regsOnly.suggest(name)
}

// EditDistance is the Levenshtein distance between a and b (bytes), for
// "did you mean" suggestions; strings longer than 64 bytes count as far
// apart (99) so that a suggestion never costs much.
func EditDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Validate checks the map's structure: register offsets aligned and
// unique, names unique, fields inside 32 bits and not overlapping, enum
// values that fit their field, ranges inside the width, reset values whose
// read-only bits make sense. Every problem is reported, joined.
func (m *Map) Validate() error {
	var errs []error
	seenOff := map[uint32]string{}
	seenName := map[string]uint32{}
	for i := range m.Registers {
		r := &m.Registers[i]
		if r.Name == "" {
			errs = append(errs, fmt.Errorf("register at %s: empty name", Off(r.Offset)))
		}
		if !ValidName(r.Name) {
			errs = append(errs, fmt.Errorf("register %q: name must be letters, digits and _ and start with a letter", r.Name))
		}
		if r.Offset%4 != 0 {
			errs = append(errs, fmt.Errorf("register %s: offset %s is not 32-bit aligned", r.Name, Off(r.Offset)))
		}
		if prev, dup := seenOff[r.Offset]; dup {
			errs = append(errs, fmt.Errorf("register %s: offset %s already used by %s", r.Name, Off(r.Offset), prev))
		}
		seenOff[r.Offset] = r.Name
		key := strings.ToUpper(r.Name)
		if prev, dup := seenName[key]; dup {
			errs = append(errs, fmt.Errorf("register %s at %s: name already used at %s", r.Name, Off(r.Offset), Off(prev)))
		}
		seenName[key] = r.Offset
		errs = append(errs, r.validateFields()...)
	}
	return errors.Join(errs...)
}

func (r *Register) validateFields() []error {
	var errs []error
	var used uint32
	names := map[string]bool{}
	for i := range r.Fields {
		f := &r.Fields[i]
		where := fmt.Sprintf("field %s.%s", r.Name, f.Name)
		if !ValidName(f.Name) {
			errs = append(errs, fmt.Errorf("%s: name must be letters, digits and _ and start with a letter", where))
		}
		if names[strings.ToUpper(f.Name)] {
			errs = append(errs, fmt.Errorf("%s: duplicate field name", where))
		}
		names[strings.ToUpper(f.Name)] = true
		if f.Width == 0 || f.Lsb+f.Width > 32 {
			errs = append(errs, fmt.Errorf("%s: bits [%d+%d] fall outside the 32-bit register", where, f.Lsb, f.Width))
			continue
		}
		if used&f.Mask() != 0 {
			errs = append(errs, fmt.Errorf("%s: bits %s overlap another field", where, f.Bits()))
		}
		used |= f.Mask()
		seen := map[uint32]bool{}
		for _, e := range f.Values {
			if e.Value > f.WidthMax() {
				errs = append(errs, fmt.Errorf("%s: value %s=%d does not fit in %d bits", where, e.Name, e.Value, f.Width))
			}
			if seen[e.Value] {
				errs = append(errs, fmt.Errorf("%s: value %d named twice", where, e.Value))
			}
			seen[e.Value] = true
			if e.Name != "" && !ValidName(e.Name) {
				errs = append(errs, fmt.Errorf("%s: value name %q must be letters, digits and _", where, e.Name))
			}
		}
		if f.Strict && len(f.Values) == 0 {
			errs = append(errs, fmt.Errorf("%s: strict but no values listed", where))
		}
		if f.HasRange && (f.Min > f.Max || f.Max > f.WidthMax()) {
			errs = append(errs, fmt.Errorf("%s: range %d..%d does not fit in %d bits", where, f.Min, f.Max, f.Width))
		}
	}
	return errs
}

// ValidName reports whether s is a valid register, field or value name:
// letters, digits and _, starting with a letter.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z':
		case c == '_' || c >= '0' && c <= '9':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
