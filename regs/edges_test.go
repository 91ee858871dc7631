package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// A guarded accessor lets accesses to the registers the core has reach
// the bus unchanged.
func TestGuardPassesPresentRegisters(t *testing.T) {
	m := regs.ChipIdea().ForCore(regs.CoreHostOnly)
	b := newFakeBus(t)
	g := regs.Guard(b, m)
	if err := g.Write32(0x140, 0x00400000); err != nil {
		t.Fatalf("write of USBCMD: %v", err)
	}
	if v, err := b.Read32(0x140); err != nil || v != 0x00400000 {
		t.Errorf("USBCMD on the bus = %#x, %v; want the guarded write", v, err)
	}
}

// A whole-register value is refused when it carries an illegal value for
// a field the hardware takes, naming the field.
func TestWholeRegisterValueWithIllegalField(t *testing.T) {
	m := regs.ChipIdea()
	sbuscfg := m.Register("SBUSCFG")
	_, err := regs.Prepare(newChipIdeaBus(t), []regs.Change{{Ref: regs.Ref{Reg: sbuscfg}, Value: 4}})
	if !errors.Is(err, regs.ErrValue) || !strings.Contains(err.Error(), "SBUSCFG=0x00000004: SBUSCFG.AHBBRST: ") || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("SBUSCFG=4: %v, want AHBBRST's reserved value named", err)
	}
}

// A read-only register's fields and the register as a whole are live
// state.
func TestReadOnlyRegisterIsLive(t *testing.T) {
	m := regs.ChipIdea()
	for _, name := range []string{"HWGENERAL", "HCSPARAMS", "CAPLENGTH"} {
		r := m.Register(name)
		if r == nil {
			t.Fatalf("no %s", name)
		}
		if c := regs.ClassOf(r, nil); c != regs.ClassLive {
			t.Errorf("%s: class %d, want live", name, c)
		}
	}
}

// The legal values of a fixed-set field leave out its reserved values;
// a field whose names cover every value lists them too.
func TestLegalLeavesOutReserved(t *testing.T) {
	m := regs.ChipIdea()
	ahb, _ := m.Lookup("AHBBRST")
	if got, want := regs.Legal(ahb.Field), "0=INCR, 1=INCR4, 2=INCR8, 3=INCR16, 5=INCR4_INCR, 6=INCR8_INCR, 7=INCR16_INCR"; got != want {
		t.Errorf("Legal(AHBBRST) = %q, want %q", got, want)
	}
	full := &regs.Field{Name: "MODE", Width: 1, Values: []regs.Enum{{Value: 0, Name: "OFF"}, {Value: 1}}}
	if got := regs.Legal(full); got != "0=OFF, 1" {
		t.Errorf("Legal(MODE) = %q", got)
	}
}

// Meaning gives a value's name and meaning, either alone when only one
// is known, "reserved" and "not a legal value" where they apply.
func TestMeaningParts(t *testing.T) {
	f := &regs.Field{Name: "X", Width: 3, Values: []regs.Enum{
		{Value: 0, Name: "OFF"}, {Value: 1, Meaning: "one packet"}, {Value: 2, Name: "TWO", Meaning: "two packets"},
		{Value: 3, Meaning: "do not use", Reserved: true},
	}}
	for v, want := range map[uint32]string{0: "OFF", 1: "one packet", 2: "TWO: two packets", 3: "reserved: do not use", 5: ""} {
		if got := regs.Meaning(f, v); got != want {
			t.Errorf("Meaning(%d) = %q, want %q", v, got, want)
		}
	}
	f.Strict = true
	if got := regs.Meaning(f, 5); got != "not a legal value" {
		t.Errorf("strict Meaning(5) = %q", got)
	}
}

// Suggestions never compare long strings: they count as far apart.
func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"AHBBRST", "AHBBRST", 0},
		{"AHBBST", "AHBBRST", 1},
		{"TXPBURST", "RXPBURST", 1},
		{"", "ITC", 3},
		{strings.Repeat("A", 65), "A", 99},
	} {
		if got := regs.EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// A field name that is not an identifier is a map error naming it.
func TestValidateFieldName(t *testing.T) {
	m := &regs.Map{Name: "t", Registers: []regs.Register{{Name: "CTRL", Offset: 0, Fields: []regs.Field{{Name: "9LIVES", Lsb: 0, Width: 1, Access: regs.RW}}}}}
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "field CTRL.9LIVES: name must be letters") {
		t.Errorf("Validate = %v", err)
	}
}
