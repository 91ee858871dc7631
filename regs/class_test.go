package regs

import "testing"

func TestClassOf(t *testing.T) {
	m := ChipIdea()
	for name, want := range map[string]Class{
		"USBCMD.ITC": ClassKnob, "SBUSCFG.AHBBRST": ClassKnob, "BURSTSIZE.TXPBURST": ClassKnob, "USBMODE.SDIS": ClassKnob,
		"USBCMD.RS": ClassLive, "USBCMD.ASE": ClassLive, "USBCMD.PSE": ClassLive, "USBCMD.IAA": ClassLive, "USBCMD.RST": ClassLive,
		"ASYNCLISTADDR": ClassLive, "USBSTS": ClassLive, "USBSTS.UI": ClassLive, "ENDPTPRIME": ClassLive, "ENDPTFLUSH": ClassLive,
		"PORTSC1.PR": ClassLive, "PORTSC1.SUSP": ClassLive, "PORTSC1.CSC": ClassLive, "ENDPTCTRL1": ClassLive, "USBMODE.CM": ClassLive,
		"PORTSC1.PFSC": ClassConfig, "PORTSC1.WKCN": ClassConfig, "TTCTRL.TTHA": ClassKnob,
		"USBINTR": ClassLive, "USBINTR.UE": ClassLive, "PORTSC1.PTS1": ClassLive, "PORTSC1.PTS2": ClassLive, "PORTSC1.PTW": ClassLive,
		"OTGSC": ClassLive, "OTGSC.IDPU": ClassLive, "OTGSC.IDIE": ClassLive,
		"USBCMD": ClassLive, "SBUSCFG": ClassKnob, "TXFILLTUNING.TXSCHHEALTH": ClassLive,
	} {
		ref, err := m.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := ref.Class(); got != want {
			t.Errorf("%s: class %d, want %d (config 0, knob 1, live 2)", name, got, want)
		}
		if (LiveRisk(ref) != "") != (want == ClassLive) {
			t.Errorf("%s: risk %q", name, LiveRisk(ref))
		}
	}
}

func TestLiveChanges(t *testing.T) {
	m := ChipIdea()
	usbcmd := m.Register("USBCMD")
	cur := map[uint32]uint32{usbcmd.Offset: 0x00080031} // RS, ASE, PSE? as the driver runs it
	change := func(s string) Change {
		c, err := m.ParseChange(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, tc := range []struct {
		c    Change
		live bool
	}{
		{change("ITC=1"), false},
		{change("USBCMD.RS=0"), true},
		{change("IAA=1"), true},
		{change("USBSTS=0x1ff"), true},
		{change("ASYNCLISTADDR=0x1000"), true},
		{Change{Ref: Ref{Reg: usbcmd}, Value: 0x00400031}, false}, // only ITC differs
		{Change{Ref: Ref{Reg: usbcmd}, Value: 0x00080011}, true},  // ASE off
		{Change{Ref: Ref{Reg: usbcmd}, Value: 0x00080071}, true},  // IAA rung
		{change("USBINTR=0x7"), true},
		{change("OTGSC=0"), true},
		{change("PORTSC1.PTW=0"), true},
	} {
		got := len(LiveChanges([]Change{tc.c}, cur)) > 0
		if got != tc.live {
			t.Errorf("%s=%#x: live %v, want %v", tc.c.Ref, tc.c.Value, got, tc.live)
		}
	}
}
