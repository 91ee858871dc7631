package regs_test

import (
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// recompose rebuilds a raw value from a decode: if the decoder drops or
// shifts a bit, the result differs from the input.
func recompose(d regs.Decoded) uint32 {
	v := d.Unknown
	for _, fv := range d.Fields {
		v |= fv.Value << fv.Field.Lsb
	}
	return v
}

func TestDecodeNeverHidesABit(t *testing.T) {
	m := regs.ChipIdea()
	raws := []uint32{0xFFFFFFFF, 0, 0xAAAAAAAA, 0x55555555, 0x80000001, 0xDEADBEEF}
	for i := range m.Registers {
		r := &m.Registers[i]
		t.Run(r.Name, func(t *testing.T) {
			all := r.Decode(0xFFFFFFFF)
			if all.Unknown|r.Covered() != 0xFFFFFFFF {
				t.Errorf("all ones: Unknown %#08x | Covered %#08x = %#08x, want all ones",
					all.Unknown, r.Covered(), all.Unknown|r.Covered())
			}
			if all.Unknown&r.Covered() != 0 {
				t.Errorf("all ones: Unknown %#08x overlaps Covered %#08x", all.Unknown, r.Covered())
			}
			for _, raw := range raws {
				d := r.Decode(raw)
				if d.Raw != raw {
					t.Errorf("Decode(%#08x).Raw = %#08x", raw, d.Raw)
				}
				if got := recompose(d); got != raw {
					t.Errorf("Decode(%#08x): fields and unknown bits rebuild %#08x", raw, got)
				}
				if len(d.Fields) != len(r.Fields) {
					t.Errorf("Decode(%#08x): %d fields, register has %d", raw, len(d.Fields), len(r.Fields))
				}
			}
		})
	}
}

func TestDecodeUnknownBitsShownInString(t *testing.T) {
	m := regs.ChipIdea()
	// HWTXBUF bits 15:8 and 31:24 are not described by the reference.
	d := m.Register("HWTXBUF").Decode(0x80080B08)
	if d.Unknown != 0x80000B00 {
		t.Errorf("HWTXBUF reset: Unknown = %#08x, want 0x80000b00", d.Unknown)
	}
	if s := d.String(); !strings.Contains(s, "unknown-bits=0x80000b00") {
		t.Errorf("String() = %q hides the unknown bits", s)
	}
	// BURSTSIZE bit 16: [SDK] puts it in TXPBURST, Linux does not.
	d = m.Register("BURSTSIZE").Decode(0x00011010)
	if d.Unknown != 1<<16 {
		t.Errorf("BURSTSIZE bit 16: Unknown = %#08x, want 0x10000", d.Unknown)
	}
	// A register without fields shows everything as unknown.
	d = m.Register("ASYNCLISTADDR").Decode(0x12345678)
	if d.Unknown != 0x12345678 {
		t.Errorf("ASYNCLISTADDR: Unknown = %#08x, want 0x12345678", d.Unknown)
	}
}

func TestDecodeAHBBRST(t *testing.T) {
	// Reference §3.2.
	tests := []struct {
		v       uint32
		name    string
		words   []string // must all appear in the meaning
		illegal bool
	}{
		{0, "INCR", []string{"unspecified length"}, false},
		{1, "INCR4", []string{"INCR4", "single"}, false},
		{2, "INCR8", []string{"INCR8", "INCR4", "single"}, false},
		{3, "INCR16", []string{"INCR16", "INCR8", "INCR4", "single"}, false},
		{4, "", []string{"reserved"}, true},
		{5, "INCR4_INCR", []string{"INCR4", "unspecified-length"}, false},
		{6, "INCR8_INCR", []string{"INCR8", "INCR4", "unspecified-length"}, false},
		{7, "INCR16_INCR", []string{"INCR16", "INCR8", "INCR4", "unspecified-length"}, false},
	}
	r := regs.ChipIdea().Register("SBUSCFG")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := r.Decode(0xFFFFFFF8 | tt.v)
			fv := d.Fields[0]
			if fv.Field.Name != "AHBBRST" || fv.Value != tt.v {
				t.Fatalf("decoded %s=%d, want AHBBRST=%d", fv.Field.Name, fv.Value, tt.v)
			}
			if fv.Illegal != tt.illegal {
				t.Errorf("Illegal = %v, want %v", fv.Illegal, tt.illegal)
			}
			if tt.name != "" && !strings.HasPrefix(fv.Meaning, tt.name+":") {
				t.Errorf("Meaning %q does not start with %q", fv.Meaning, tt.name+":")
			}
			for _, w := range tt.words {
				if !strings.Contains(fv.Meaning, w) {
					t.Errorf("Meaning %q lacks %q", fv.Meaning, w)
				}
			}
			if d.Unknown != 0xFFFFFFF8 {
				t.Errorf("reserved bits 31:3: Unknown = %#08x", d.Unknown)
			}
		})
	}
}

func TestDecodeITC(t *testing.T) {
	// Reference §3.1: 0, 1, 2, 4, 8, 16, 32, 64 micro-frames.
	legal := map[uint32]string{0: "IMMEDIATE", 1: "UF1", 2: "UF2", 4: "UF4", 8: "UF8", 16: "UF16", 32: "UF32", 64: "UF64"}
	r := regs.ChipIdea().Register("USBCMD")
	for v := uint32(0); v < 256; v++ {
		d := r.Decode(v << 16)
		var fv regs.FieldValue
		for _, x := range d.Fields {
			if x.Field.Name == "ITC" {
				fv = x
			}
		}
		if fv.Value != v {
			t.Fatalf("USBCMD=%#08x: ITC=%d, want %d", v<<16, fv.Value, v)
		}
		name, ok := legal[v]
		if fv.Illegal == ok {
			t.Errorf("ITC=%d: Illegal = %v, want %v", v, fv.Illegal, !ok)
		}
		if ok && !strings.HasPrefix(fv.Meaning, name) {
			t.Errorf("ITC=%d: Meaning %q, want it to start with %s", v, fv.Meaning, name)
		}
		if !ok && fv.Meaning != "not a legal value" {
			t.Errorf("ITC=%d: Meaning %q, want \"not a legal value\"", v, fv.Meaning)
		}
	}
	t.Run("UF8 is 1 ms", func(t *testing.T) {
		d := r.Decode(r.Reset)
		for _, fv := range d.Fields {
			if fv.Field.Name == "ITC" && !strings.Contains(fv.Meaning, "1 ms") {
				t.Errorf("reset ITC meaning %q, want 8 micro-frames = 1 ms", fv.Meaning)
			}
		}
	})
}

func TestDecodeIllegalWriteOnceAndNamed(t *testing.T) {
	m := regs.ChipIdea()
	tests := []struct {
		name    string
		reg     string
		raw     uint32
		field   string
		meaning string
		illegal bool
	}{
		{"USBMODE.CM reserved 1", "USBMODE", 1, "CM", "reserved: reserved", true},
		{"USBMODE.CM host", "USBMODE", 3, "CM", "HOST: host controller", false},
		{"PORTSC1 high speed", "PORTSC1", 2 << 26, "PSPD", "HIGH: high speed (480 Mb/s)", false},
		{"PORTSC1.PTS1 1 has no name", "PORTSC1", 1 << 30, "PTS1", "", false},
		{"USBMODE.SDIS set", "USBMODE", 1 << 4, "SDIS", "DISABLED: streaming disabled", false},
		{"TXFIFOTHRES plain number", "TXFILLTUNING", 63 << 16, "TXFIFOTHRES", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := m.Register(tt.reg).Decode(tt.raw)
			for _, fv := range d.Fields {
				if fv.Field.Name != tt.field {
					continue
				}
				if fv.Meaning != tt.meaning || fv.Illegal != tt.illegal {
					t.Errorf("%s: meaning %q illegal %v, want %q %v", tt.field, fv.Meaning, fv.Illegal, tt.meaning, tt.illegal)
				}
				return
			}
			t.Fatalf("no field %s", tt.field)
		})
	}
}

func TestDecodeChangedFromReset(t *testing.T) {
	m := regs.ChipIdea()
	changed := func(d regs.Decoded) []string {
		var s []string
		for _, fv := range d.Fields {
			if fv.Changed {
				s = append(s, fv.Field.Name)
			}
		}
		return s
	}
	tests := []struct {
		name        string
		reg         string
		raw         uint32
		wantChanged bool
		fields      string
	}{
		{"USBCMD at reset", "USBCMD", 0x00080000, false, ""},
		{"USBCMD ITC 1", "USBCMD", 0x00010000, true, "ITC"},
		{"USBCMD running, ITC 1, park 3", "USBCMD", 0x00010B01, true, "RS ASP ASPE ITC"},
		{"SBUSCFG AHBBRST 0", "SBUSCFG", 0, true, "AHBBRST"},
		// Unknown bits change the register but no field.
		{"SBUSCFG reserved bit set", "SBUSCFG", 0x80000002, true, ""},
		{"PORTSC1 at reset", "PORTSC1", 0x10000000, false, ""},
		{"PORTSC1 PFSC", "PORTSC1", 0x11000000, true, "PFSC"},
		{"TTCTRL TTHA set", "TTCTRL", 0x7F000000, true, "TTHA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := m.Register(tt.reg)
			d := r.Decode(tt.raw)
			if d.Changed != tt.wantChanged {
				t.Errorf("Changed = %v, want %v", d.Changed, tt.wantChanged)
			}
			if got := strings.Join(changed(d), " "); got != tt.fields {
				t.Errorf("changed fields %q, want %q", got, tt.fields)
			}
			for _, fv := range d.Fields {
				if r.ResetKnown && fv.Reset != fv.Field.Get(r.Reset) {
					t.Errorf("%s: Reset %d, want %d", fv.Field.Name, fv.Reset, fv.Field.Get(r.Reset))
				}
			}
		})
	}
}

func TestFormatValue(t *testing.T) {
	m := regs.ChipIdea()
	tests := []struct {
		ref  string
		raw  uint32
		want string
	}{
		{"USBCMD.ITC", 8 << 16, "8  UF8: 8 micro-frames (1 ms)"},
		{"USBCMD.ITC", 64 << 16, "64 (0x40)  UF64: 64 micro-frames (8 ms)"},
		{"BURSTSIZE.TXPBURST", 0x1000, "16 (0x10)"},
		{"USBCMD.ASP", 3 << 8, "3"},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			ref, err := m.Lookup(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			for _, fv := range ref.Reg.Decode(tt.raw).Fields {
				if fv.Field == ref.Field {
					if got := fv.FormatValue(); got != tt.want {
						t.Errorf("FormatValue() = %q, want %q", got, tt.want)
					}
				}
			}
		})
	}
	if got := regs.Hex(0xAB); got != "0x000000ab" {
		t.Errorf("Hex(0xab) = %q", got)
	}
}
