package soc

import (
	"errors"
	"testing"
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
		v, _ := tg.Acc.Read32(ref.Reg.Offset)
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
