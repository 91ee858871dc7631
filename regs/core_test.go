package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// hostOnlyAbsent is the list of registers the i.MX6 SDK's USB_UHx register
// sets do not have (issue 11, reference chipidea.md §2).
var hostOnlyAbsent = []string{"HWDEVICE", "DCIVERSION", "DEVICEADDR",
	"ENDPTNAK", "ENDPTNAKEN", "OTGSC", "ENDPTSETUPSTAT", "ENDPTPRIME", "ENDPTFLUSH",
	"ENDPTSTAT", "ENDPTCOMPLETE", "ENDPTCTRL0", "ENDPTCTRL1", "ENDPTCTRL2", "ENDPTCTRL3",
	"ENDPTCTRL4", "ENDPTCTRL5", "ENDPTCTRL6", "ENDPTCTRL7"}

func TestForCoreHostOnly(t *testing.T) {
	full := regs.ChipIdea()
	m := full.ForCore(regs.CoreHostOnly)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, name := range hostOnlyAbsent {
		if r := m.Register(name); r != nil {
			t.Errorf("host-only map has %s at %#x", name, r.Offset)
		}
		if full.Register(name) == nil {
			t.Errorf("full map lacks %s", name)
		}
	}
	if got, want := len(m.Registers)+len(m.Absent)-1, len(full.Registers); got != want {
		// -1: DEVICEADDR is absent by name and replaced at 0x154.
		t.Errorf("host-only %d registers + %d absent, full map %d", len(m.Registers), len(m.Absent), len(full.Registers))
	}
	plb := m.At(0x154)
	if plb == nil || plb.Name != "PERIODICLISTBASE" || plb.Field("BASEADR") == nil || plb.Field("BASEADR").Bits() != "31:12" {
		t.Errorf("0x154 on a host-only core = %+v, want PERIODICLISTBASE with BASEADR 31:12", plb)
	}
	if r := m.At(0x158); r == nil || r.Name != "ASYNCLISTADDR" || strings.Contains(r.Desc, "ENDPOINTLISTADDR in device") {
		t.Errorf("0x158 on a host-only core = %+v", r)
	}
	// The OTG map keeps everything, and narrowing does not touch full.
	if o := full.ForCore(regs.CoreOTG); len(o.Registers) != len(full.Registers) || len(o.Absent) != 0 {
		t.Errorf("OTG map: %d registers, %d absent", len(o.Registers), len(o.Absent))
	}
	if full.Register("DCCPARAMS") == nil || full.At(0x154).Name != "DEVICEADDR" {
		t.Error("ForCore modified the map it was called on")
	}
	// Clone keeps the narrowing.
	if c := m.Clone(); c.Core != regs.CoreHostOnly || len(c.Absent) != len(m.Absent) {
		t.Errorf("Clone lost the core: %q, %d absent", c.Core, len(c.Absent))
	}
}

func TestLookupAbsentRegister(t *testing.T) {
	m := regs.ChipIdea().ForCore(regs.CoreHostOnly)
	for _, name := range []string{"DCIVERSION", "OTGSC.IDPU", "ENDPTCTRL3", "HWDEVICE.DC", "DEVICEADDR.USBADR"} {
		_, err := m.Lookup(name)
		if !errors.Is(err, regs.ErrAbsent) {
			t.Errorf("Lookup(%q) = %v, want ErrAbsent", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "host-only") {
			t.Errorf("Lookup(%q): %v does not say why", name, err)
		}
	}
	if _, err := m.ParseChange("OTGSC.IDPU=1"); !errors.Is(err, regs.ErrAbsent) {
		t.Errorf("ParseChange on an absent register = %v", err)
	}
	if _, err := m.Lookup("USBCMD.ITC"); err != nil {
		t.Errorf("USBCMD.ITC on host-only: %v", err)
	}
}

func TestGuardRefusesAbsentRegisters(t *testing.T) {
	m := regs.ChipIdea().ForCore(regs.CoreHostOnly)
	b := newFakeBus(t)
	g := regs.Guard(b, m)
	if _, err := g.Read32(0x120); !errors.Is(err, regs.ErrAbsent) || !strings.Contains(err.Error(), "DCIVERSION") {
		t.Errorf("read of DCIVERSION = %v", err)
	}
	if err := g.Write32(0x1A4, 0); !errors.Is(err, regs.ErrAbsent) || !strings.Contains(err.Error(), "OTGSC") {
		t.Errorf("write of OTGSC = %v", err)
	}
	if len(b.ops) != 0 {
		t.Errorf("refused accesses reached the bus: %s", b.log())
	}
	if _, err := g.Read32(0x140); err != nil {
		t.Errorf("read of USBCMD: %v", err)
	}
	if _, err := g.Read32(0x154); err != nil {
		t.Errorf("read of PERIODICLISTBASE: %v", err)
	}
	// A full map guards nothing.
	if regs.Guard(b, regs.ChipIdea()) != regs.Accessor(b) {
		t.Error("Guard wrapped an accessor for a map with no absent register")
	}
}

func TestParseCore(t *testing.T) {
	for in, want := range map[string]regs.Core{"otg": regs.CoreOTG, "OTG": regs.CoreOTG, "host-only": regs.CoreHostOnly} {
		if got, err := regs.ParseCore(in); err != nil || got != want {
			t.Errorf("ParseCore(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "host", "device"} {
		if _, err := regs.ParseCore(in); err == nil {
			t.Errorf("ParseCore(%q) accepted", in)
		}
	}
}

// TestFieldPositions checks the field fixes of issue 11 against the bit
// positions the issue gives (i.MX6 SDK regsusbcore.h).
func TestFieldPositions(t *testing.T) {
	m := regs.ChipIdea()
	want := []struct {
		ref  string
		bits string
		acc  regs.Access
	}{
		{"USBSTS.ULPII", "10", regs.W1C},
		{"USBSTS.NAKI", "16", regs.RO},
		{"USBSTS.TI0", "24", regs.W1C},
		{"USBSTS.TI1", "25", regs.W1C},
		{"USBINTR.ULPIE", "10", regs.RW},
		{"USBINTR.NAKE", "16", regs.RW},
		{"USBINTR.UAIE", "18", regs.RW},
		{"USBINTR.UPIE", "19", regs.RW},
		{"USBINTR.TIE0", "24", regs.RW},
		{"USBINTR.TIE1", "25", regs.RW},
		{"TXFILLTUNING.TXSCHHEALTH", "12:8", regs.WC},
		{"PORTSC1.STS", "29", regs.RO},
		{"ENDPTNAK.EPRN", "7:0", regs.W1C},
		{"ENDPTNAK.EPTN", "23:16", regs.W1C},
		{"ENDPTNAKEN.EPRNE", "7:0", regs.RW},
		{"ENDPTNAKEN.EPTNE", "23:16", regs.RW},
		{"ENDPTPRIME.PERB", "7:0", regs.SC},
		{"ENDPTPRIME.PETB", "23:16", regs.SC},
		{"ENDPTFLUSH.FERB", "7:0", regs.SC},
		{"ENDPTFLUSH.FETB", "23:16", regs.SC},
		{"ENDPTSTAT.ERBR", "7:0", regs.RO},
		{"ENDPTSTAT.ETBR", "23:16", regs.RO},
		{"ENDPTCOMPLETE.ERCE", "7:0", regs.W1C},
		{"ENDPTCOMPLETE.ETCE", "23:16", regs.W1C},
	}
	for n := 1; n < 8; n++ {
		for _, f := range []struct {
			name, bits string
			acc        regs.Access
		}{{"RXD", "1", regs.RW}, {"RXI", "5", regs.RW}, {"TXD", "17", regs.RW}, {"TXI", "21", regs.RW}, {"RXR", "6", regs.SC}, {"TXR", "22", regs.SC}} {
			want = append(want, struct {
				ref  string
				bits string
				acc  regs.Access
			}{"ENDPTCTRL" + string(rune('0'+n)) + "." + f.name, f.bits, f.acc})
		}
	}
	for _, w := range want {
		ref, err := m.Lookup(w.ref)
		if err != nil {
			t.Errorf("%s: %v", w.ref, err)
			continue
		}
		if ref.Field.Bits() != w.bits || ref.Field.Access != w.acc {
			t.Errorf("%s: bits %s %v, want %s %v", w.ref, ref.Field.Bits(), ref.Field.Access, w.bits, w.acc)
		}
	}
	// The reserved bits of the endpoint bitmaps are not described (shown
	// raw by dump), and ENDPTCTRL0 has no toggle reset bits.
	for _, name := range []string{"ENDPTNAK", "ENDPTNAKEN", "ENDPTPRIME", "ENDPTFLUSH", "ENDPTSTAT", "ENDPTCOMPLETE"} {
		if got := m.Register(name).Covered(); got != 0x00FF00FF {
			t.Errorf("%s covers %#08x, want 0x00ff00ff (bits 15:8 and 31:24 reserved)", name, got)
		}
	}
	for _, f := range []string{"RXR", "TXR", "RXD", "RXI", "TXD", "TXI"} {
		if m.Register("ENDPTCTRL0").Field(f) != nil {
			t.Errorf("ENDPTCTRL0.%s exists; it is reserved on endpoint 0", f)
		}
	}
	if _, err := m.ParseChange("PORTSC1.STS=1"); !errors.Is(err, regs.ErrRefused) {
		t.Errorf("PORTSC1.STS=1: %v, want refused (read-only)", err)
	}
}

// TestTXSCHHEALTHClearedByAnyWrite: the counter is not write-1-to-clear;
// any write clears it, so a change may only ask for 0 and neither a
// read-back of a field change nor a whole-register restore reports the
// counter's drop as a value that did not hold.
func TestTXSCHHEALTHClearedByAnyWrite(t *testing.T) {
	m := regs.ChipIdea()
	if _, err := m.ParseChange("TXSCHHEALTH=3"); !errors.Is(err, regs.ErrRefused) {
		t.Errorf("TXSCHHEALTH=3: %v, want refused", err)
	}
	if _, err := m.ParseChange("TXSCHHEALTH=0"); err != nil {
		t.Errorf("TXSCHHEALTH=0: %v", err)
	}
	b := newChipIdeaBus(t)
	b.mem[0x164] = 0x00021F08 // health counter at 31
	// Restore-like whole-register write of a value with the counter set.
	c, err := m.ParseChange("TXFILLTUNING=0x00021f10")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := regs.Prepare(b, []regs.Change{c})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := regs.Commit(b, ws)
	if err != nil {
		t.Fatal(err)
	}
	if b.mem[0x164] != 0x00020010 {
		t.Errorf("after the write TXFILLTUNING = %#08x, want 0x00020010 (counter cleared)", b.mem[0x164])
	}
	if !rs[0].Held() {
		t.Errorf("counter drop reported as not held: %v", rs[0].Mismatches)
	}
	// A real difference in a RW field is still reported.
	if ms := regs.Check(m.Register("TXFILLTUNING"), []regs.Change{c}, 0x00030010); len(ms) != 1 {
		t.Errorf("TXFIFOTHRES difference: %v, want one mismatch", ms)
	}
}

// TestHostOnlyKeepsDCCPARAMS (issue 27, truth 1): Linux's
// ci_hdrc_host_init() returns -ENXIO unless DCCPARAMS.HC reads 1, and
// hw_device_init() reads DCCPARAMS.DEN, so a host-only core has the
// register: HC=1, DC=0.
func TestHostOnlyKeepsDCCPARAMS(t *testing.T) {
	m := regs.ChipIdea().ForCore(regs.CoreHostOnly)
	r := m.Register("DCCPARAMS")
	if r == nil {
		t.Fatal("host-only map has no DCCPARAMS")
	}
	if !r.ResetKnown || r.Reset != 0x100 || r.Field("HC").Get(r.Reset) != 1 || r.Field("DC").Get(r.Reset) != 0 {
		t.Errorf("host-only DCCPARAMS reset %#x (known %v), want 0x100 (HC=1, DC=0)", r.Reset, r.ResetKnown)
	}
	if !strings.Contains(r.Source, "ci_hdrc_host_init") {
		t.Errorf("host-only DCCPARAMS source %q does not cite host.c", r.Source)
	}
	if _, err := m.Lookup("DCCPARAMS.HC"); err != nil {
		t.Errorf("Lookup(DCCPARAMS.HC) on host-only: %v", err)
	}
	if m.AbsentAt(0x124) != nil {
		t.Error("0x124 listed absent on a host-only core")
	}
	// The OTG core keeps the SDK value.
	if o := regs.ChipIdea().ForCore(regs.CoreOTG).Register("DCCPARAMS"); o == nil || o.Reset != 0x188 {
		t.Errorf("OTG DCCPARAMS = %+v", o)
	}
}
