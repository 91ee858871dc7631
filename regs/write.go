package regs

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrRefused is wrapped by errors about writes citune will not do: RO
// fields, write-once fields, USBCMD.RST, read-only registers.
var ErrRefused = errors.New("write refused")

// Change asks for one field (or, with Ref.Field nil, a whole register) to
// take a value.
type Change struct {
	Ref   Ref
	Value uint32
}

func (c Change) String() string { return fmt.Sprintf("%s=%d", c.Ref, c.Value) }

// ParseChange parses "NAME=VALUE" against m.
func (m *Map) ParseChange(s string) (Change, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok {
		return Change{}, fmt.Errorf("%q: want FIELD=VALUE", s)
	}
	ref, err := m.Lookup(name)
	if err != nil {
		return Change{}, err
	}
	var v uint32
	if ref.Field != nil {
		// ParseValue's errors start with the field's name: the register
		// goes before it, so the field is named once (USBCMD.ITC: ...).
		if v, err = ParseValue(ref.Field, val); err != nil {
			return Change{}, fmt.Errorf("%s.%w", ref.Reg.Name, err)
		}
	} else if v, err = ParseNumber(val); err != nil {
		return Change{}, fmt.Errorf("%s: %w", ref, err)
	}
	c := Change{Ref: ref, Value: v}
	return c, c.check()
}

// check refuses writes that no current value can make acceptable.
func (c Change) check() error {
	r, f := c.Ref.Reg, c.Ref.Field
	if r.ReadOnly {
		return fmt.Errorf("%s: %w: register %s is read-only for citune", c.Ref, ErrRefused, r.Name)
	}
	if f != nil {
		switch {
		case f.Access == RO:
			return fmt.Errorf("%s: %w: the field is read-only", c.Ref, ErrRefused)
		case f.Never && c.Value != 0:
			return fmt.Errorf("%s: %w: citune never sets %s (it would reset the controller under the running driver)", c.Ref, ErrRefused, c.Ref)
		case f.Access == WC && c.Value != 0:
			return fmt.Errorf("%s: %w: any write to %s clears this counter; only 0 can be asked for", c.Ref, ErrRefused, r.Name)
		}
		if err := CheckValue(f, c.Value); err != nil {
			return fmt.Errorf("%s.%w", r.Name, err)
		}
		return nil
	}
	// A whole-register value carries a value for every field: the ones that
	// must be legal are those the hardware takes (RW, write-once). Values of
	// RO fields are ignored by the hardware, W1C and SC ones are commands.
	allRO := len(r.Fields) > 0
	for i := range r.Fields {
		f := &r.Fields[i]
		if f.Never && f.Get(c.Value) != 0 {
			return fmt.Errorf("%s=%s: %w: the value sets %s.%s, which citune never sets", r.Name, Hex(c.Value), ErrRefused, r.Name, f.Name)
		}
		if f.Access != RO {
			allRO = false
		}
		if f.Access == RW || f.Access == WriteOnce {
			if err := CheckValue(f, f.Get(c.Value)); err != nil {
				return fmt.Errorf("%s=%s: %s.%w", r.Name, Hex(c.Value), r.Name, err)
			}
		}
	}
	if allRO {
		return fmt.Errorf("%s: %w: every field of %s is read-only", c.Ref, ErrRefused, r.Name)
	}
	return nil
}

// Write is one prepared register store: the value read before (Old) and
// the value to store (New), composed so that only the requested fields
// change.
type Write struct {
	Reg     *Register
	Old     uint32
	New     uint32
	Changes []Change
}

// Compose computes the value a read-modify-write of r must store, given
// the current raw value and the requested changes (all for r). W1C and SC
// bits and never-set fields are stored as 0 unless a change names them;
// write-once fields may not change.
func Compose(r *Register, cur uint32, changes []Change) (uint32, error) {
	v := cur &^ r.ZeroOnWrite()
	for _, c := range changes {
		if c.Ref.Reg != r {
			return 0, fmt.Errorf("%s: change is not for register %s", c.Ref, r.Name)
		}
		if err := c.check(); err != nil {
			return 0, err
		}
		if c.Ref.Field == nil {
			for i := range r.Fields {
				f := &r.Fields[i]
				if f.Access == WriteOnce && f.Get(c.Value) != f.Get(cur) {
					return 0, fmt.Errorf("%s=%s: %w: %s.%s is write-once and is %d now", r.Name, Hex(c.Value), ErrRefused, r.Name, f.Name, f.Get(cur))
				}
			}
			v = c.Value
			continue
		}
		f := c.Ref.Field
		if f.Access == WriteOnce && c.Value != f.Get(cur) {
			return 0, fmt.Errorf("%s: %w: the field is write-once after reset (now %d); citune does not change it", c.Ref, ErrRefused, f.Get(cur))
		}
		v = f.Put(v, c.Value)
	}
	return v, nil
}

// Prepare reads the current value of every register that changes names
// and composes the values to store. It writes nothing: callers journal the
// Old values, then Commit.
func Prepare(acc Accessor, changes []Change) ([]Write, error) {
	var order []*Register
	by := map[*Register][]Change{}
	for _, c := range changes {
		if err := c.check(); err != nil {
			return nil, err
		}
		if _, ok := by[c.Ref.Reg]; !ok {
			order = append(order, c.Ref.Reg)
		}
		by[c.Ref.Reg] = append(by[c.Ref.Reg], c)
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Offset < order[j].Offset })
	var ws []Write
	for _, r := range order {
		cur, err := acc.Read32(r.Offset)
		if err != nil {
			return nil, fmt.Errorf("reading %s at %s: %w", r.Name, Off(r.Offset), err)
		}
		nv, err := Compose(r, cur, by[r])
		if err != nil {
			return nil, err
		}
		ws = append(ws, Write{Reg: r, Old: cur, New: nv, Changes: by[r]})
	}
	return ws, nil
}

// Mismatch is a requested value that did not read back.
type Mismatch struct {
	Ref  Ref
	Want uint32
	Got  uint32
}

func (m Mismatch) String() string {
	if m.Ref.Field == nil {
		return fmt.Sprintf("%s: wrote %s, reads %s", m.Ref, Hex(m.Want), Hex(m.Got))
	}
	return fmt.Sprintf("%s: wrote %d, reads %d", m.Ref, m.Want, m.Got)
}

// Result is a committed write with its read-back.
type Result struct {
	Write
	Readback   uint32
	Mismatches []Mismatch
}

// Held reports whether every requested value read back.
func (r Result) Held() bool { return len(r.Mismatches) == 0 }

// Check compares a read-back value against the changes of w. W1C, SC and
// WC fields are not compared (they clear themselves); for a whole-register
// change only RW bits (and bits of registers without fields) are compared.
// As in Compose, a later change overrides an earlier one: bits that a
// later change sets are compared against the later change only.
func Check(r *Register, changes []Change, readback uint32) []Mismatch {
	var ms []Mismatch
	for i, c := range changes {
		later := laterMask(changes[i+1:])
		if f := c.Ref.Field; f != nil {
			if f.Access == W1C || f.Access == SC || f.Access == WC || later&f.Mask() != 0 {
				continue
			}
			if got := f.Get(readback); got != c.Value {
				ms = append(ms, Mismatch{Ref: c.Ref, Want: c.Value, Got: got})
			}
			continue
		}
		mask := r.writableMask() &^ later
		if mask == 0 {
			continue
		}
		if readback&mask != c.Value&mask {
			ms = append(ms, Mismatch{Ref: c.Ref, Want: c.Value & mask, Got: readback & mask})
		}
	}
	return ms
}

// laterMask is the mask of bits that the changes set: a field's bits, or
// every bit for a whole-register change.
func laterMask(changes []Change) uint32 {
	var m uint32
	for _, c := range changes {
		if c.Ref.Field == nil {
			return ^uint32(0)
		}
		m |= c.Ref.Field.Mask()
	}
	return m
}

func (r *Register) writableMask() uint32 {
	if len(r.Fields) == 0 {
		return ^uint32(0)
	}
	var m uint32
	for i := range r.Fields {
		if r.Fields[i].Access == RW {
			m |= r.Fields[i].Mask()
		}
	}
	return m
}

// Commit stores each prepared write with one 32-bit store and reads it
// back. It stops at the first access error; the results so far are
// returned with it.
func Commit(acc Accessor, ws []Write) ([]Result, error) {
	var rs []Result
	for _, w := range ws {
		if err := acc.Write32(w.Reg.Offset, w.New); err != nil {
			return rs, fmt.Errorf("writing %s=%s at %s: %w", w.Reg.Name, Hex(w.New), Off(w.Reg.Offset), err)
		}
		rb, err := acc.Read32(w.Reg.Offset)
		if err != nil {
			return rs, fmt.Errorf("reading back %s at %s: %w", w.Reg.Name, Off(w.Reg.Offset), err)
		}
		rs = append(rs, Result{Write: w, Readback: rb, Mismatches: Check(w.Reg, w.Changes, rb)})
	}
	return rs, nil
}
