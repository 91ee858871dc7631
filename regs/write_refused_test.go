package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

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
	ref := func(name string) regs.Ref { return lookup(t, m, name) }
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

// lookup is m.Lookup(name) in a test: a name it does not know fails t.
func lookup(t *testing.T, m *regs.Map, name string) regs.Ref {
	t.Helper()
	r, err := m.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
