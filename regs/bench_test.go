package regs_test

import (
	"testing"

	"github.com/citune/citune/regs"
)

// snapshot is a fixed register image: reset values, with a running host
// controller's status and a few tuned knobs on top.
func snapshot(m *regs.Map) map[uint32]uint32 {
	s := map[uint32]uint32{}
	for i := range m.Registers {
		s[m.Registers[i].Offset] = m.Registers[i].Reset
	}
	s[0x090] = 0x0                // AHBBRST=INCR
	s[0x140] = 0x00010B31         // running, park 3, ITC=1
	s[0x144] = 0x0000008D         // status pending
	s[0x160] = 0x00001010         // 16-word bursts
	s[0x184] = 0x1000_1A05 | 1<<1 // connected high-speed port, CSC pending
	s[0x1A8] = 0x00000013         // host, streaming disabled
	return s
}

func BenchmarkDecodeController(b *testing.B) {
	m := regs.ChipIdea()
	snap := snapshot(m)
	raws := make([]uint32, len(m.Registers))
	for i := range m.Registers {
		raws[i] = snap[m.Registers[i].Offset]
	}
	var unknown uint32
	for b.Loop() {
		for i := range m.Registers {
			d := m.Registers[i].Decode(raws[i])
			unknown |= d.Unknown
		}
	}
	_ = unknown
}

func BenchmarkCompose(b *testing.B) {
	m := regs.ChipIdea()
	cs := []regs.Change{}
	for _, s := range []string{"ITC=UF1", "ASP=3", "ASPE=on"} {
		c, err := m.ParseChange(s)
		if err != nil {
			b.Fatal(err)
		}
		cs = append(cs, c)
	}
	r := m.Register("USBCMD")
	cur := snapshot(m)[r.Offset] | 1<<6 // IAA pending
	for b.Loop() {
		if _, err := regs.Compose(r, cur, cs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseChange(b *testing.B) {
	m := regs.ChipIdea()
	for b.Loop() {
		if _, err := m.ParseChange("usbcmd.itc=uf8"); err != nil {
			b.Fatal(err)
		}
	}
}
