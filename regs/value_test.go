package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

func TestParseNumber(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want uint32
		err  string // substring of the error; "" means no error
	}{
		{"decimal", "42", 42, ""},
		{"zero", "0", 0, ""},
		{"leading zero is decimal not octal", "010", 10, ""},
		{"many leading zeros", "0009", 9, ""},
		{"hex lower", "0x1f", 31, ""},
		{"hex upper prefix and digits", "0XFF", 255, ""},
		{"binary", "0b101", 5, ""},
		{"binary upper prefix", "0B11", 3, ""},
		{"octal", "0o17", 15, ""},
		{"underscores decimal", "1_000_000", 1000000, ""},
		{"underscores hex", "0xdead_beef", 0xDEADBEEF, ""},
		{"underscore after prefix", "0x_ff", 255, ""},
		{"surrounding space", "  7\t", 7, ""},
		{"max uint32", "4294967295", 0xFFFFFFFF, ""},
		{"max uint32 hex", "0xffffffff", 0xFFFFFFFF, ""},
		{"overflow decimal", "4294967296", 0, "does not fit in 32 bits"},
		{"overflow hex", "0x1_0000_0000", 0, "does not fit in 32 bits"},
		{"overflow binary", "0b1" + strings.Repeat("0", 32), 0, "does not fit in 32 bits"},
		{"empty", "", 0, "is not a number"},
		{"only spaces", "   ", 0, "is not a number"},
		{"only underscore", "_", 0, "is not a number"},
		{"prefix only", "0x", 0, "is not a number"},
		{"binary prefix only", "0b", 0, "is not a number"},
		{"garbage", "fast", 0, "is not a number"},
		{"negative", "-1", 0, "is not a number"},
		{"plus sign", "+1", 0, "is not a number"},
		{"decimal with hex digit", "12a", 0, "is not a number"},
		{"binary digit 2", "0b102", 0, "is not a number"},
		{"octal digit 8", "0o8", 0, "is not a number"},
		{"double prefix", "0x0x5", 0, "is not a number"},
		{"inner space", "1 0", 0, "is not a number"},
		{"float", "1.5", 0, "is not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := regs.ParseNumber(tt.in)
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseNumber(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseNumber(%q) = %d, want error containing %q", tt.in, got, tt.err)
			}
			if !errors.Is(err, regs.ErrValue) {
				t.Errorf("error %v does not wrap ErrValue", err)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q lacks %q", err, tt.err)
			}
			if tt.in != "" && !strings.Contains(err.Error(), tt.in) {
				t.Errorf("error %q does not quote the input %q", err, tt.in)
			}
		})
	}
}

func TestParseValue(t *testing.T) {
	m := regs.ChipIdea()
	tests := []struct {
		name string
		ref  string
		in   string
		want uint32
		err  string // substring; "" means success
	}{
		// Enum names, case ignored.
		{"AHBBRST name upper", "SBUSCFG.AHBBRST", "INCR16", 3, ""},
		{"AHBBRST name lower", "SBUSCFG.AHBBRST", "incr16", 3, ""},
		{"AHBBRST name mixed", "SBUSCFG.AHBBRST", "Incr8_Incr", 6, ""},
		{"AHBBRST unspecified length", "SBUSCFG.AHBBRST", "INCR", 0, ""},
		{"AHBBRST number", "SBUSCFG.AHBBRST", "7", 7, ""},
		{"AHBBRST reserved number", "SBUSCFG.AHBBRST", "4", 0, "reserved"},
		{"AHBBRST reserved by name", "SBUSCFG.AHBBRST", "RESERVED4", 0, "reserved"},
		{"AHBBRST out of width", "SBUSCFG.AHBBRST", "8", 0, "does not fit in 3 bit(s)"},
		{"AHBBRST garbage lists legal", "SBUSCFG.AHBBRST", "fast", 0, "legal: 0=INCR, 1=INCR4"},
		{"ITC uf8 lower", "USBCMD.ITC", "uf8", 8, ""},
		{"ITC UF64", "USBCMD.ITC", "UF64", 64, ""},
		{"ITC immediate", "USBCMD.ITC", "immediate", 0, ""},
		{"ITC number", "USBCMD.ITC", "16", 16, ""},
		{"ITC hex", "USBCMD.ITC", "0x20", 32, ""},
		{"ITC illegal 3", "USBCMD.ITC", "3", 0, "not a legal value"},
		{"ITC illegal 128", "USBCMD.ITC", "128", 0, "not a legal value"},
		{"ITC out of width", "USBCMD.ITC", "256", 0, "does not fit in 8 bit(s)"},
		{"ITC unknown name", "USBCMD.ITC", "UF3", 0, "legal: 0=IMMEDIATE"},
		{"ITC space around", "USBCMD.ITC", " UF2 ", 2, ""},
		// Booleans for one-bit fields.
		{"ASPE on", "USBCMD.ASPE", "on", 1, ""},
		{"ASPE off", "USBCMD.ASPE", "OFF", 0, ""},
		{"ASPE true", "USBCMD.ASPE", "true", 1, ""},
		{"ASPE false", "USBCMD.ASPE", "False", 0, ""},
		{"ASPE yes", "USBCMD.ASPE", "yes", 1, ""},
		{"ASPE enable", "USBCMD.ASPE", "enable", 1, ""},
		{"ASPE 1", "USBCMD.ASPE", "1", 1, ""},
		{"ASPE 2 out of width", "USBCMD.ASPE", "2", 0, "does not fit in 1 bit(s)"},
		{"PFSC on", "PORTSC1.PFSC", "on", 1, ""},
		{"SDIS on", "USBMODE.SDIS", "on", 1, ""},
		{"SDIS name disabled", "USBMODE.SDIS", "disabled", 1, ""},
		{"SDIS name streaming", "USBMODE.SDIS", "streaming", 0, ""},
		// "disable" would be 0 (streaming on) while "disabled" is 1.
		{"SDIS disable is ambiguous", "USBMODE.SDIS", "disable", 0, "ambiguous"},
		{"SDIS enabled is ambiguous", "USBMODE.SDIS", "enabled", 0, "ambiguous"},
		{"on for a wide field is not a number", "USBCMD.ASP", "on", 0, "is not a number"},
		// Ranges and widths.
		{"ASP 3", "USBCMD.ASP", "3", 3, ""},
		{"ASP 4 out of width", "USBCMD.ASP", "4", 0, "does not fit"},
		{"TXPBURST 0x10", "BURSTSIZE.TXPBURST", "0x10", 16, ""},
		{"TXPBURST 255", "BURSTSIZE.TXPBURST", "255", 255, ""},
		{"TXPBURST 256", "BURSTSIZE.TXPBURST", "256", 0, "does not fit in 8 bit(s)"},
		{"TXFIFOTHRES 63", "TXFILLTUNING.TXFIFOTHRES", "0b111111", 63, ""},
		{"TXFIFOTHRES 64", "TXFILLTUNING.TXFIFOTHRES", "64", 0, "max 63"},
		{"TTHA 0x7f", "TTCTRL.TTHA", "0x7f", 0x7F, ""},
		{"TTHA 0x80", "TTCTRL.TTHA", "0x80", 0, "does not fit in 7 bit(s)"},
		{"leading zero decimal", "BURSTSIZE.RXPBURST", "010", 10, ""},
		{"underscores", "BURSTSIZE.RXPBURST", "1_6", 16, ""},
		{"overflow", "BURSTSIZE.RXPBURST", "99999999999", 0, "does not fit in 32 bits"},
		{"empty", "BURSTSIZE.RXPBURST", "", 0, "is not a number"},
		{"CM reserved 1", "USBMODE.CM", "1", 0, "reserved"},
		{"CM host", "USBMODE.CM", "host", 3, ""},
		{"whole ITC field width of zeroes", "USBCMD.ITC", "0b0000_1000", 8, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, err := m.Lookup(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			got, err := regs.ParseValue(ref.Field, tt.in)
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Fatalf("ParseValue(%s, %q) = %d, %v; want %d", tt.ref, tt.in, got, err, tt.want)
				}
				if err := regs.CheckValue(ref.Field, got); err != nil {
					t.Errorf("parsed %d but CheckValue says %v", got, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseValue(%s, %q) = %d, want error containing %q", tt.ref, tt.in, got, tt.err)
			}
			if !errors.Is(err, regs.ErrValue) {
				t.Errorf("error %v does not wrap ErrValue", err)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %q lacks %q", err, tt.err)
			}
			if !strings.Contains(err.Error(), ref.Field.Name) {
				t.Errorf("error %q does not name the field %s", err, ref.Field.Name)
			}
		})
	}
}

// A boolean word must not bypass the field's legality rules.
func TestParseValueBooleanIsChecked(t *testing.T) {
	f := &regs.Field{Name: "LOCK", Lsb: 0, Width: 1, Strict: true,
		Values: []regs.Enum{{Value: 0, Name: "OPEN"}}}
	if v, err := regs.ParseValue(f, "on"); err == nil {
		t.Errorf("ParseValue(strict field without 1, \"on\") = %d, nil; want an error", v)
	}
	g := &regs.Field{Name: "RSV", Lsb: 0, Width: 1,
		Values: []regs.Enum{{Value: 1, Name: "BAD", Reserved: true}}}
	if v, err := regs.ParseValue(g, "true"); err == nil {
		t.Errorf("ParseValue(field with 1 reserved, \"true\") = %d, nil; want an error", v)
	}
	if v, err := regs.ParseValue(g, "off"); err != nil || v != 0 {
		t.Errorf("ParseValue(field with 1 reserved, \"off\") = %d, %v; want 0", v, err)
	}
}

func TestCheckValueRange(t *testing.T) {
	f := &regs.Field{Name: "N", Lsb: 4, Width: 4, HasRange: true, Min: 2, Max: 9}
	for v := uint32(0); v < 20; v++ {
		err := regs.CheckValue(f, v)
		if ok := v >= 2 && v <= 9; ok != (err == nil) {
			t.Errorf("CheckValue(range 2..9, %d) = %v", v, err)
		}
	}
	if got := regs.Legal(f); got != "2..9" {
		t.Errorf("Legal() = %q, want 2..9", got)
	}
	w := &regs.Field{Name: "W", Width: 32}
	if err := regs.CheckValue(w, 0xFFFFFFFF); err != nil {
		t.Errorf("32-bit field: CheckValue(0xffffffff) = %v", err)
	}
	if got := regs.Legal(w); got != "0..4294967295" {
		t.Errorf("32-bit field: Legal() = %q", got)
	}
}

func TestLegal(t *testing.T) {
	m := regs.ChipIdea()
	tests := []struct{ ref, want string }{
		{"USBCMD.ITC", "0=IMMEDIATE, 1=UF1, 2=UF2, 4=UF4, 8=UF8, 16=UF16, 32=UF32, 64=UF64"},
		{"SBUSCFG.AHBBRST", "0=INCR, 1=INCR4, 2=INCR8, 3=INCR16, 5=INCR4_INCR, 6=INCR8_INCR, 7=INCR16_INCR"},
		{"USBCMD.ASP", "0..3"},
		{"BURSTSIZE.TXPBURST", "0..255"},
		{"USBMODE.CM", "0=IDLE, 2=DEVICE, 3=HOST"},
	}
	for _, tt := range tests {
		ref, err := m.Lookup(tt.ref)
		if err != nil {
			t.Fatal(err)
		}
		if got := regs.Legal(ref.Field); got != tt.want {
			t.Errorf("Legal(%s) = %q, want %q", tt.ref, got, tt.want)
		}
	}
}
