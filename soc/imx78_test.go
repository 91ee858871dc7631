package soc

import (
	"strings"
	"testing"
)

// TestIMX7And8MProfiles (issue 27, part 2): the i.MX7D and i.MX8M Mini/Nano
// profiles carry the kernel's facts: addresses and usbmisc words from the
// DTs, the i.MX7D glue data (no streaming flag) and usbmisc ops.
func TestIMX7And8MProfiles(t *testing.T) {
	want := map[string]map[string]uint64{
		"imx7d":  {"usbotg1": 0x30b10000, "usbotg2": 0x30b20000, "usbh": 0x30b30000},
		"imx8mm": {"usbotg1": 0x32e40000, "usbotg2": 0x32e50000},
		"imx8mn": {"usbotg1": 0x32e40000},
	}
	for name, ctls := range want {
		p := profile(t, name)
		if len(p.Controllers) != len(ctls) {
			t.Errorf("%s: %d controllers, want %d", name, len(p.Controllers), len(ctls))
		}
		for lbl, base := range ctls {
			c, err := p.Controller(lbl)
			if err != nil {
				t.Fatal(err)
			}
			if c.Base != base || c.USBMisc != base+0x200 || c.Size != 0x200 {
				t.Errorf("%s %s: base %#x usbmisc %#x size %#x", name, lbl, c.Base, c.USBMisc, c.Size)
			}
			r := c.Map.Register("USBMISC_CTRL")
			if r == nil || r.Reset != 0x30001000 || !strings.Contains(r.Desc, "usbmisc_imx7d_power_lost_check") {
				t.Errorf("%s %s: usbmisc word %+v", name, lbl, r)
			}
			tg, err := OpenSim(p.ForController(c), c, SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for field, v := range map[string]uint32{"USBMODE.SDIS": 0, "USBMISC_CTRL.NON_BURST": 1, "BURSTSIZE.TXPBURST": 0, "USBCMD.ITC": 1} {
				ref, err := tg.Profile.Map.Lookup(field)
				if err != nil {
					t.Fatal(err)
				}
				raw, _ := tg.Read32(ref.Reg.Offset)
				if got := ref.Field.Get(raw); got != v {
					t.Errorf("%s %s: board %s = %d, want %d", name, lbl, field, got, v)
				}
			}
			tg.Close()
		}
		k := p.Knob(mustRef(t, p.Map, "USBMODE.SDIS"))
		if k == nil || !strings.Contains(k.Source, "imx7d_usb_data") || !strings.Contains(k.None, "never sets SDIS") {
			t.Errorf("%s: SDIS knob %+v", name, k)
		}
		if name != "imx7d" && !strings.Contains(strings.Join(p.Sources, " "), "no fsl,"+name+"-usb entry") {
			t.Errorf("%s: sources do not say the glue falls back to fsl,imx7d-usb", name)
		}
	}
}
