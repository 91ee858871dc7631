package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// The expectations in this file are copied from
// /work/shared/reference/chipidea.md (§1.2, §2, §3), not from chipidea.go,
// so that a typo in the map shows up as a failure here.

func TestChipIdeaValidates(t *testing.T) {
	if err := regs.ChipIdea().Validate(); err != nil {
		t.Fatalf("ChipIdea().Validate() = %v", err)
	}
}

func TestChipIdeaReturnsFreshCopies(t *testing.T) {
	a, b := regs.ChipIdea(), regs.ChipIdea()
	a.Register("USBCMD").Field("ITC").Lsb = 0
	a.Register("SBUSCFG").Reset = 0xdead
	if f := b.Register("USBCMD").Field("ITC"); f.Lsb != 16 {
		t.Errorf("editing one ChipIdea() map changed another: ITC lsb %d", f.Lsb)
	}
	if r := b.Register("SBUSCFG"); r.Reset != 2 {
		t.Errorf("editing one ChipIdea() map changed another: SBUSCFG reset %#x", r.Reset)
	}
}

// referenceOffsets lists every register of reference §2 / §1.2 (i.MX6,
// non-LPM, cap=+0x100, op=+0x140). TESTMODE (0x138) is deliberately left
// out: the reference marks it "not in [SDK]" with no access or reset.
var referenceOffsets = map[string]uint32{
	"ID": 0x000, "HWGENERAL": 0x004, "HWHOST": 0x008, "HWDEVICE": 0x00C,
	"HWTXBUF": 0x010, "HWRXBUF": 0x014,
	"GPTIMER0LD": 0x080, "GPTIMER0CTRL": 0x084, "GPTIMER1LD": 0x088, "GPTIMER1CTRL": 0x08C,
	"SBUSCFG": 0x090, "CAPLENGTH": 0x100, "HCSPARAMS": 0x104, "HCCPARAMS": 0x108,
	"DCIVERSION": 0x120, "DCCPARAMS": 0x124,
	"USBCMD": 0x140, "USBSTS": 0x144, "USBINTR": 0x148, "FRINDEX": 0x14C,
	"DEVICEADDR": 0x154, "ASYNCLISTADDR": 0x158, "TTCTRL": 0x15C, "BURSTSIZE": 0x160,
	"TXFILLTUNING": 0x164, "ULPI_VIEWPORT": 0x170, "ENDPTNAK": 0x178, "ENDPTNAKEN": 0x17C,
	"CONFIGFLAG": 0x180, "PORTSC1": 0x184, "OTGSC": 0x1A4, "USBMODE": 0x1A8,
	"ENDPTSETUPSTAT": 0x1AC, "ENDPTPRIME": 0x1B0, "ENDPTFLUSH": 0x1B4, "ENDPTSTAT": 0x1B8,
	"ENDPTCOMPLETE": 0x1BC,
	"ENDPTCTRL0":    0x1C0, "ENDPTCTRL1": 0x1C4, "ENDPTCTRL2": 0x1C8, "ENDPTCTRL3": 0x1CC,
	"ENDPTCTRL4": 0x1D0, "ENDPTCTRL5": 0x1D4, "ENDPTCTRL6": 0x1D8, "ENDPTCTRL7": 0x1DC,
}

func TestChipIdeaOffsets(t *testing.T) {
	m := regs.ChipIdea()
	for name, off := range referenceOffsets {
		t.Run(name, func(t *testing.T) {
			r := m.Register(name)
			if r == nil {
				t.Fatalf("no register %s", name)
			}
			if r.Offset != off {
				t.Errorf("%s at %#x, reference says %#x", name, r.Offset, off)
			}
			if got := m.At(off); got != r {
				t.Errorf("At(%#x) = %v, want %s", off, got, name)
			}
		})
	}
	for _, r := range m.Registers {
		if _, ok := referenceOffsets[r.Name]; !ok {
			t.Errorf("register %s at %#x is not in the reference table", r.Name, r.Offset)
		}
	}
	if got, want := m.End(), uint32(0x1E0); got != want {
		t.Errorf("End() = %#x, want %#x (last register ENDPTCTRL7 at 0x1DC)", got, want)
	}
	for i := 1; i < len(m.Registers); i++ {
		if m.Registers[i-1].Offset >= m.Registers[i].Offset {
			t.Errorf("registers not sorted by offset: %s (%#x) before %s (%#x)",
				m.Registers[i-1].Name, m.Registers[i-1].Offset, m.Registers[i].Name, m.Registers[i].Offset)
		}
	}
}

func TestChipIdeaResetValues(t *testing.T) {
	tests := []struct {
		reg   string
		reset uint32
		why   string
	}{
		{"ID", 0xE401FA05, "[SDK] 171-173"},
		{"HWGENERAL", 0x00000015, "[SDK] 251-253"},
		{"HWHOST", 0x10020001, "[SDK] 358-360"},
		{"HWDEVICE", 0x00000011, "[SDK] 425-427"},
		{"HWTXBUF", 0x80080B08, "[SDK] 493-495"},
		{"HWRXBUF", 0x00000808, "[SDK] 561-563"},
		{"SBUSCFG", 0x00000002, "[SDK] 1051-1053"},
		// CAPLENGTH is 8 bits at 0x100 (0x40) and HCIVERSION 16 bits at
		// 0x102 (0x0100): one little-endian word.
		{"CAPLENGTH", 0x01000040, "[SDK] 1123-1125, 1175-1177"},
		{"HCSPARAMS", 0x00010011, "[SDK] 1227-1229"},
		{"HCCPARAMS", 0x00000006, "[SDK] 1384-1386"},
		{"DCIVERSION", 0x00000001, "[SDK] 1509-1511"},
		{"DCCPARAMS", 0x00000188, "[SDK] 1560-1562"},
		{"USBCMD", 0x00080000, "[SDK] 1642-1644"},
		{"TXFILLTUNING", 0x00000808, "[SDK] 3340-3342"},
		{"CONFIGFLAG", 0x00000001, "[SDK] 3656-3658"},
		{"PORTSC1", 0x10000000, "[SDK] 3715-3717"},
		{"OTGSC", 0x00000120, "[SDK] 4436-4438"},
		{"USBMODE", 0x00000000, "[SDK] 4995-4997"},
		{"ENDPTCTRL0", 0x00800080, "[SDK] 5587-5589"},
		{"ENDPTCTRL1", 0, "reference: others 0"},
		{"ENDPTCTRL7", 0, "reference: others 0"},
	}
	m := regs.ChipIdea()
	for _, tt := range tests {
		t.Run(tt.reg, func(t *testing.T) {
			r := m.Register(tt.reg)
			if r == nil {
				t.Fatalf("no register %s", tt.reg)
			}
			if !r.ResetKnown {
				t.Errorf("%s: ResetKnown = false, reference gives %#08x (%s)", tt.reg, tt.reset, tt.why)
			}
			if r.Reset != tt.reset {
				t.Errorf("%s: reset %#08x, reference %#08x (%s)", tt.reg, r.Reset, tt.reset, tt.why)
			}
		})
	}
	// Issue 27, truth 5: the binding documents TTHA's default (0).
	t.Run("TTCTRL reset 0 from the binding", func(t *testing.T) {
		if r := m.Register("TTCTRL"); !r.ResetKnown || r.Reset != 0 || !strings.Contains(r.Source, "chipidea,usb2-common.yaml") {
			t.Errorf("TTCTRL: reset %#x known %v source %q; want 0 from chipidea,usb2-common.yaml", r.Reset, r.ResetKnown, r.Source)
		}
	})
}

// Every documented reset value must decode to legal field values: a reset
// value that the map itself calls illegal means the map is wrong.
func TestChipIdeaResetValuesDecodeLegal(t *testing.T) {
	m := regs.ChipIdea()
	for i := range m.Registers {
		r := &m.Registers[i]
		if !r.ResetKnown {
			continue
		}
		d := r.Decode(r.Reset)
		for _, fv := range d.Fields {
			if fv.Illegal {
				t.Errorf("%s.%s: reset value %d is flagged illegal", r.Name, fv.Field.Name, fv.Value)
			}
			if fv.Changed {
				t.Errorf("%s.%s: reset value decodes as changed from reset", r.Name, fv.Field.Name)
			}
		}
		if d.Changed {
			t.Errorf("%s: reset value decodes as changed", r.Name)
		}
	}
}

func TestChipIdeaKnobFields(t *testing.T) {
	tests := []struct {
		ref      string
		off      uint32
		msb, lsb uint
		knob     bool
	}{
		{"USBCMD.ITC", 0x140, 23, 16, true},
		{"USBCMD.ASP", 0x140, 9, 8, true},
		{"USBCMD.ASPE", 0x140, 11, 11, true},
		{"SBUSCFG.AHBBRST", 0x090, 2, 0, true},
		{"BURSTSIZE.RXPBURST", 0x160, 7, 0, true},
		// Linux TX_BURST_MASK 0xff00; [SDK] says 16:8 (reference §6.3).
		{"BURSTSIZE.TXPBURST", 0x160, 15, 8, true},
		{"TXFILLTUNING.TXFIFOTHRES", 0x164, 21, 16, true},
		{"TXFILLTUNING.TXSCHOH", 0x164, 7, 0, true},
		{"USBMODE.SDIS", 0x1A8, 4, 4, true},
		{"TTCTRL.TTHA", 0x15C, 30, 24, true},
		{"PORTSC1.PFSC", 0x184, 24, 24, false},
		{"PORTSC1.PHCD", 0x184, 23, 23, false},
		// Fields the hardware rules depend on.
		{"USBCMD.RST", 0x140, 1, 1, false},
		{"USBCMD.IAA", 0x140, 6, 6, false},
		{"USBMODE.CM", 0x1A8, 1, 0, false},
		{"PORTSC1.CSC", 0x184, 1, 1, false},
		{"PORTSC1.PEC", 0x184, 3, 3, false},
		{"PORTSC1.OCC", 0x184, 5, 5, false},
		{"TXFILLTUNING.TXSCHHEALTH", 0x164, 12, 8, false},
	}
	m := regs.ChipIdea()
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			ref, err := m.Lookup(tt.ref)
			if err != nil {
				t.Fatal(err)
			}
			if ref.Reg.Offset != tt.off {
				t.Errorf("register at %#x, want %#x", ref.Reg.Offset, tt.off)
			}
			f := ref.Field
			if got, want := f.Mask(), mask(tt.msb, tt.lsb); got != want {
				t.Errorf("bits %s (mask %#08x), reference %d:%d (mask %#08x)", f.Bits(), got, tt.msb, tt.lsb, want)
			}
			if tt.knob && !f.Knob {
				t.Errorf("%s is a tuning knob in reference §3.1 but Knob is false", tt.ref)
			}
		})
	}
}

func mask(msb, lsb uint) uint32 {
	var m uint32
	for b := lsb; b <= msb; b++ {
		m |= 1 << b
	}
	return m
}

// TestChipIdeaAccessKinds pins the hardware rules of reference §2 to the
// access kinds the write path depends on.
func TestChipIdeaAccessKinds(t *testing.T) {
	m := regs.ChipIdea()
	// zero is the exact set of bits a read-modify-write must store as 0:
	// write-1-to-clear status, self-clearing commands, USBCMD.RST.
	zero := []struct {
		reg  string
		bits uint32
	}{
		{"USBCMD", 1<<1 | 1<<6},         // RST, IAA
		{"USBSTS", 0xFFFE0FFF},          // everything but HCH/RCL/PS/AS/NAKI (RO)
		{"PORTSC1", 1<<1 | 1<<3 | 1<<5}, // CSC, PEC, OCC
		{"OTGSC", 0x007F0000},           // IDIS..DPIS
		{"TXFILLTUNING", 0x1F00},        // TXSCHHEALTH (cleared by any write)
		{"ENDPTNAK", 0xFFFFFFFF},        // W1C
		{"ENDPTSETUPSTAT", 0xFFFFFFFF},  // W1C
		{"ENDPTCOMPLETE", 0xFFFFFFFF},   // W1C
		{"ENDPTPRIME", 0x00FF00FF},      // self-clearing, 8 endpoints
		{"ENDPTFLUSH", 0x00FF00FF},      // self-clearing, 8 endpoints
		{"ENDPTCTRL0", 0},               // no RXR/TXR on endpoint 0
		{"ENDPTCTRL1", 1<<6 | 1<<22},    // RXR, TXR (data toggle reset)
		{"SBUSCFG", 0},                  //
		{"BURSTSIZE", 0},                //
		{"USBMODE", 0},                  //
		{"TTCTRL", 0},                   //
		{"USBINTR", 0},                  //
		{"ENDPTNAKEN", 0},               //
		{"GPTIMER0CTRL", 0},             //
		{"ASYNCLISTADDR", 0},            //
		{"DEVICEADDR", 0},               //
		{"FRINDEX", 0},                  //
		{"ENDPTCTRL7", 1<<6 | 1<<22},    //
		{"ENDPTSTAT", 0},                // read-only register, never written
		{"CONFIGFLAG", 0},               // read-only register, never written
		{"HCCPARAMS", 0},                // read-only register, never written
		{"ULPI_VIEWPORT", 0},            // read-only register, never written
		{"ID", 0},                       // read-only register, never written
	}
	for _, tt := range zero {
		if got := m.Register(tt.reg).ZeroOnWrite(); got != tt.bits {
			t.Errorf("%s.ZeroOnWrite() = %#08x, want %#08x", tt.reg, got, tt.bits)
		}
	}
	readOnly := []string{"ID", "HWGENERAL", "HWHOST", "HWDEVICE", "HWTXBUF", "HWRXBUF",
		"CAPLENGTH", "HCSPARAMS", "HCCPARAMS", "DCIVERSION", "DCCPARAMS", "ULPI_VIEWPORT", "CONFIGFLAG", "ENDPTSTAT"}
	for _, name := range readOnly {
		t.Run("whole "+name+" refused", func(t *testing.T) {
			r := m.Register(name)
			_, err := regs.Compose(r, 0, []regs.Change{{Ref: regs.Ref{Reg: r}, Value: 0}})
			if !errors.Is(err, regs.ErrRefused) {
				t.Errorf("writing %s whole = %v, want ErrRefused (all of it is read-only)", name, err)
			}
		})
	}
	if f := m.Register("USBCMD").Field("RST"); !f.Never {
		t.Errorf("USBCMD.RST: Never = false; citune must never set it")
	}
	if f := m.Register("USBMODE").Field("CM"); f.Access != regs.WriteOnce {
		t.Errorf("USBMODE.CM: access %v, want WO1 (write-once)", f.Access)
	}
}
