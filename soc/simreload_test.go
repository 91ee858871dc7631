package soc

import (
	"errors"
	"testing"

	"github.com/citune/citune/regs"
)

func TestReloadSimStartsTheDriverFromItsParameters(t *testing.T) {
	p := profile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, err := OpenSim(p, c, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]string{"ehci_hcd.log2_irq_thresh": "3", "ehci_hcd.park": "2"}
	read := func(mod, param string) (string, error) {
		if v, ok := params[mod+"."+param]; ok {
			return v, nil
		}
		return "", errors.New("no such parameter")
	}
	if err := tg.ReloadSim(read); err != nil {
		t.Fatal(err)
	}
	field := func(name string) uint32 {
		ref, err := tg.Profile.Map.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := tg.Read32(ref.Reg.Offset)
		return ref.Field.Get(v)
	}
	if field("USBCMD.ITC") != 8 || field("USBCMD.ASPE") != 1 || field("USBCMD.ASP") != 2 {
		t.Errorf("after the reload ITC=%d ASPE=%d ASP=%d, want 8 1 2", field("USBCMD.ITC"), field("USBCMD.ASPE"), field("USBCMD.ASP"))
	}
	// Parameters out of range are clamped to what the encoding allows.
	params["ehci_hcd.log2_irq_thresh"] = "9"
	if err := tg.ReloadSim(read); err != nil {
		t.Fatal(err)
	}
	if field("USBCMD.ITC") != 64 {
		t.Errorf("ITC = %d, want 64", field("USBCMD.ITC"))
	}
	img := &Target{Kind: KindFile, Profile: p, Controller: c}
	if img.ReloadSim(read) == nil {
		t.Error("ReloadSim on an image")
	}
}

// A reload brings the port back in its role (a gadget stays a gadget:
// the vf610 park sweep on usbdev0 used to come back a host), and a
// simulated ehci-hcd only where there was one; the driver parks only
// where HCCPARAMS says the core can (the QEMU board's cannot).
func TestReloadSimKeepsTheRoleAndParksOnlyWhereItCan(t *testing.T) {
	none := func(string, string) (string, error) { return "", errors.New("none") }
	p := profile(t, "imx6q")
	c, _ := p.Controller("usbotg")
	tg, err := OpenSim(p, c, SimOptions{Role: regs.RoleDevice})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.ReloadSim(none); err != nil {
		t.Fatal(err)
	}
	snap, _ := Take(tg.Profile.Map, tg)
	if r := tg.Role(snap); r != regs.RoleDevice {
		t.Errorf("the OTG port came back in %q role, want device", r)
	}
	h, _ := p.Controller("usbh1")
	off, err := OpenSim(p, h, SimOptions{Driver: SimDriverOff})
	if err != nil {
		t.Fatal(err)
	}
	if err := off.ReloadSim(none); err != nil {
		t.Fatal(err)
	}
	if off.simr.DriverModelled() {
		t.Error("a reload switched on a simulated ehci-hcd that was off")
	}
	for _, tc := range []struct {
		profile string
		park    uint32
	}{{"imx6q", 1}, {"qemu-sabrelite", 0}} {
		q := profile(t, tc.profile)
		qc, _ := q.Controller("usbh1")
		qt, err := OpenSim(q, qc, SimOptions{Park: 3})
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := q.Map.Lookup("USBCMD.ASPE")
		v, _ := qt.Read32(ref.Reg.Offset)
		if got := ref.Field.Get(v); got != tc.park {
			t.Errorf("%s with ehci_hcd.park=3: ASPE=%d, want %d (HCCPARAMS' park capability)", tc.profile, got, tc.park)
		}
	}
}
