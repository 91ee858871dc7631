package regs_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// FuzzParseValue feeds any string to every field of the ChipIdea map.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"", "0", "010", "0x10", "0b101", "0o17", "1_000", "4294967295", "4294967296",
		"INCR16", "uf8", "on", "OFF", "true", "disable", "disabled", "RESERVED4", "-1", "0x", " 7 ", "\x00", "٣"} {
		f.Add(s)
	}
	m := regs.ChipIdea()
	f.Fuzz(func(t *testing.T, s string) {
		n, nerr := regs.ParseNumber(s)
		if nerr == nil {
			if back, err := regs.ParseNumber(fmt.Sprint(n)); err != nil || back != n {
				t.Errorf("ParseNumber(%q) = %d but %d does not parse back: %d, %v", s, n, n, back, err)
			}
		} else if !errors.Is(nerr, regs.ErrValue) {
			t.Errorf("ParseNumber(%q) error %v does not wrap ErrValue", s, nerr)
		}
		for i := range m.Registers {
			r := &m.Registers[i]
			for j := range r.Fields {
				fld := &r.Fields[j]
				v, err := regs.ParseValue(fld, s)
				if err != nil {
					if !errors.Is(err, regs.ErrValue) {
						t.Errorf("%s.%s: ParseValue(%q) error %v does not wrap ErrValue", r.Name, fld.Name, s, err)
					}
					continue
				}
				if v > fld.WidthMax() {
					t.Errorf("%s.%s: ParseValue(%q) = %d does not fit in %d bits", r.Name, fld.Name, s, v, fld.Width)
				}
				if err := regs.CheckValue(fld, v); err != nil {
					t.Errorf("%s.%s: ParseValue(%q) = %d, but CheckValue says %v", r.Name, fld.Name, s, v, err)
				}
				// A number that parsed must mean the same for the field,
				// unless a value name took precedence.
				if nerr == nil && v != n && fld.Enum(v) == nil {
					t.Errorf("%s.%s: ParseValue(%q) = %d, ParseNumber = %d", r.Name, fld.Name, s, v, n)
				}
			}
		}
	})
}

// FuzzParseChange parses any NAME=VALUE string; whatever it accepts must
// be a change that citune may make, that composes from the reset value and
// that prints back to an equal change.
func FuzzParseChange(f *testing.F) {
	for _, s := range []string{"ITC=8", "usbcmd.itc=uf1", "AHBBRST=INCR16", "AHBBRST=4", "SDIS=on", "USBCMD=0x80000",
		"USBCMD=0x80002", "ID=1", "CM=3", "USBMODE=0x13", "PORTSC1.PFSC=1", "USBSTS.UI=1", "=", "==", "ITC==8",
		"DC=1", "RXS=1", "ENDPTCTRL7.TXR=1", "ASYNCLISTADDR=0xffffffff", "TTHA=0x7f", ".=1", "ITC=3"} {
		f.Add(s)
	}
	m := regs.ChipIdea()
	f.Fuzz(func(t *testing.T, s string) {
		c, err := m.ParseChange(s)
		if err != nil {
			if c.Ref.Reg != nil && !errors.Is(err, regs.ErrRefused) && !errors.Is(err, regs.ErrValue) {
				t.Errorf("ParseChange(%q) returned a change %s with error %v", s, c, err)
			}
			return
		}
		r, fld := c.Ref.Reg, c.Ref.Field
		if r == nil {
			t.Fatalf("ParseChange(%q) = change without a register", s)
		}
		if r.ReadOnly {
			t.Errorf("ParseChange(%q) accepted read-only register %s", s, r.Name)
		}
		if fld != nil {
			if fld.Access == regs.RO {
				t.Errorf("ParseChange(%q) accepted RO field %s", s, c.Ref)
			}
			if fld.Never && c.Value != 0 {
				t.Errorf("ParseChange(%q) accepted setting %s", s, c.Ref)
			}
			if err := regs.CheckValue(fld, c.Value); err != nil {
				t.Errorf("ParseChange(%q) = %s but CheckValue: %v", s, c, err)
			}
		} else {
			for i := range r.Fields {
				g := &r.Fields[i]
				if g.Never && g.Get(c.Value) != 0 {
					t.Errorf("ParseChange(%q) accepted %s=%#x which sets %s", s, r.Name, c.Value, g.Name)
				}
				if (g.Access == regs.RW || g.Access == regs.WriteOnce) && regs.CheckValue(g, g.Get(c.Value)) != nil {
					t.Errorf("ParseChange(%q) accepted %s=%#x with illegal %s=%d", s, r.Name, c.Value, g.Name, g.Get(c.Value))
				}
			}
		}
		back, err := m.ParseChange(c.String())
		if err != nil || back != c {
			t.Errorf("ParseChange(%q) = %s, but %q parses to %v, %v", s, c, c.String(), back, err)
		}
		got, err := regs.Compose(r, r.Reset, []regs.Change{c})
		if err != nil {
			if !errors.Is(err, regs.ErrRefused) || !strings.Contains(err.Error(), "write-once") {
				t.Errorf("Compose(%s from reset) = %v", c, err)
			}
			return
		}
		checkComposedChange(t, r, c, r.Reset, got)
	})
}

// FuzzCompose composes one or two changes of any register from any
// current value.
func FuzzCompose(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint32(0), uint32(0), uint8(0), uint32(0), false)
	f.Add(uint16(17), uint8(11), uint32(0x00080041), uint32(0), uint8(2), uint32(1), true)
	f.Add(uint16(27), uint8(23), uint32(0x1000102F), uint32(1), uint8(0), uint32(0), false)
	f.Add(uint16(17), uint8(12), uint32(0xFFFFFFFF), uint32(0x2), uint8(0), uint32(0), false)
	m := regs.ChipIdea()
	f.Fuzz(func(t *testing.T, ri uint16, fi uint8, cur, v uint32, fi2 uint8, v2 uint32, two bool) {
		r := &m.Registers[int(ri)%len(m.Registers)]
		pick := func(i uint8, v uint32) regs.Change {
			n := int(i) % (len(r.Fields) + 1)
			if n == len(r.Fields) {
				return regs.Change{Ref: regs.Ref{Reg: r}, Value: v}
			}
			fld := &r.Fields[n]
			return regs.Change{Ref: regs.Ref{Reg: r, Field: fld}, Value: v & fld.WidthMax()}
		}
		cs := []regs.Change{pick(fi, v)}
		if two {
			cs = append(cs, pick(fi2, v2))
		}
		got, err := regs.Compose(r, cur, cs)
		if err != nil {
			if !errors.Is(err, regs.ErrRefused) && !errors.Is(err, regs.ErrValue) {
				t.Fatalf("Compose(%s, %#x, %v) = %v: neither refused nor an invalid value", r.Name, cur, cs, err)
			}
			for _, c := range cs {
				if legalRW(c) {
					continue
				}
				return // at least one change may legitimately be refused
			}
			t.Fatalf("Compose(%s, %#x, %v) refused legal RW changes: %v", r.Name, cur, cs, err)
		}
		if len(cs) == 1 {
			checkComposedChange(t, r, cs[0], cur, got)
		}
		// Every request holds in the composed value, later ones winning.
		var asked uint32
		for i := len(cs) - 1; i >= 0; i-- {
			c := cs[i]
			if c.Ref.Field == nil {
				if got&^asked != c.Value&^asked {
					t.Errorf("%s=%#x: composed %#x", r.Name, c.Value, got)
				}
				asked = ^uint32(0)
				continue
			}
			if asked&c.Ref.Field.Mask() == 0 && c.Ref.Field.Get(got) != c.Value {
				t.Errorf("%s=%d: composed %#x holds %d", c.Ref, c.Value, got, c.Ref.Field.Get(got))
			}
			asked |= c.Ref.Field.Mask()
		}
		// Bits nobody asked for: kept, or 0 where they must be.
		if (got^(cur&^r.ZeroOnWrite()))&^asked != 0 {
			t.Errorf("%s from %#x with %v: composed %#x changes unasked bits %#x", r.Name, cur, cs, got, (got^(cur&^r.ZeroOnWrite()))&^asked)
		}
		if r.Name == "USBCMD" && got&(1<<1) != 0 {
			t.Errorf("USBCMD from %#x with %v: composed %#x sets RST", cur, cs, got)
		}
		// A register that stores what it is given reads back without a
		// mismatch.
		if ms := regs.Check(r, cs, got); len(ms) != 0 {
			t.Errorf("%s from %#x with %v: read-back of the composed %#x mismatches: %v", r.Name, cur, cs, got, ms)
		}
	})
}

// legalRW reports whether c asks for a legal value of an RW field of a
// writable register: a change that must never be refused.
func legalRW(c regs.Change) bool {
	f := c.Ref.Field
	return f != nil && !c.Ref.Reg.ReadOnly && f.Access == regs.RW && !f.Never && regs.CheckValue(f, c.Value) == nil
}

// checkComposedChange checks one composed change: the requested value is
// stored, zero-on-write bits not requested are 0, other bits unchanged.
func checkComposedChange(t *testing.T, r *regs.Register, c regs.Change, cur, got uint32) {
	t.Helper()
	if c.Ref.Field == nil {
		if got != c.Value {
			t.Errorf("%s=%#x from %#x: composed %#x", r.Name, c.Value, cur, got)
		}
		return
	}
	checkComposed(t, r, c.Ref.Field, cur, c.Value, got)
}
