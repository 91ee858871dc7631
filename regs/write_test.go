package regs_test

import (
	"errors"
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

func TestRefusedChanges(t *testing.T) {
	tests := []struct {
		name   string
		change string
		is     error
		msg    string
	}{
		{"whole USBCMD with RST", "USBCMD=0x00080003", regs.ErrRefused, "RST"},
		{"RST field", "USBCMD.RST=1", regs.ErrRefused, "never"},
		{"RST by boolean", "RST=on", regs.ErrRefused, "never"},
		{"RO field", "PORTSC1.CCS=1", regs.ErrRefused, "read-only"},
		{"RO field of a writable register", "USBSTS.HCH=0", regs.ErrRefused, "read-only"},
		{"CAPLENGTH register", "CAPLENGTH=0x40", regs.ErrRefused, "read-only"},
		{"CAPLENGTH field", "CAPLENGTH.CAPLENGTH=0x40", regs.ErrRefused, "read-only"},
		{"ULPI_VIEWPORT register", "ULPI_VIEWPORT=0x40000000", regs.ErrRefused, "read-only"},
		{"CONFIGFLAG register", "CONFIGFLAG=1", regs.ErrRefused, "read-only"},
		{"ENDPTSTAT register", "ENDPTSTAT=0", regs.ErrRefused, "read-only"},
		{"ID register", "ID=0xE401FA05", regs.ErrRefused, "read-only"},
		{"HWTXBUF register", "HWTXBUF=0", regs.ErrRefused, "read-only"},
		{"AHBBRST reserved", "AHBBRST=4", regs.ErrValue, "reserved"},
		{"AHBBRST reserved by whole register", "SBUSCFG=0x4", regs.ErrValue, "AHBBRST"},
		{"ITC illegal", "ITC=3", regs.ErrValue, "not a legal value"},
		{"ITC illegal by whole register", "USBCMD=0x00030000", regs.ErrValue, "ITC"},
		{"ITC too wide", "ITC=0x100", regs.ErrValue, "does not fit"},
		{"CM reserved by whole register", "USBMODE=0x1", regs.ErrValue, "CM"},
		{"TTHA too wide", "TTHA=128", regs.ErrValue, "does not fit"},
		{"no equals sign", "ITC", nil, "want FIELD=VALUE"},
		{"unknown name", "ITCX=1", regs.ErrNotFound, "did you mean USBCMD.ITC"},
		{"ambiguous name", "DC=1", regs.ErrAmbiguous, "HWDEVICE.DC"},
		{"register value garbage", "USBINTR=lots", regs.ErrValue, "not a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := regs.ChipIdea().ParseChange(tt.change)
			if err == nil {
				t.Fatalf("ParseChange(%q) accepted", tt.change)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q lacks %q", err, tt.msg)
			}
		})
	}
}

// Changes built by hand (not parsed) get the same checks from Compose and
// Prepare, and Prepare refuses before touching the hardware.
func TestComposeAndPrepareRecheck(t *testing.T) {
	m := regs.ChipIdea()
	ref := func(name string) regs.Ref {
		r, err := m.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name string
		c    regs.Change
		cur  uint32
		is   error
	}{
		{"RST=1", regs.Change{Ref: ref("USBCMD.RST"), Value: 1}, 0, regs.ErrRefused},
		{"whole USBCMD with RST", regs.Change{Ref: ref("USBCMD"), Value: 0x2}, 0, regs.ErrRefused},
		{"ITC=3", regs.Change{Ref: ref("ITC"), Value: 3}, 0x80000, regs.ErrValue},
		{"ITC=256", regs.Change{Ref: ref("ITC"), Value: 256}, 0x80000, regs.ErrValue},
		{"AHBBRST=4", regs.Change{Ref: ref("AHBBRST"), Value: 4}, 2, regs.ErrValue},
		{"ASP=7", regs.Change{Ref: ref("ASP"), Value: 7}, 0, regs.ErrValue},
		{"CCS=1", regs.Change{Ref: ref("PORTSC1.CCS"), Value: 1}, 0, regs.ErrRefused},
		{"CAPLENGTH whole", regs.Change{Ref: ref("CAPLENGTH"), Value: 0x40}, 0x40, regs.ErrRefused},
		{"ULPI_VIEWPORT whole", regs.Change{Ref: ref("ULPI_VIEWPORT"), Value: 0}, 0, regs.ErrRefused},
		{"CM idle to host", regs.Change{Ref: ref("CM"), Value: 3}, 0, regs.ErrRefused},
		{"CM host to device", regs.Change{Ref: ref("CM"), Value: 2}, 3, regs.ErrRefused},
		{"whole USBMODE changing CM", regs.Change{Ref: ref("USBMODE"), Value: 0x12}, 3, regs.ErrRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := regs.Compose(tt.c.Ref.Reg, tt.cur, []regs.Change{tt.c}); !errors.Is(err, tt.is) {
				t.Errorf("Compose = %v, want %v", err, tt.is)
			}
			b := newChipIdeaBus(t)
			b.mem[tt.c.Ref.Reg.Offset] = tt.cur
			ws, err := regs.Prepare(b, []regs.Change{tt.c})
			if !errors.Is(err, tt.is) {
				t.Errorf("Prepare = %v, %v; want %v", ws, err, tt.is)
			}
			if b.count(true, tt.c.Ref.Reg.Offset) != 0 {
				t.Errorf("Prepare wrote: %s", b.log())
			}
		})
	}
	t.Run("CM unchanged is allowed", func(t *testing.T) {
		v, err := regs.Compose(ref("USBMODE").Reg, 0x3, []regs.Change{{Ref: ref("CM"), Value: 3}})
		if err != nil || v != 0x3 {
			t.Errorf("Compose(CM=3 while 3) = %#x, %v", v, err)
		}
	})
	t.Run("change for another register", func(t *testing.T) {
		_, err := regs.Compose(ref("USBSTS").Reg, 0, []regs.Change{{Ref: ref("ITC"), Value: 1}})
		if err == nil || !strings.Contains(err.Error(), "not for register USBSTS") {
			t.Errorf("Compose = %v", err)
		}
	})
	t.Run("a refused change stops the whole batch before any access", func(t *testing.T) {
		b := newChipIdeaBus(t)
		_, err := regs.Prepare(b, []regs.Change{{Ref: ref("ITC"), Value: 1}, {Ref: ref("USBCMD.RST"), Value: 1}})
		if !errors.Is(err, regs.ErrRefused) || len(b.ops) != 0 {
			t.Errorf("Prepare = %v with accesses %s", err, b.log())
		}
	})
	t.Run("no changes, no accesses", func(t *testing.T) {
		b := newChipIdeaBus(t)
		ws, err := regs.Prepare(b, nil)
		if err != nil || len(ws) != 0 || len(b.ops) != 0 {
			t.Errorf("Prepare(nil) = %v, %v with accesses %s", ws, err, b.log())
		}
		rs, err := regs.Commit(b, nil)
		if err != nil || len(rs) != 0 || len(b.ops) != 0 {
			t.Errorf("Commit(nil) = %v, %v with accesses %s", rs, err, b.log())
		}
	})
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

func TestReadbackMismatch(t *testing.T) {
	m := regs.ChipIdea()
	b := newChipIdeaBus(t)
	b.stuck[0x15C] = true // TTCTRL: writes do not stick
	b.stuck[0x080] = true // GPTIMER0LD
	b.mem[0x15C] = 0
	rs := apply(t, b, mustChanges(t, m, "TTHA=0x7f", "GPTIMER0LD=0x1234", "ITC=UF1"))
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	want := map[string]string{
		"GPTIMER0LD": "GPTIMER0LD: wrote 0x00001234, reads 0x00000000",
		"USBCMD":     "",
		"TTCTRL":     "TTCTRL.TTHA: wrote 127, reads 0",
	}
	for _, r := range rs {
		var got []string
		for _, mm := range r.Mismatches {
			got = append(got, mm.String())
		}
		if g := strings.Join(got, "; "); g != want[r.Reg.Name] {
			t.Errorf("%s: mismatches %q, want %q", r.Reg.Name, g, want[r.Reg.Name])
		}
		if r.Held() != (want[r.Reg.Name] == "") {
			t.Errorf("%s: Held() = %v", r.Reg.Name, r.Held())
		}
	}
}

func TestCheck(t *testing.T) {
	m := regs.ChipIdea()
	ref := func(name string) regs.Ref {
		r, err := m.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		name     string
		changes  []regs.Change
		readback uint32
		want     int
	}{
		{"field held", []regs.Change{{Ref: ref("ITC"), Value: 1}}, 0x00010001, 0},
		{"field lost", []regs.Change{{Ref: ref("ITC"), Value: 1}}, 0x00080001, 1},
		{"two fields, one lost", []regs.Change{{Ref: ref("ITC"), Value: 1}, {Ref: ref("ASPE"), Value: 1}}, 0x00010000, 1},
		{"self-clearing field not compared", []regs.Change{{Ref: ref("USBCMD.IAA"), Value: 1}}, 0, 0},
		{"W1C field not compared", []regs.Change{{Ref: ref("PORTSC1.CSC"), Value: 1}}, 0, 0},
		{"whole register compares RW bits only", []regs.Change{{Ref: ref("PORTSC1"), Value: 0x1000_002B}}, 0x1000_0001, 0},
		{"whole register RW bit lost", []regs.Change{{Ref: ref("PORTSC1"), Value: 0x1100_0000}}, 0x1000_0000, 1},
		{"whole W1C register never mismatches", []regs.Change{{Ref: ref("USBSTS"), Value: 0xFF}}, 0xFF, 0},
		{"register without fields compares all bits", []regs.Change{{Ref: ref("ASYNCLISTADDR"), Value: 0x1000}}, 0x1001, 1},
		{"same field twice: the last counts", []regs.Change{{Ref: ref("ITC"), Value: 2}, {Ref: ref("ITC"), Value: 4}}, 0x00040000, 0},
		{"same field twice: the last is lost", []regs.Change{{Ref: ref("ITC"), Value: 2}, {Ref: ref("ITC"), Value: 4}}, 0x00020000, 1},
		{"field then whole register: the whole counts", []regs.Change{{Ref: ref("ITC"), Value: 2}, {Ref: ref("USBCMD"), Value: 0x00010000}}, 0x00010000, 0},
		{"whole register then field", []regs.Change{{Ref: ref("USBCMD"), Value: 0x00010001}, {Ref: ref("ITC"), Value: 8}}, 0x00080001, 0},
		{"whole register then field, other bit lost", []regs.Change{{Ref: ref("USBCMD"), Value: 0x00010001}, {Ref: ref("ITC"), Value: 8}}, 0x00080000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := regs.Check(tt.changes[0].Ref.Reg, tt.changes, tt.readback)
			if len(ms) != tt.want {
				t.Errorf("Check = %v, want %d mismatches", ms, tt.want)
			}
		})
	}
}

var errBus = errors.New("bus fault")

func TestAccessErrors(t *testing.T) {
	m := regs.ChipIdea()
	tests := []struct {
		name    string
		setup   func(b *fakeBus)
		phase   string // "prepare" or "commit"
		msg     []string
		results int    // results returned with a commit error
		log     string // accesses, in order
	}{
		{
			name:  "read before write fails",
			setup: func(b *fakeBus) { b.readErr[0x160] = errBus },
			phase: "prepare", msg: []string{"reading BURSTSIZE", "0x160"},
			log: "R0x90 R0x140 R0x160",
		},
		{
			name:  "second write fails after the first held",
			setup: func(b *fakeBus) { b.writeErr[0x140] = errBus },
			phase: "commit", msg: []string{"writing USBCMD=0x00010000", "0x140"}, results: 1,
			log: "R0x90 R0x140 R0x160 W0x90=0x00000000 R0x90 W0x140=0x00010000",
		},
		{
			name: "read-back fails",
			setup: func(b *fakeBus) {
				b.readErr[0x90] = nil
				b.writeErr[0x90] = nil
			},
			phase: "none",
			log:   "R0x90 R0x140 R0x160 W0x90=0x00000000 R0x90 W0x140=0x00010000 R0x140 W0x160=0x00001000 R0x160",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newChipIdeaBus(t)
			tt.setup(b)
			ws, err := regs.Prepare(b, mustChanges(t, m, "TXPBURST=16", "ITC=1", "AHBBRST=0"))
			if tt.phase == "prepare" {
				checkErr(t, err, tt.msg)
				if ws != nil {
					t.Errorf("Prepare returned writes with an error: %v", ws)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				rs, err := regs.Commit(b, ws)
				if tt.phase == "commit" {
					checkErr(t, err, tt.msg)
					if len(rs) != tt.results {
						t.Errorf("%d results with the error, want %d", len(rs), tt.results)
					}
				} else if err != nil {
					t.Fatal(err)
				}
			}
			if got := b.log(); got != tt.log {
				t.Errorf("accesses\n got %s\nwant %s", got, tt.log)
			}
		})
	}
	t.Run("read-back error", func(t *testing.T) {
		b := newChipIdeaBus(t)
		ws, err := regs.Prepare(b, mustChanges(t, m, "ITC=1"))
		if err != nil {
			t.Fatal(err)
		}
		b.readErr[0x140] = errBus
		rs, err := regs.Commit(b, ws)
		checkErr(t, err, []string{"reading back USBCMD", "0x140"})
		if len(rs) != 0 {
			t.Errorf("results %v with a read-back error", rs)
		}
		if got := b.log(); got != "R0x140 W0x140=0x00010000 R0x140" {
			t.Errorf("accesses %s", got)
		}
	})
}

func checkErr(t *testing.T, err error, msg []string) {
	t.Helper()
	if !errors.Is(err, errBus) {
		t.Fatalf("error %v does not wrap the bus error", err)
	}
	for _, s := range msg {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}

// For every writable field of the map, from both all-zeros and all-ones,
// a read-modify-write changes only that field and the bits that must be
// stored as 0.
func TestComposeEveryField(t *testing.T) {
	m := regs.ChipIdea()
	for i := range m.Registers {
		r := &m.Registers[i]
		for j := range r.Fields {
			f := &r.Fields[j]
			for _, cur := range []uint32{0, 0xFFFFFFFF, r.Reset} {
				for _, v := range []uint32{0, f.WidthMax(), 1} {
					c := regs.Change{Ref: regs.Ref{Reg: r, Field: f}, Value: v}
					got, err := regs.Compose(r, cur, []regs.Change{c})
					if err != nil {
						continue // refusals are tested elsewhere
					}
					checkComposed(t, r, f, cur, v, got)
				}
			}
		}
	}
}

func checkComposed(t *testing.T, r *regs.Register, f *regs.Field, cur, v, got uint32) {
	t.Helper()
	zero := r.ZeroOnWrite() &^ f.Mask()
	if got&zero != 0 {
		t.Errorf("%s.%s=%d from %#08x: stored %#08x sets bits %#08x that must be 0", r.Name, f.Name, v, cur, got, got&zero)
	}
	if f.Get(got) != v {
		t.Errorf("%s.%s=%d from %#08x: stored %#08x holds %d", r.Name, f.Name, v, cur, got, f.Get(got))
	}
	keep := ^(r.ZeroOnWrite() | f.Mask())
	if (got^cur)&keep != 0 {
		t.Errorf("%s.%s=%d from %#08x: stored %#08x also changes %#08x", r.Name, f.Name, v, cur, got, (got^cur)&keep)
	}
	if r.Name == "USBCMD" && got&2 != 0 {
		t.Errorf("%s.%s=%d from %#08x: stored %#08x sets USBCMD.RST", r.Name, f.Name, v, cur, got)
	}
}
