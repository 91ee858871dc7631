package dtsout

import (
	"slices"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

func TestParseSourceReadsWhatBuildDTSWrites(t *testing.T) {
	p, err := soc.LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := p.Controller("usbh1")
	in := DTSInput{Profile: p, Controller: c, Role: regs.RoleHost, Header: []string{"h ehci_hcd.park=2 */"},
		Settings: []Setting{{Name: "SBUSCFG.AHBBRST", Value: "0"}, {Name: "BURSTSIZE.TXPBURST", Value: "32"},
			{Name: "TTCTRL.TTHA", Value: "127"}, {Name: "USBCMD.ITC", Value: "8"}, {Name: "ehci_hcd.park", Value: "3"}}}
	d := BuildDTS(in)
	want := map[string]uint32{"ahb-burst-config": 0, "tx-burst-size-dword": 32, "non-zero-ttctrl-ttha": 0x7f}
	for _, text := range []string{d.String(), d.Overlay(Target{Path: "/soc/usb@2184200"}, "x.dtbo"), d.Overlay(Target{Label: "usbh1"}, "x.dtbo")} {
		s := ParseSource(text, "console=ttymxc1 ehci_hcd.park=1")
		for k, v := range want {
			if got, ok := s.Props[k]; !ok || got != v {
				t.Errorf("%s = %d, %v; want %d in\n%s", k, got, ok, v, text)
			}
		}
		if !slices.Equal(s.Params, []string{"ehci_hcd.log2_irq_thresh=3", "ehci_hcd.park=1"}) {
			t.Errorf("params %q in\n%s", s.Params, text)
		}
		if s.Label != "usbh1" && s.Path != "/soc/usb@2184200" {
			t.Errorf("no target: %+v", s)
		}
	}
}

func FuzzParseSource(f *testing.F) {
	f.Add("&usbh1 {\n\tahb-burst-config = <0x3>; /* x */\n};\n/*\n *   ehci_hcd.park=3\tc\n */\n", "a.b=1")
	f.Fuzz(func(t *testing.T, text, bootargs string) {
		s := ParseSource(text, bootargs)
		if s.Props == nil {
			t.Fatal("nil props")
		}
	})
}
