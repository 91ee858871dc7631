package regs

import (
	"fmt"
	"strings"
)

// FieldValue is one decoded field.
type FieldValue struct {
	Field   *Field
	Value   uint32
	Meaning string // name and meaning of the value, or ""
	Illegal bool   // the value is reserved or not among the legal ones
	// Changed is set when the register's reset value is known and the
	// field differs from it.
	Changed bool
	Reset   uint32
}

// Decoded is a decoded register value. Unknown holds the bits that are set
// but that no field describes: they are never hidden.
type Decoded struct {
	Reg     *Register
	Raw     uint32
	Fields  []FieldValue
	Unknown uint32
	// Changed is set when the reset value is known and Raw differs from it.
	Changed bool
}

// Decode splits raw into the register's fields.
func (r *Register) Decode(raw uint32) Decoded {
	d := Decoded{Reg: r, Raw: raw, Unknown: raw &^ r.Covered(), Fields: make([]FieldValue, 0, len(r.Fields))}
	d.Changed = r.ResetKnown && raw != r.Reset
	for i := range r.Fields {
		f := &r.Fields[i]
		v := f.Get(raw)
		fv := FieldValue{Field: f, Value: v, Meaning: Meaning(f, v), Illegal: CheckValue(f, v) != nil}
		if r.ResetKnown {
			fv.Reset = f.Get(r.Reset)
			fv.Changed = fv.Reset != v
		}
		d.Fields = append(d.Fields, fv)
	}
	return d
}

// Messages use one number base for each kind of number: a whole
// register's value is Hex (0x%08x), an offset in a controller's window
// Off (0x%03x), a physical address 0x%08x, a field's value decimal
// (FormatValue adds hex for wide fields), a byte count decimal or
// units.Size.

// Hex renders a register value v as 0x%08x.
func Hex(v uint32) string { return fmt.Sprintf("0x%08x", v) }

// Off renders a register offset as 0x%03x ("0x140").
func Off(off uint32) string { return fmt.Sprintf("0x%03x", off) }

// FormatValue renders a field value: decimal for narrow fields, hex as
// well for wide ones, and the meaning when there is one.
func (fv FieldValue) FormatValue() string {
	var s string
	if fv.Field.Width <= 4 || fv.Value < 10 {
		s = fmt.Sprint(fv.Value)
	} else {
		s = fmt.Sprintf("%d (%#x)", fv.Value, fv.Value)
	}
	if fv.Meaning != "" {
		s += "  " + fv.Meaning
	}
	return s
}

// String renders a one-line summary: NAME=raw FIELD=v ... [+unknown].
func (d Decoded) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s=%s", d.Reg.Name, Hex(d.Raw))
	for _, fv := range d.Fields {
		fmt.Fprintf(&b, " %s=%d", fv.Field.Name, fv.Value)
	}
	if d.Unknown != 0 {
		fmt.Fprintf(&b, " unknown-bits=%#x", d.Unknown)
	}
	return b.String()
}
