package dtsout_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
)

// compileDTS places frag after a tree that defines the controller's label
// and compiles it with dtc, then decompiles the blob and returns the
// controller's node as dtc prints it. It skips when dtc is missing.
func compileDTS(t *testing.T, c *soc.Controller, frag string) string {
	t.Helper()
	dtc, err := exec.LookPath("dtc")
	if err != nil {
		t.Skip("dtc not installed (apt-get install device-tree-compiler)")
	}
	dir := t.TempDir()
	base := fmt.Sprintf("/dts-v1/;\n\n/ {\n\t#address-cells = <1>;\n\t#size-cells = <1>;\n\n\t%s: %s {\n\t\tcompatible = \"fsl,imx27-usb\";\n\t\treg = <%#x %#x>;\n\t};\n};\n\n",
		c.Label, c.Node, c.Base, c.Size)
	src := filepath.Join(dir, "board.dts")
	if err := os.WriteFile(src, []byte(base+frag), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(dtc, "-q", "-I", "dts", "-O", "dtb", "-o", filepath.Join(dir, "board.dtb"), src).CombinedOutput()
	if err != nil {
		t.Fatalf("dtc: %v\n%s\nsource:\n%s", err, out, base+frag)
	}
	back, err := exec.Command(dtc, "-q", "-I", "dtb", "-O", "dts", filepath.Join(dir, "board.dtb")).CombinedOutput()
	if err != nil {
		t.Fatalf("dtc -I dtb: %v\n%s", err, back)
	}
	return string(back)
}

func TestDTSCompilesForEveryProfile(t *testing.T) {
	ps, err := soc.LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for i := range p.Controllers {
			c := &p.Controllers[i]
			t.Run(p.Name+"/"+c.Label, func(t *testing.T) {
				tg, err := soc.OpenSim(p, c, soc.SimOptions{ResetValues: true})
				if err != nil {
					t.Fatal(err)
				}
				snap, err := soc.Take(p.Map, tg)
				if err != nil {
					t.Fatal(err)
				}
				for _, role := range []regs.Role{"", regs.RoleHost, regs.RoleDevice} {
					// The live values, and a winner that sets every
					// knob the map has plus a module parameter and a file.
					live := dtsout.LiveSettings(p, snap)
					win := []dtsout.Setting{
						{Name: "SBUSCFG.AHBBRST", Value: "0", Comment: "+4.1 % (95 % CI 3.2-5.0)"},
						{Name: "BURSTSIZE.TXPBURST", Value: "16", Comment: "+4.1 % (95 % CI 3.2-5.0)"},
						{Name: "BURSTSIZE.RXPBURST", Value: "16"},
						{Name: "USBCMD.ITC", Value: "8"},
						{Name: "USBCMD.ASP", Value: "3"},
						{Name: "USBCMD.ASPE", Value: "1"},
						{Name: "USBMODE.SDIS", Value: "0"},
						{Name: "TTCTRL.TTHA", Value: "127"},
						{Name: "ehci_hcd.park", Value: "2", Comment: "no significant difference (+0.3 %, 95 % CI -1.2 to 1.9) */ trap"},
						{Name: "/sys/block/sda/queue/max_sectors_kb", Value: "512"},
					}
					for name, set := range map[string][]dtsout.Setting{"live": live, "winner": win} {
						d := dtsout.BuildDTS(dtsout.DTSInput{Profile: p, Controller: c, Role: role, Settings: set, Snapshot: snap,
							Header: []string{"citune dts test: " + name + " */ not closed"}})
						node := compileDTS(t, c, d.String())
						if name != "winner" {
							continue
						}
						for _, l := range d.Props {
							prop := strings.Fields(l.Text)[0]
							if !strings.Contains(node, prop) {
								t.Errorf("%s role %q: %s not in the compiled tree:\n%s", name, role, prop, node)
							}
						}
					}
				}
			})
		}
	}
}

func TestDTSEmitsOnlyWhatTheKernelHonours(t *testing.T) {
	p := loadProfile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, _ := soc.OpenSim(p, c, soc.SimOptions{ResetValues: true})
	snap, _ := soc.Take(p.Map, tg) // SBUSCFG reads 2 at reset
	cases := map[string]struct {
		role     regs.Role
		settings []dtsout.Setting
		want     []string
		not      []string
	}{
		"burst sizes bring ahb-burst-config": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "BURSTSIZE.TXPBURST", Value: "16", Comment: "+4.1 % (95 % CI 3.2-5.0)"}, {Name: "SBUSCFG.AHBBRST", Value: "0"}, {Name: "BURSTSIZE.RXPBURST", Value: "16"}},
			want: []string{"&usbh1 {\n\tahb-burst-config = <0x0>;", "\ttx-burst-size-dword = <0x10>;\t/* TXPBURST=16: +4.1 % (95 % CI 3.2-5.0) */",
				"\trx-burst-size-dword = <0x10>;"},
		},
		"burst sizes alone while AHBBRST is 2": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "BURSTSIZE.TXPBURST", Value: "16"}},
			want:     []string{"BURSTSIZE.TXPBURST = 16 is not emitted: it takes effect only with SBUSCFG.AHBBRST=0, and that field is 2 here", "no device-tree property to change"},
			not:      []string{"tx-burst-size-dword ="},
		},
		"dt_max": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "SBUSCFG.AHBBRST", Value: "0"}, {Name: "BURSTSIZE.RXPBURST", Value: "64"}},
			want:     []string{"BURSTSIZE.RXPBURST = 0x40 is not emitted: the binding allows rx-burst-size-dword up to 0x20"},
			not:      []string{"rx-burst-size-dword = <"},
		},
		"ITC in host role is a kernel parameter": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "USBCMD.ITC", Value: "8", Comment: "+2.0 % (95 % CI 1.1-2.9)"}},
			want:     []string{" *   ehci_hcd.log2_irq_thresh=3\tITC=8: +2.0 % (95 % CI 1.1-2.9)"},
			not:      []string{"itc-setting"},
		},
		"ITC in device role is itc-setting": {
			role:     "device",
			settings: []dtsout.Setting{{Name: "USBCMD.ITC", Value: "8"}},
			want:     []string{"\titc-setting = <0x8>;"},
			not:      []string{"log2_irq_thresh"},
		},
		"ITC 0 has no log2": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "USBCMD.ITC", Value: "0"}},
			want:     []string{"USBCMD.ITC = 0 cannot be set through ehci_hcd.log2_irq_thresh"},
		},
		"park": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "USBCMD.ASP", Value: "2"}, {Name: "USBCMD.ASPE", Value: "1"}},
			want:     []string{" *   ehci_hcd.park=2\tASPE=1 ASP=2"},
		},
		// Issue 27, truth 6: ci_get_platdata() reads the property in every
		// role and ci_platform_configure() writes TTHA on device-role
		// resets too; only its effect is host-only.
		"non-zero-ttctrl-ttha in device role": {
			role:     "device",
			settings: []dtsout.Setting{{Name: "TTCTRL.TTHA", Value: "127"}},
			want:     []string{"\tnon-zero-ttctrl-ttha;"},
			not:      []string{"kept only in host role"},
		},
		"SDIS has no mechanism": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "USBMODE.SDIS", Value: "0"}},
			want:     []string{"USBMODE.SDIS = 0: No DT property or kernel parameter"},
		},
		"module parameter and file": {
			role:     "host",
			settings: []dtsout.Setting{{Name: "ehci_hcd.log2_irq_thresh", Value: "3"}, {Name: "/sys/block/sda/queue/max_sectors_kb", Value: "512"}},
			want:     []string{" *   ehci_hcd.log2_irq_thresh=3\tor `options ehci_hcd log2_irq_thresh=3` in /etc/modprobe.d", "/sys/block/sda/queue/max_sectors_kb = 512: a file"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			d := dtsout.BuildDTS(dtsout.DTSInput{Profile: p, Controller: c, Role: tc.role, Settings: tc.settings, Snapshot: snap})
			s := d.String()
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("missing %q in\n%s", w, s)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(s, w) {
					t.Errorf("unexpected %q in\n%s", w, s)
				}
			}
			compileDTS(t, c, s)
		})
	}
}

// TestDTSModuleParametersAreModuleWide: a kernel parameter in the
// fragment comes with the controllers it changes: the ones the sweep
// recorded, or the profile's.
func TestDTSModuleParametersAreModuleWide(t *testing.T) {
	p, err := soc.LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		t.Fatal(err)
	}
	c, _ := p.Controller("usbh1")
	in := dtsout.DTSInput{Profile: p, Controller: c, Role: "host",
		Settings: []dtsout.Setting{{Name: "ehci_hcd.log2_irq_thresh", Value: "3"}}}
	d := dtsout.BuildDTS(in)
	want := "ehci_hcd.log2_irq_thresh is module-wide: it changes every EHCI controller in host role, not only usbh1: usbotg (when host, profile), usbh1 (host, profile), usbh2 (host, profile), usbh3 (host, profile)"
	if !strings.Contains(d.String(), want) {
		t.Errorf("no module-wide note from the profile:\n%s", d)
	}
	in.ParamUsers = map[string][]soc.ParamUser{"ehci_hcd.log2_irq_thresh": {
		{Label: "usbotg", Role: "host", Source: "sysfs"}, {Label: "usbh1", Role: "host", Source: "sysfs"}}}
	d = dtsout.BuildDTS(in)
	if s := d.String(); !strings.Contains(s, "not only usbh1: usbotg (host, sysfs), usbh1 (host, sysfs)") || strings.Contains(s, "usbh2") {
		t.Errorf("recorded controllers not used:\n%s", s)
	}
	// vf610: the burst properties come with the Vybrid warning; i.MX6 not.
	v, _ := soc.LoadFS(profiles.FS, "vf610.toml")
	vc, _ := v.Controller("usbh1")
	burst := []dtsout.Setting{{Name: "SBUSCFG.AHBBRST", Value: "0"}, {Name: "BURSTSIZE.TXPBURST", Value: "16"}, {Name: "BURSTSIZE.RXPBURST", Value: "16"}}
	if s := dtsout.BuildDTS(dtsout.DTSInput{Profile: v, Controller: vc, Role: "host", Settings: burst}).String(); strings.Count(s, "known to hurt on Vybrid") != 1 {
		t.Errorf("vf610 burst warning (once):\n%s", s)
	}
	if s := dtsout.BuildDTS(dtsout.DTSInput{Profile: p, Controller: c, Role: "host", Settings: burst}).String(); strings.Contains(s, "known to hurt") {
		t.Errorf("imx6q burst warning:\n%s", s)
	}
}

func loadProfile(t *testing.T, name string) *soc.Profile {
	t.Helper()
	p, err := soc.LoadFS(profiles.FS, name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	p.File = "embedded:" + p.File
	return p
}

// Permanence, the verdict's test, is BuildDTS's own decision: a change
// that gets neither its property nor its parameter cannot be made
// permanent, even when the fragment gains a condition's property for it
// (a burst size above the binding's limit brings ahb-burst-config).
func TestPermanence(t *testing.T) {
	p := loadProfile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, _ := soc.OpenSim(p, c, soc.SimOptions{})
	board, _ := soc.Take(p.Map, tg) // the board's values: AHBBRST 0
	reset, _ := soc.OpenSim(p, c, soc.SimOptions{ResetValues: true})
	atReset, _ := soc.Take(p.Map, reset) // AHBBRST 2
	perm := dtsout.Permanence(dtsout.DTSInput{Profile: p, Controller: c, Role: "host", Snapshot: board})
	for _, tc := range []struct {
		changes map[string]string
		blocked string // "" when it can be made permanent
	}{
		{map[string]string{"BURSTSIZE.RXPBURST": "32"}, ""},
		{map[string]string{"BURSTSIZE.RXPBURST": "128"}, "binding allows rx-burst-size-dword up to 0x20"},
		{map[string]string{"USBCMD.ITC": "8"}, ""},
		{map[string]string{"USBCMD.ITC": "0"}, "USBCMD.ITC = 0 cannot be set through ehci_hcd.log2_irq_thresh"},
		{map[string]string{"USBMODE.SDIS": "0", "BURSTSIZE.RXPBURST": "32"}, "USBMODE.SDIS"},
		{map[string]string{"USBCMD.ASPE": "1", "USBCMD.ASP": "3"}, ""},
	} {
		got := strings.Join(perm(tc.changes), "; ")
		switch {
		case tc.blocked == "" && got != "":
			t.Errorf("%v: blocked by %q, want permanent", tc.changes, got)
		case tc.blocked != "" && !strings.Contains(got, tc.blocked):
			t.Errorf("%v: blocked by %q, want %q", tc.changes, got, tc.blocked)
		}
		if strings.Count(got, "USBMODE.SDIS") > 1 {
			t.Errorf("%v: %q names the field twice", tc.changes, got)
		}
	}
	// A burst size without ahb-burst-config 0 does nothing at reset.
	if got := dtsout.Permanence(dtsout.DTSInput{Profile: p, Controller: c, Role: "host", Snapshot: atReset})(map[string]string{"BURSTSIZE.RXPBURST": "32"}); len(got) == 0 {
		t.Error("RXPBURST=32 with AHBBRST 2: want it blocked by the AHBBRST=0 condition")
	}
}
