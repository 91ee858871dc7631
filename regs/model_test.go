package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

func TestLookupResolves(t *testing.T) {
	tests := []struct {
		name  string
		reg   string
		field string // "" for the whole register
	}{
		{"ITC", "USBCMD", "ITC"},
		{"itc", "USBCMD", "ITC"},
		{"usbcmd.itc", "USBCMD", "ITC"},
		{"USBCMD.ITC", "USBCMD", "ITC"},
		{"  UsbCmd.Itc  ", "USBCMD", "ITC"},
		{"AHBBRST", "SBUSCFG", "AHBBRST"},
		{"TXPBURST", "BURSTSIZE", "TXPBURST"},
		{"RXPBURST", "BURSTSIZE", "RXPBURST"},
		{"SDIS", "USBMODE", "SDIS"},
		{"TXFIFOTHRES", "TXFILLTUNING", "TXFIFOTHRES"},
		{"TXSCHOH", "TXFILLTUNING", "TXSCHOH"},
		{"ASP", "USBCMD", "ASP"},
		{"ASPE", "USBCMD", "ASPE"},
		{"TTHA", "TTCTRL", "TTHA"},
		{"PFSC", "PORTSC1", "PFSC"},
		{"PHCD", "PORTSC1", "PHCD"},
		{"CM", "USBMODE", "CM"},
		{"otgsc.id", "OTGSC", "ID"},
		{"ID.ID", "ID", "ID"},
		{"ENDPTCTRL3.TXE", "ENDPTCTRL3", "TXE"},
		// Register-only names.
		{"USBCMD", "USBCMD", ""},
		{"sbuscfg", "SBUSCFG", ""},
		{"BURSTSIZE", "BURSTSIZE", ""},
		{"ASYNCLISTADDR", "ASYNCLISTADDR", ""},
		{"GPTIMER0LD", "GPTIMER0LD", ""},
		// ID is both a register and a field of two registers (ID.ID,
		// OTGSC.ID): the documented rule gives the register.
		{"ID", "ID", ""},
		{"id", "ID", ""},
		// A register whose only field has its own name: the unique field.
		{"FRINDEX", "FRINDEX", "FRINDEX"},
		{"CAPLENGTH", "CAPLENGTH", "CAPLENGTH"},
	}
	m := regs.ChipIdea()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := m.Lookup(tt.name)
			if err != nil {
				t.Fatalf("Lookup(%q) = %v", tt.name, err)
			}
			if ref.Reg.Name != tt.reg {
				t.Errorf("register %s, want %s", ref.Reg.Name, tt.reg)
			}
			switch {
			case tt.field == "" && ref.Field != nil:
				t.Errorf("field %s, want the whole register", ref.Field.Name)
			case tt.field != "" && (ref.Field == nil || ref.Field.Name != tt.field):
				t.Errorf("got %s, want %s.%s", ref, tt.reg, tt.field)
			}
			if ref.Field != nil && ref.Reg.Field(ref.Field.Name) != ref.Field {
				t.Errorf("field %s does not belong to register %s", ref.Field.Name, ref.Reg.Name)
			}
			want := tt.reg
			if tt.field != "" {
				want += "." + tt.field
			}
			if ref.String() != want {
				t.Errorf("String() = %q, want %q", ref, want)
			}
		})
	}
}

// Every register name finds that register (as a whole or as its own field
// of the same name), never a field of some other register.
func TestLookupEveryRegisterName(t *testing.T) {
	m := regs.ChipIdea()
	for i := range m.Registers {
		r := &m.Registers[i]
		ref, err := m.Lookup(r.Name)
		if err != nil {
			t.Errorf("Lookup(%q) = %v", r.Name, err)
			continue
		}
		if ref.Reg != r {
			t.Errorf("Lookup(%q) = %s, want register %s", r.Name, ref, r.Name)
		}
	}
}

// Every REG.FIELD spelling resolves to exactly that field.
func TestLookupEveryQualifiedField(t *testing.T) {
	m := regs.ChipIdea()
	for i := range m.Registers {
		r := &m.Registers[i]
		for j := range r.Fields {
			f := &r.Fields[j]
			name := strings.ToLower(r.Name + "." + f.Name)
			ref, err := m.Lookup(name)
			if err != nil || ref.Reg != r || ref.Field != f {
				t.Errorf("Lookup(%q) = %v, %v", name, ref, err)
			}
		}
	}
}

func TestLookupErrors(t *testing.T) {
	tests := []struct {
		name string
		is   error
		msg  []string // substrings of the error
	}{
		{"DC", regs.ErrAmbiguous, []string{"HWDEVICE.DC", "DCCPARAMS.DC"}},
		{"hc", regs.ErrAmbiguous, []string{"HWHOST.HC", "DCCPARAMS.HC"}},
		{"RXS", regs.ErrAmbiguous, []string{"ENDPTCTRL0.RXS", "ENDPTCTRL7.RXS"}},
		{"ITCX", regs.ErrNotFound, []string{"did you mean USBCMD.ITC"}},
		{"TXPBURSTS", regs.ErrNotFound, []string{"did you mean BURSTSIZE.TXPBURST"}},
		{"fifothres", regs.ErrNotFound, []string{"did you mean TXFILLTUNING.TXFIFOTHRES"}},
		{"XYZZY", regs.ErrNotFound, []string{`"XYZZY"`}},
		{"usbcmd.nope", regs.ErrNotFound, []string{"register USBCMD has fields", "ITC", "ASPE"}},
		{"usbcmdx.itc", regs.ErrNotFound, []string{`no register "usbcmdx"`, "did you mean USBCMD?"}},
		{"PORTSC", regs.ErrNotFound, []string{"did you mean PORTSC1?"}},
		{"USBCMD.", regs.ErrNotFound, []string{"register USBCMD has fields"}},
		{".ITC", regs.ErrNotFound, nil},
		{"ASYNCLISTADDR.X", regs.ErrNotFound, []string{"has fields none"}},
		{"", regs.ErrNotFound, []string{"empty"}},
		{"   ", regs.ErrNotFound, []string{"empty"}},
	}
	m := regs.ChipIdea()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := m.Lookup(tt.name)
			if err == nil {
				t.Fatalf("Lookup(%q) = %s, want an error", tt.name, ref)
			}
			if !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			for _, s := range tt.msg {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
			if strings.Contains(err.Error(), "did you mean ID.ID") && !strings.Contains(strings.ToUpper(tt.name), "ID") {
				t.Errorf("error %q suggests an unrelated name", err)
			}
		})
	}
}

func TestLookupLowerCaseMapSuggests(t *testing.T) {
	// Profiles may spell names in lower case; suggestions must still work.
	m := &regs.Map{Name: "t", Registers: []regs.Register{
		{Name: "ctrl", Offset: 0, Fields: []regs.Field{{Name: "burstlen", Lsb: 0, Width: 4}}},
	}}
	_, err := m.Lookup("BURSTLENX")
	if err == nil || !strings.Contains(err.Error(), "did you mean ctrl.burstlen") {
		t.Errorf("Lookup(BURSTLENX) = %v, want a suggestion of ctrl.burstlen", err)
	}
}

func TestMapHelpers(t *testing.T) {
	m := regs.ChipIdea()
	if m.Register("nope") != nil || m.At(0x2) != nil || m.At(0x1E0) != nil {
		t.Errorf("lookups of missing registers returned something")
	}
	r := m.Register("usbcmd")
	if r == nil || r.Field("itc") == nil || r.Field("nope") != nil {
		t.Fatalf("Register/Field are not case-insensitive or find missing names")
	}
	if !r.HasKnob() || m.Register("USBSTS").HasKnob() {
		t.Errorf("HasKnob: USBCMD %v, USBSTS %v", r.HasKnob(), m.Register("USBSTS").HasKnob())
	}
	c := m.Clone()
	c.Register("USBCMD").Field("ITC").Values[0].Name = "CHANGED"
	c.Register("USBCMD").Fields[0].Name = "CHANGED"
	c.Registers[0].Offset = 0x999
	if m.Register("USBCMD").Field("ITC").Values[0].Name != "IMMEDIATE" || m.Register("USBCMD").Fields[0].Name != "RS" || m.Registers[0].Offset != 0 {
		t.Errorf("Clone shares storage with the original")
	}
	// Sort is stable and by offset.
	s := &regs.Map{Registers: []regs.Register{{Name: "B", Offset: 8}, {Name: "A", Offset: 0}, {Name: "C", Offset: 4}}}
	s.Sort()
	if s.Registers[0].Name != "A" || s.Registers[1].Name != "C" || s.Registers[2].Name != "B" {
		t.Errorf("Sort: %v", s.Registers)
	}
}

func TestFieldHelpers(t *testing.T) {
	tests := []struct {
		name     string
		f        regs.Field
		mask     uint32
		max      uint32
		bits     string
		raw, put uint32 // Put(raw, 5) for fields wide enough, else Put(raw, 1)
	}{
		{"one bit", regs.Field{Lsb: 4, Width: 1}, 0x10, 1, "4", 0xFFFFFFFF, 0xFFFFFFFF},
		{"ITC", regs.Field{Lsb: 16, Width: 8}, 0x00FF0000, 255, "23:16", 0x00080041, 0x00050041},
		{"top bit", regs.Field{Lsb: 31, Width: 1}, 0x80000000, 1, "31", 0, 0x80000000},
		{"whole word", regs.Field{Lsb: 0, Width: 32}, 0xFFFFFFFF, 0xFFFFFFFF, "31:0", 0xFFFFFFFF, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			if f.Mask() != tt.mask || f.WidthMax() != tt.max || f.Bits() != tt.bits {
				t.Errorf("Mask %#x WidthMax %d Bits %s, want %#x %d %s", f.Mask(), f.WidthMax(), f.Bits(), tt.mask, tt.max, tt.bits)
			}
			v := uint32(5)
			if f.Width < 3 {
				v = 1
			}
			if got := f.Put(tt.raw, v); got != tt.put {
				t.Errorf("Put(%#x, %d) = %#x, want %#x", tt.raw, v, got, tt.put)
			}
			if got := f.Get(f.Put(tt.raw, v)); got != v {
				t.Errorf("Get(Put(v)) = %d, want %d", got, v)
			}
		})
	}
}

func TestValidateFindsProblems(t *testing.T) {
	tests := []struct {
		name string
		regs []regs.Register
		want string
	}{
		{"unaligned offset", []regs.Register{{Name: "A", Offset: 2}}, "not 32-bit aligned"},
		{"duplicate offset", []regs.Register{{Name: "A", Offset: 4}, {Name: "B", Offset: 4}}, "already used by A"},
		{"duplicate name any case", []regs.Register{{Name: "A", Offset: 0}, {Name: "a", Offset: 4}}, "name already used"},
		{"bad register name", []regs.Register{{Name: "1A", Offset: 0}}, "must be letters"},
		{"empty register name", []regs.Register{{Name: "", Offset: 0}}, "empty name"},
		{"field outside", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Lsb: 30, Width: 4}}}}, "outside the 32-bit register"},
		{"zero width", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Lsb: 3}}}}, "outside the 32-bit register"},
		{"overlap", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Lsb: 0, Width: 4}, {Name: "G", Lsb: 3, Width: 2}}}}, "overlap"},
		{"duplicate field", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Lsb: 0, Width: 1}, {Name: "f", Lsb: 1, Width: 1}}}}, "duplicate field"},
		{"enum too wide", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Width: 2, Values: []regs.Enum{{Value: 4, Name: "X"}}}}}}, "does not fit in 2 bits"},
		{"enum twice", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Width: 2, Values: []regs.Enum{{Value: 1, Name: "X"}, {Value: 1, Name: "Y"}}}}}}, "named twice"},
		{"enum bad name", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Width: 2, Values: []regs.Enum{{Value: 1, Name: "a b"}}}}}}, "letters, digits"},
		{"strict without values", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Width: 2, Strict: true}}}}, "strict but no values"},
		{"range too wide", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Width: 2, HasRange: true, Max: 4}}}}, "range 0..4"},
		{"range reversed", []regs.Register{{Name: "A", Fields: []regs.Field{{Name: "F", Width: 2, HasRange: true, Min: 3, Max: 1}}}}, "range 3..1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &regs.Map{Name: "t", Registers: tt.regs}
			err := m.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	t.Run("reports every problem", func(t *testing.T) {
		m := &regs.Map{Registers: []regs.Register{{Name: "A", Offset: 1}, {Name: "B", Offset: 1}}}
		err := m.Validate()
		if err == nil || !strings.Contains(err.Error(), "aligned") || !strings.Contains(err.Error(), "already used") {
			t.Errorf("Validate() = %v, want both problems", err)
		}
	})
}

func TestAccessNames(t *testing.T) {
	for _, a := range []regs.Access{regs.RW, regs.RO, regs.W1C, regs.WriteOnce, regs.SC, regs.WC} {
		b, err := a.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back regs.Access
		if err := back.UnmarshalText(b); err != nil || back != a {
			t.Errorf("%v: round trip through %q gave %v, %v", a, b, back, err)
		}
	}
	for in, want := range map[string]regs.Access{"rw1c": regs.W1C, "write-once": regs.WriteOnce, " sc ": regs.SC, "self-clearing": regs.SC, "wc": regs.WC, "write-clears": regs.WC, "": regs.RW} {
		if got, err := regs.ParseAccess(in); err != nil || got != want {
			t.Errorf("ParseAccess(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := regs.ParseAccess("WO"); err == nil {
		t.Errorf("ParseAccess(WO) accepted an unknown kind")
	}
	var a regs.Access
	if err := a.UnmarshalText([]byte("bogus")); err == nil {
		t.Errorf("UnmarshalText(bogus) accepted")
	}
	if s := regs.Access(9).String(); s != "Access(9)" {
		t.Errorf("Access(9).String() = %q", s)
	}
}
