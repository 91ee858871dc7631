package regs_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// op is one access seen by fakeBus.
type op struct {
	write bool
	off   uint32
	v     uint32
}

func (o op) String() string {
	if o.write {
		return fmt.Sprintf("W%#x=%#08x", o.off, o.v)
	}
	return fmt.Sprintf("R%#x", o.off)
}

// fakeBus is a memory-backed regs.Accessor with per-offset hardware
// semantics written from the reference, independently of the regs package:
//   - w1c: bits cleared by writing 1, unchanged by writing 0;
//   - ro: bits that ignore writes;
//   - sc: bits that read 0 again right after a write (doorbells, resets);
//   - wc: bits that any write to the register clears (counters);
//   - stuck: registers whose writes are lost (always read 0);
//   - never: bits that must never be written as 1 (the test fails);
//   - readErr/writeErr: accesses that fail.
//
// Every access is logged in ops.
type fakeBus struct {
	t        *testing.T
	mem      map[uint32]uint32
	w1c      map[uint32]uint32
	ro       map[uint32]uint32
	sc       map[uint32]uint32
	wc       map[uint32]uint32
	never    map[uint32]uint32
	stuck    map[uint32]bool
	readErr  map[uint32]error
	writeErr map[uint32]error
	ops      []op
}

var _ regs.Accessor = (*fakeBus)(nil)

func newFakeBus(t *testing.T) *fakeBus {
	return &fakeBus{t: t, mem: map[uint32]uint32{}, w1c: map[uint32]uint32{}, ro: map[uint32]uint32{},
		sc: map[uint32]uint32{}, wc: map[uint32]uint32{}, never: map[uint32]uint32{}, stuck: map[uint32]bool{},
		readErr: map[uint32]error{}, writeErr: map[uint32]error{}}
}

// newChipIdeaBus models one i.MX6 controller from reference §2.
func newChipIdeaBus(t *testing.T) *fakeBus {
	b := newFakeBus(t)
	for off, v := range map[uint32]uint32{
		0x000: 0xE401FA05, 0x004: 0x15, 0x008: 0x10020001, 0x00C: 0x11, 0x010: 0x80080B08, 0x014: 0x808,
		0x090: 0x2, 0x100: 0x01000040, 0x104: 0x00010011, 0x108: 0x6, 0x124: 0x188,
		0x140: 0x00080000, 0x164: 0x808, 0x180: 0x1, 0x184: 0x10000000, 0x1A4: 0x120, 0x1C0: 0x00800080,
	} {
		b.mem[off] = v
	}
	for off := uint32(0); off < 0x18; off += 4 {
		b.ro[off] = 0xFFFFFFFF // ID area
	}
	for off := uint32(0x100); off < 0x140; off += 4 {
		b.ro[off] = 0xFFFFFFFF // capability registers
	}
	const (
		rst = 1 << 1
		iaa = 1 << 6
	)
	b.sc[0x140], b.never[0x140] = rst|iaa, rst|iaa
	b.ro[0x144], b.w1c[0x144] = 0xF000, 0xFFFF0FFF // HCH RCL PS AS / status
	b.never[0x144] = 0xFFFF0FFF
	b.wc[0x164] = 0x1F00 // TXSCHHEALTH: any write clears it (not W1C)
	b.w1c[0x178], b.never[0x178] = 0xFFFFFFFF, 0xFFFFFFFF
	b.ro[0x180] = 0xFFFFFFFF
	const csc, pec, occ = 1 << 1, 1 << 3, 1 << 5
	b.w1c[0x184], b.never[0x184] = csc|pec|occ, csc|pec|occ
	b.ro[0x184] = 1<<0 | 1<<4 | 1<<9 | 3<<10 | 3<<26 // CCS OCA HSP LS PSPD
	b.w1c[0x1A4], b.never[0x1A4] = 0x007F0000, 0x007F0000
	b.ro[0x1A4] = 0x7F00
	b.w1c[0x1AC], b.never[0x1AC] = 0xFFFFFFFF, 0xFFFFFFFF
	b.sc[0x1B0], b.never[0x1B0] = 0x00FF00FF, 0x00FF00FF
	b.sc[0x1B4], b.never[0x1B4] = 0x00FF00FF, 0x00FF00FF
	b.ro[0x1B8] = 0xFFFFFFFF
	b.w1c[0x1BC], b.never[0x1BC] = 0xFFFFFFFF, 0xFFFFFFFF
	for off := uint32(0x1C4); off < 0x1E0; off += 4 {
		b.sc[off], b.never[off] = 1<<6|1<<22, 1<<6|1<<22 // RXR, TXR
	}
	return b
}

func (b *fakeBus) Read32(off uint32) (uint32, error) {
	b.ops = append(b.ops, op{off: off})
	if err := b.readErr[off]; err != nil {
		return 0, err
	}
	return b.mem[off], nil
}

func (b *fakeBus) Write32(off, v uint32) error {
	b.ops = append(b.ops, op{write: true, off: off, v: v})
	if bad := v & b.never[off]; bad != 0 {
		b.t.Errorf("wrote %#08x to %#x: bits %#08x must never be written as 1", v, off, bad)
	}
	if err := b.writeErr[off]; err != nil {
		return err
	}
	if b.stuck[off] {
		b.mem[off] = 0
		return nil
	}
	cur, ro, w1c := b.mem[off], b.ro[off], b.w1c[off]
	nv := cur&ro | v&^(ro|w1c) | cur&w1c&^v
	b.mem[off] = nv &^ b.sc[off] &^ b.wc[off]
	return nil
}

func (b *fakeBus) count(write bool, off uint32) int {
	n := 0
	for _, o := range b.ops {
		if o.write == write && o.off == off {
			n++
		}
	}
	return n
}

func (b *fakeBus) log() string {
	var s []string
	for _, o := range b.ops {
		s = append(s, o.String())
	}
	return strings.Join(s, " ")
}

func mustChanges(t *testing.T, m *regs.Map, specs ...string) []regs.Change {
	t.Helper()
	var cs []regs.Change
	for _, s := range specs {
		c, err := m.ParseChange(s)
		if err != nil {
			t.Fatalf("ParseChange(%q) = %v", s, err)
		}
		cs = append(cs, c)
	}
	return cs
}

// apply runs Prepare and Commit as the CLI does.
func apply(t *testing.T, b *fakeBus, cs []regs.Change) []regs.Result {
	t.Helper()
	ws, err := regs.Prepare(b, cs)
	if err != nil {
		t.Fatalf("Prepare = %v", err)
	}
	rs, err := regs.Commit(b, ws)
	if err != nil {
		t.Fatalf("Commit = %v", err)
	}
	return rs
}

func TestReadModifyWrite(t *testing.T) {
	tests := []struct {
		name    string
		preset  map[uint32]uint32 // register values before
		allow   map[uint32]uint32 // bits this case may write as 1 although "never"
		changes []string
		log     string            // every access, in order
		after   map[uint32]uint32 // register values after
	}{
		{
			name:    "ITC change leaves USBSTS status set",
			preset:  map[uint32]uint32{0x140: 0x00080031, 0x144: 0x0000F0FF},
			changes: []string{"ITC=UF1"},
			log:     "R0x140 W0x140=0x00010031 R0x140",
			after:   map[uint32]uint32{0x140: 0x00010031, 0x144: 0x0000F0FF},
		},
		{
			name:    "ITC=0 with IAA pending stores IAA=0 and never RST",
			preset:  map[uint32]uint32{0x140: 0x00080041},
			changes: []string{"usbcmd.itc=0"},
			log:     "R0x140 W0x140=0x00000001 R0x140",
			after:   map[uint32]uint32{0x140: 0x00000001},
		},
		{
			name:    "PFSC with CSC PEC OCC pending does not clear them",
			preset:  map[uint32]uint32{0x184: 0x1000102F},
			changes: []string{"PFSC=on"},
			log:     "R0x184 W0x184=0x11001005 R0x184",
			after:   map[uint32]uint32{0x184: 0x1100102F},
		},
		{
			name:    "OTGSC interrupt enable keeps status bits",
			preset:  map[uint32]uint32{0x1A4: 0x007F0F20},
			changes: []string{"OTGSC.IDIE=1"},
			log:     "R0x1a4 W0x1a4=0x01000f20 R0x1a4",
			after:   map[uint32]uint32{0x1A4: 0x017F0F20},
		},
		{
			name:    "TXFIFOTHRES: the write clears the TXSCHHEALTH counter and that is no mismatch",
			preset:  map[uint32]uint32{0x164: 0x00001F08},
			changes: []string{"TXFIFOTHRES=4"},
			log:     "R0x164 W0x164=0x00040008 R0x164",
			after:   map[uint32]uint32{0x164: 0x00040008},
		},
		{
			name:    "explicit USBSTS.UI=1 clears only UI",
			preset:  map[uint32]uint32{0x144: 0x0000F0FF},
			allow:   map[uint32]uint32{0x144: 1},
			changes: []string{"USBSTS.UI=1"},
			log:     "R0x144 W0x144=0x0000f001 R0x144", // RO bits 15:12 written back as read
			after:   map[uint32]uint32{0x144: 0x0000F0FE},
		},
		{
			name:    "explicit OTGSC.IDIS=1 clears only IDIS",
			preset:  map[uint32]uint32{0x1A4: 0x007F0120},
			allow:   map[uint32]uint32{0x1A4: 1 << 16},
			changes: []string{"OTGSC.IDIS=1"},
			log:     "R0x1a4 W0x1a4=0x00010120 R0x1a4",
			after:   map[uint32]uint32{0x1A4: 0x007E0120},
		},
		{
			name:    "SDIS keeps CM",
			preset:  map[uint32]uint32{0x1A8: 0x3},
			changes: []string{"SDIS=1"},
			log:     "R0x1a8 W0x1a8=0x00000013 R0x1a8",
			after:   map[uint32]uint32{0x1A8: 0x13},
		},
		{
			name:    "ENDPTCTRL TXE does not re-trigger data toggle resets",
			preset:  map[uint32]uint32{0x1C4: 0x00440044},
			changes: []string{"ENDPTCTRL1.TXE=1"},
			log:     "R0x1c4 W0x1c4=0x00840004 R0x1c4",
			after:   map[uint32]uint32{0x1C4: 0x00840004},
		},
		{
			name:    "writes go in offset order, one read before and one write and read-back each",
			preset:  map[uint32]uint32{0x140: 0x00080001, 0x160: 0x0808},
			changes: []string{"BURSTSIZE.TXPBURST=0x10", "ITC=1", "AHBBRST=INCR", "RXPBURST=16"},
			log: "R0x90 R0x140 R0x160 " +
				"W0x90=0x00000000 R0x90 W0x140=0x00010001 R0x140 W0x160=0x00001010 R0x160",
			after: map[uint32]uint32{0x90: 0, 0x140: 0x00010001, 0x160: 0x1010},
		},
		{
			name:    "two changes of one field: the last wins",
			changes: []string{"ITC=UF2", "ITC=UF4"},
			log:     "R0x140 W0x140=0x00040000 R0x140",
			after:   map[uint32]uint32{0x140: 0x00040000},
		},
		{
			name:    "whole-register write stores the value as given",
			preset:  map[uint32]uint32{0x148: 0x1FF},
			changes: []string{"USBINTR=0x7"},
			log:     "R0x148 W0x148=0x00000007 R0x148",
			after:   map[uint32]uint32{0x148: 0x7},
		},
		{
			name:    "whole USBMODE with the same CM",
			preset:  map[uint32]uint32{0x1A8: 0x3},
			changes: []string{"USBMODE=0x13"},
			log:     "R0x1a8 W0x1a8=0x00000013 R0x1a8",
			after:   map[uint32]uint32{0x1A8: 0x13},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := regs.ChipIdea()
			b := newChipIdeaBus(t)
			before := map[uint32]uint32{}
			for off, v := range tt.preset {
				b.mem[off] = v
			}
			for off, v := range tt.allow {
				b.never[off] &^= v
			}
			for off, v := range b.mem {
				before[off] = v
			}
			rs := apply(t, b, mustChanges(t, m, tt.changes...))
			if got := b.log(); got != tt.log {
				t.Errorf("accesses\n got %s\nwant %s", got, tt.log)
			}
			for off, want := range tt.after {
				if got := b.mem[off]; got != want {
					t.Errorf("after: %#x = %#08x, want %#08x", off, got, want)
				}
			}
			// Registers that were not asked for keep their values.
			for off, v := range before {
				if _, asked := tt.after[off]; !asked && b.mem[off] != v {
					t.Errorf("%#x changed from %#08x to %#08x although nobody asked", off, v, b.mem[off])
				}
			}
			for _, r := range rs {
				if !r.Held() {
					t.Errorf("%s: mismatches %v", r.Reg.Name, r.Mismatches)
				}
				if r.Old != before[r.Reg.Offset] {
					t.Errorf("%s: Old %#08x, want %#08x", r.Reg.Name, r.Old, before[r.Reg.Offset])
				}
				if r.Readback != b.mem[r.Reg.Offset] {
					t.Errorf("%s: Readback %#08x, memory %#08x", r.Reg.Name, r.Readback, b.mem[r.Reg.Offset])
				}
			}
			// Exactly one read before, one write and one read-back.
			seen := map[uint32]bool{}
			for _, o := range b.ops {
				if seen[o.off] {
					continue
				}
				seen[o.off] = true
				if r, w := b.count(false, o.off), b.count(true, o.off); r != 2 || w != 1 {
					t.Errorf("%#x: %d reads and %d writes, want 2 and 1", o.off, r, w)
				}
			}
		})
	}
}

// A change that the hardware is entitled to take (a doorbell, a W1C
// clear) is allowed when explicitly asked and not reported as a mismatch.
func TestExplicitCommands(t *testing.T) {
	m := regs.ChipIdea()
	b := newChipIdeaBus(t)
	b.never[0x140] = 1 << 1 // this test rings IAA on purpose
	b.never[0x144] = 0      // and clears USBSTS on purpose
	b.mem[0x140] = 0x00080021
	b.mem[0x144] = 0x3
	rs := apply(t, b, mustChanges(t, m, "USBCMD.IAA=1", "USBSTS=0x3"))
	if got := b.log(); got != "R0x140 R0x144 W0x140=0x00080061 R0x140 W0x144=0x00000003 R0x144" {
		t.Errorf("accesses %s", got)
	}
	for _, r := range rs {
		if !r.Held() {
			t.Errorf("%s: %v", r.Reg.Name, r.Mismatches)
		}
	}
	if b.mem[0x144] != 0 {
		t.Errorf("USBSTS = %#x after writing 1s to clear", b.mem[0x144])
	}
}
