package soc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// TestUSBMiscWordEveryProfile: every silicon profile places each
// controller's usbmisc control word (the profile's second window) in its
// map, with the non-burst bit 1 decoded and a knob that says how it
// persists; QEMU has no usbmisc device and declares none.
func TestUSBMiscWordEveryProfile(t *testing.T) {
	want := map[string]map[string]uint64{
		"imx6q":  {"usbotg": 0x02184800, "usbh1": 0x02184804, "usbh2": 0x02184808, "usbh3": 0x0218480c},
		"imx6sl": {"usbotg1": 0x02184800, "usbotg2": 0x02184804, "usbh": 0x02184808},
		"imx6sx": {"usbotg1": 0x02184800, "usbotg2": 0x02184804, "usbh": 0x02184808},
		"imx6ul": {"usbotg1": 0x02184800, "usbotg2": 0x02184804},
		"vf610":  {"usbdev0": 0x40034800, "usbh1": 0x400b4800},
	}
	for name, words := range want {
		p := profile(t, name)
		for label, addr := range words {
			c, err := p.Controller(label)
			if err != nil {
				t.Fatal(err)
			}
			r := c.Map.Register("USBMISC_CTRL")
			if r == nil {
				t.Errorf("%s %s: no USBMISC_CTRL", name, label)
				continue
			}
			if uint64(r.Offset) != addr-c.Base || r.Window != "usbmisc" {
				t.Errorf("%s %s: USBMISC_CTRL at +%#x (%q), want %#x", name, label, r.Offset, r.Window, addr-c.Base)
			}
			if c.Span() != r.Offset+4 && c.Span() != c.Size {
				t.Errorf("%s %s: span %#x", name, label, c.Span())
			}
			f := r.Field("NON_BURST")
			if f == nil || f.Bits() != "1" || f.Access != regs.RW || !f.Knob {
				t.Errorf("%s %s: NON_BURST = %+v", name, label, f)
			}
			k := p.Knob(regs.Ref{Reg: r, Field: f})
			if k == nil || !strings.HasPrefix(k.None, "none: ") || k.DT != "" || k.Param != "" {
				t.Errorf("%s: NON_BURST knob %+v, want a none: text", name, k)
			}
			if name != "vf610" && !strings.Contains(k.None, "every probe") {
				t.Errorf("%s: NON_BURST persistence %q does not say the driver sets it at every probe", name, k.None)
			}
			if name == "vf610" && !strings.Contains(k.None, "never") {
				t.Errorf("vf610: NON_BURST persistence %q does not say Linux never sets it", k.None)
			}
		}
		// The profile's own map has no usbmisc word: its offset is per
		// controller.
		if p.Map.Register("USBMISC_CTRL") != nil {
			t.Errorf("%s: USBMISC_CTRL in the profile-wide map", name)
		}
	}
	q := profile(t, "qemu-sabrelite")
	for _, c := range q.Controllers {
		if c.Map.Register("USBMISC_CTRL") != nil || c.Span() != c.Size {
			t.Errorf("qemu %s has a usbmisc word", c.Label)
		}
	}
	// Reset values from the SDK (mx6dq): 0x3000 for OTG and UH1, 0x1000
	// for UH2 and UH3; unknown elsewhere.
	p := profile(t, "imx6q")
	for label, reset := range map[string]uint32{"usbotg": 0x3000, "usbh1": 0x3000, "usbh2": 0x1000, "usbh3": 0x1000} {
		c, _ := p.Controller(label)
		if r := c.Map.Register("USBMISC_CTRL"); !r.ResetKnown || r.Reset != reset {
			t.Errorf("imx6q %s: usbmisc reset %#x known=%v, want %#x", label, r.Reset, r.ResetKnown, reset)
		}
	}
	c, _ := profile(t, "vf610").Controller("usbh1")
	if c.Map.Register("USBMISC_CTRL").ResetKnown {
		t.Error("vf610: usbmisc reset value claimed known")
	}
}

// TestUSBMiscReadWrite: the word is read and written like any field on
// the simulator and on an image, through one window from the controller
// base; a short (older) image lacks it and says so.
func TestUSBMiscReadWrite(t *testing.T) {
	p := profile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	img := imageOf(t, p, c)
	sim, err := OpenSim(p, c, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file, err := OpenFile(p, c, img, true)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, tg := range []*Target{sim, file} {
		ch, err := tg.Profile.Map.ParseChange("NON_BURST=1")
		if err != nil {
			t.Fatal(err)
		}
		ws, err := regs.Prepare(tg, []regs.Change{ch})
		if err != nil {
			t.Fatal(err)
		}
		rs, err := regs.Commit(tg, ws)
		if err != nil || !rs[0].Held() {
			t.Fatalf("%s: %v %+v", tg, err, rs)
		}
		if v, _ := tg.Read32(0x604); v != 0x3002 {
			t.Errorf("%s: USBMISC_CTRL = %#x, want 0x3002", tg, v)
		}
	}
	b, _ := os.ReadFile(img)
	if len(b) != 0x608 || b[0x604] != 0x02 || b[0x605] != 0x30 {
		t.Errorf("image: %d bytes, word %x", len(b), b[0x604:])
	}
	short := filepath.Join(t.TempDir(), "short.bin")
	os.WriteFile(short, b[:0x200], 0o644)
	st, err := OpenFile(p, c, short, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Profile.Map.Lookup("USBMISC_CTRL.NON_BURST"); !errors.Is(err, regs.ErrAbsent) || !strings.Contains(err.Error(), "mkimage") {
		t.Errorf("short image: %v", err)
	}
	if _, err := st.Read32(0x604); !errors.Is(err, regs.ErrAbsent) {
		t.Errorf("short image read: %v", err)
	}
}

func TestUSBMiscProfileErrors(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	base := string(data)
	withWord := strings.Replace(base, "label = \"usbh1\"\n", "label = \"usbh1\"\nusbmisc = WORD\n", 1)
	table := "\n[usbmisc]\nname = \"USBMISC_CTRL\"\n\n[[usbmisc.field]]\nname = \"NON_BURST\"\nbits = \"1\"\n"
	for _, tc := range []struct{ name, text, want string }{
		{"no table", strings.Replace(withWord, "WORD", "0x02184804", 1), "no [usbmisc] table"},
		{"misaligned", strings.Replace(withWord, "WORD", "0x02184806", 1) + table, "not 32-bit aligned"},
		{"inside the window", strings.Replace(withWord, "WORD", "0x02184210", 1) + table, "must lie after the controller window"},
		{"clashes with the map", strings.Replace(withWord, "WORD", "0x02184804", 1) + strings.Replace(table, "USBMISC_CTRL", "USBCMD", 1), "is a register of the controller map"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.toml", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	p, err := Parse("x.toml", []byte(strings.Replace(withWord, "WORD", "0x02184804", 1)+table))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := p.Controller("usbh1")
	if r := c.Map.Register("USBMISC_CTRL"); r == nil || r.Offset != 0x604 || r.ResetKnown {
		t.Errorf("USBMISC_CTRL = %+v", r)
	}
}

// TestUSBMiscPowerOnValue (issue 27, truth 4): the 6SX/6UL port word's
// power-on value is known: usbmisc_imx6sx_power_lost_check() treats
// 0x30001000 as it, and the same ops serve fsl,imx6ul-usbmisc.
func TestUSBMiscPowerOnValue(t *testing.T) {
	for _, name := range []string{"imx6sx", "imx6ul"} {
		p := profile(t, name)
		for i := range p.Controllers {
			c := &p.Controllers[i]
			r := c.Map.Register("USBMISC_CTRL")
			if r == nil {
				t.Fatalf("%s %s: no USBMISC_CTRL", name, c.Label)
			}
			if !r.ResetKnown || r.Reset != 0x30001000 || !strings.Contains(r.Source, "usbmisc_imx6sx_power_lost_check") {
				t.Errorf("%s %s: USBMISC_CTRL reset %#x known %v source %q; want 0x30001000 from usbmisc_imx6sx_power_lost_check()",
					name, c.Label, r.Reset, r.ResetKnown, r.Source)
			}
		}
	}
}

// TestNonBurstPersistence (issue 27, truths 2 and 3): what a cleared
// NON_BURST survives depends on the usbmisc ops and the kernel version:
// imx_usbmisc_resume() re-runs init only through power_lost_check, which
// imx6q_usbmisc_ops (6Q, and 6SL by its fallback) lacks and 6SX/6UL's ops
// gained only in late 2022; and mainline v4.1 never sets the bit, where
// mainline v4.9 and NXP's own imx_4.1 BSP kernels do (so "a v4.1 board
// reads 0" holds for mainline only).
func TestNonBurstPersistence(t *testing.T) {
	for name, want := range map[string][]string{
		"imx6q":  {"imx6q_usbmisc_ops has no power_lost_check", "resume never re-runs"},
		"imx6sl": {"imx6q_usbmisc_ops has no power_lost_check", "resume never re-runs", "fsl,imx6q-usbmisc"},
		"imx6sx": {"usbmisc_imx6sx_power_lost_check()", "0x30001000", "v6.2", "before it"},
		"imx6ul": {"usbmisc_imx6sx_power_lost_check()", "0x30001000", "v6.2", "before it"},
	} {
		p := profile(t, name)
		k := p.Knob(regs.Ref{Reg: &regs.Register{Name: "USBMISC_CTRL"}, Field: &regs.Field{Name: "NON_BURST"}})
		if k == nil {
			t.Fatalf("%s: no NON_BURST knob", name)
		}
		text := k.None + " " + k.Driver
		if strings.Contains(text, "resume with power loss)") && name != "imx6sx" && name != "imx6ul" {
			t.Errorf("%s: still says a resume with power loss re-sets the bit", name)
		}
		for _, w := range append(want, "mainline v4.1", "v4.9", "imx_4.1") {
			if !strings.Contains(text, w) {
				t.Errorf("%s NON_BURST knob does not say %q:\n%s", name, w, text)
			}
		}
		var board string
		for _, b := range p.Board {
			if b.Field == "USBMISC_CTRL.NON_BURST" {
				board = b.Source
			}
		}
		for _, w := range []string{"mainline v4.1", "imx_4.1"} {
			if !strings.Contains(board, w) {
				t.Errorf("%s: the NON_BURST board value does not say %q: %q", name, w, board)
			}
		}
	}
}

// TestHSICPortWord (issue 27, truth 7): on the imx6q HSIC ports
// (usbh2/usbh3) usbmisc_imx6q_init() also sets UTMI_ON_CLOCK (bit 13), so a
// running board reads 0x3002 there, not 0x1002; and the SDK marks bits
// 9:0 and 30:16 of UH2/UH3_CTRL reserved, so the over-current, power
// polarity and wake-up fields there are not decoded.
func TestHSICPortWord(t *testing.T) {
	p := profile(t, "imx6q")
	for lbl, want := range map[string]uint32{"usbh1": 0x3002, "usbh2": 0x3002, "usbh3": 0x3002, "usbotg": 0x3002} {
		c, err := p.Controller(lbl)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := OpenSim(p.ForController(c), c, SimOptions{})
		if err != nil {
			t.Fatal(err)
		}
		r := tg.Profile.Map.Register("USBMISC_CTRL")
		v, err := tg.Read32(r.Offset)
		if err != nil || v != want {
			t.Errorf("%s: board USBMISC_CTRL = %#x, %v; want %#x", lbl, v, err, want)
		}
		hsic := lbl == "usbh2" || lbl == "usbh3"
		for _, f := range []string{"OVER_CUR_DIS", "OVER_CUR_POL", "PWR_POL", "ID_WAKEUP", "VBUS_WAKEUP"} {
			if (r.Field(f) != nil) == hsic {
				t.Errorf("%s: field %s decoded = %v; want %v (SDK: UH2/UH3_CTRL bits 9:0, 30:16 reserved)", lbl, f, r.Field(f) != nil, !hsic)
			}
		}
		if r.Field("NON_BURST") == nil || r.Field("UTMI_ON_CLK") == nil {
			t.Errorf("%s: NON_BURST or UTMI_ON_CLK not decoded", lbl)
		}
		tg.Close()
	}
}

// TestNonBurstBSP7D (issue 27, truth 3): on i.MX7D and i.MX8M mainline set
// NON_BURST only from the April 2020 change (v4.9 still lacks it), but NXP's
// BSP kernels set it since their imx_4.1 branch: the caveat names both.
func TestNonBurstBSP7D(t *testing.T) {
	for _, name := range []string{"imx7d", "imx8mm", "imx8mn"} {
		p := profile(t, name)
		k := p.Knob(regs.Ref{Reg: &regs.Register{Name: "USBMISC_CTRL"}, Field: &regs.Field{Name: "NON_BURST"}})
		if k == nil {
			t.Fatalf("%s: no NON_BURST knob", name)
		}
		for _, w := range []string{"mainline kernels before the April 2020 change", "v4.9 still lacks it", "imx_4.1"} {
			if !strings.Contains(k.Driver, w) {
				t.Errorf("%s NON_BURST driver text does not say %q:\n%s", name, w, k.Driver)
			}
		}
	}
}
