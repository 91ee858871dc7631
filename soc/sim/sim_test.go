package sim

import (
	"errors"
	"testing"

	"github.com/citune/citune/regs"
)

func newSim(t *testing.T, cfg Config) *Sim {
	t.Helper()
	if cfg.Map == nil {
		cfg.Map = regs.ChipIdea()
	}
	if cfg.Size == 0 {
		cfg.Size = 0x200
	}
	return New(cfg)
}

func TestResetValues(t *testing.T) {
	s := newSim(t, Config{})
	for off, want := range map[uint32]uint32{0x000: 0xE401FA05, 0x090: 2, 0x140: 0x00080000, 0x164: 0x808, 0x184: 0x10000000} {
		if v, _ := s.Read32(off); v != want {
			t.Errorf("reset %#x = %#x, want %#x", off, v, want)
		}
	}
}

func TestAccessSemantics(t *testing.T) {
	tests := []struct {
		name       string
		off        uint32
		start      uint32
		write      uint32
		want       uint32
		raz        []Range
		startIsRaw bool
	}{
		{"RW field stores", 0x160, 0, 0x1010, 0x1010, nil, true},
		{"read-only register ignores writes", 0x104, 0x00010011, 0xffffffff, 0x00010011, nil, true},
		{"W1C bits clear on 1", 0x144, 0x0000100d, 0x00000005, 0x00001008, nil, true},
		{"W1C bits stay on 0", 0x144, 0x0000100d, 0, 0x0000100d, nil, true},
		{"RO bits of USBSTS ignore writes", 0x144, 0, 0x0000f000, 0, nil, true},
		{"self-clearing IAA reads 0", 0x140, 0x00080000, 0x00080040, 0x00080000, nil, true},
		{"PORTSC change bits clear, RW bits store", 0x184, 0x1000100b, 0x0100000a, 0x01000001, nil, true},
		{"write-once CM takes the first write", 0x1a8, 0, 3, 3, nil, true},
		{"write-once CM keeps its value", 0x1a8, 3, 2, 3, nil, true},
		{"read-as-zero range", 0x090, 0, 7, 0, []Range{{0, 0xff}}, true},
		{"unmapped word stores raw", 0x1f0, 0, 0x55, 0x55, nil, true},
		{"any write clears TXSCHHEALTH", 0x164, 0x00021f08, 0x00021f08, 0x00020008, nil, true},
		{"PORTSC1.STS is read-only", 0x184, 0x10000000, 0x30000000, 0x10000000, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, Config{ReadAsZero: tc.raz})
			s.vals[tc.off] = tc.start
			if err := s.Write32(tc.off, tc.write); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.Read32(tc.off); got != tc.want {
				t.Errorf("after writing %#x over %#x: reads %#x, want %#x", tc.write, tc.start, got, tc.want)
			}
		})
	}
}

func TestRSTResetsController(t *testing.T) {
	s := newSim(t, Config{})
	s.Write32(0x160, 0x1010)
	s.Write32(0x140, 0x00000002)
	if v, _ := s.Read32(0x160); v != 0 {
		t.Errorf("BURSTSIZE after reset = %#x", v)
	}
	if v, _ := s.Read32(0x140); v != 0x00080000 {
		t.Errorf("USBCMD after reset = %#x", v)
	}
}

func TestDriverRevertsUSBCMD(t *testing.T) {
	s := newSim(t, Config{Driver: true, Log2IrqThresh: 3})
	if v, _ := s.Read32(0x140); v != 0x00080001 {
		t.Fatalf("USBCMD with driver = %#x, want ITC=8 RS=1", v)
	}
	s.Write32(0x140, 0x00400001)
	if v, _ := s.Read32(0x140); v != 0x00400001 {
		t.Fatalf("write did not land: %#x", v)
	}
	s.Transfer()
	if v, _ := s.Read32(0x140); v != 0x00080001 {
		t.Errorf("after Transfer USBCMD = %#x, want the driver's copy", v)
	}
	noDriver := newSim(t, Config{})
	noDriver.Write32(0x140, 0x00400001)
	noDriver.Transfer()
	if v, _ := noDriver.Read32(0x140); v != 0x00400001 {
		t.Errorf("without driver Transfer changed USBCMD to %#x", v)
	}
}

func TestHostOnlyCoreRefusesDeviceRegisters(t *testing.T) {
	s := newSim(t, Config{Map: regs.ChipIdea().ForCore(regs.CoreHostOnly)})
	for _, off := range []uint32{0x00c, 0x120, 0x178, 0x17c, 0x1a4, 0x1ac, 0x1b0, 0x1bc, 0x1c0, 0x1dc} {
		if _, err := s.Read32(off); !errors.Is(err, regs.ErrAbsent) {
			t.Errorf("Read32(%#x) = %v, want ErrAbsent", off, err)
		}
		if err := s.Write32(off, 0); !errors.Is(err, regs.ErrAbsent) {
			t.Errorf("Write32(%#x) = %v, want ErrAbsent", off, err)
		}
	}
	// The host registers answer; 0x154 is PERIODICLISTBASE there.
	for _, off := range []uint32{0x000, 0x140, 0x154, 0x158, 0x184, 0x1a8} {
		if _, err := s.Read32(off); err != nil {
			t.Errorf("Read32(%#x): %v", off, err)
		}
	}
	if err := s.Write32(0x154, 0x12345000); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Read32(0x154); v != 0x12345000 {
		t.Errorf("PERIODICLISTBASE = %#x", v)
	}
	// DCCPARAMS is kept: HC=1, DC=0 (ci_hdrc_host_init needs HC), read-only.
	if v, err := s.Read32(0x124); err != nil || v != 0x100 {
		t.Errorf("host-only DCCPARAMS = %#x, %v; want 0x100", v, err)
	}
	// An OTG core answers at every offset of the map.
	otg := newSim(t, Config{})
	if v, err := otg.Read32(0x124); err != nil || v != 0x188 {
		t.Errorf("OTG DCCPARAMS = %#x, %v", v, err)
	}
}

func TestBadOffsets(t *testing.T) {
	s := newSim(t, Config{})
	for _, off := range []uint32{0x142, 0x200} {
		if _, err := s.Read32(off); err == nil {
			t.Errorf("Read32(%#x) succeeded", off)
		}
		if err := s.Write32(off, 0); err == nil {
			t.Errorf("Write32(%#x) succeeded", off)
		}
	}
}

// A board's values at start; a controller reset still restores the reset
// values; the driver's park parameter sets park mode in its USBCMD copy.
func TestInitialValuesAndPark(t *testing.T) {
	s := newSim(t, Config{Initial: map[uint32]uint32{0x090: 0, 0x160: 0x1010}, Driver: true, Park: 3})
	if v, _ := s.Read32(0x160); v != 0x1010 {
		t.Errorf("BURSTSIZE at start = %#x, want the board's 0x1010", v)
	}
	if v, _ := s.Read32(0x140); v != 0x00010b01 {
		t.Errorf("USBCMD with ehci_hcd.park=3 = %#x, want ITC=1 ASPE=1 ASP=3 RS=1", v)
	}
	s.Write32(0x140, 0x00000002)
	if v, _ := s.Read32(0x090); v != 2 {
		t.Errorf("SBUSCFG after USBCMD.RST = %#x, want the reset value 2", v)
	}
	if v, _ := s.Read32(0x160); v != 0 {
		t.Errorf("BURSTSIZE after USBCMD.RST = %#x, want the reset value 0", v)
	}
	if s.SoC() != "" {
		t.Errorf("SoC %q", s.SoC())
	}
}
