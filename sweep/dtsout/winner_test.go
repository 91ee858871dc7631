package dtsout_test

import (
	"strings"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// The winner's settings come in axis order, each commented with the
// winner's gain and, where a ranked point changes that setting alone,
// that point's gain; a setting the winner keeps says so.
func TestWinnerSettings(t *testing.T) {
	m := regs.ChipIdea()
	var axes []plan.Axis
	for _, s := range []string{"ITC=1,8", "AHBBRST=0,2", "TXPBURST=8,16"} {
		a, err := plan.ParseAxis(m, s)
		if err != nil {
			t.Fatal(err)
		}
		axes = append(axes, a)
	}
	res := &results.Results{Header: results.Header{
		Plan:      plan.Plan{Axes: axes},
		Originals: map[string]string{"USBCMD.ITC": "8", "SBUSCFG.AHBBRST": "2", "BURSTSIZE.TXPBURST": "8"},
	}}
	noisy := func(x float64) []float64 { return []float64{x, x * 1.01, x * 0.99, x * 1.005, x * 0.995} }
	pt := func(key string, itc, burst string, x float64) rank.PointStats {
		return rank.PointStats{Key: key, Status: rank.StatusOK, Rates: noisy(x),
			Settings: map[string]string{"USBCMD.ITC": itc, "SBUSCFG.AHBBRST": burst, "BURSTSIZE.TXPBURST": "8"}}
	}
	rk := rank.RankVisits([]rank.PointStats{
		pt("both", "1", "0", 130),
		pt("itc-alone", "1", "2", 110),
		pt("burst-alone", "8", "0", 120),
	}, [][]float64{noisy(100)}, res.Header.Originals, rank.Policy{})
	got, err := dtsout.WinnerSettings(res, rk)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Name != "USBCMD.ITC" || got[0].Value != "1" || got[1].Name != "SBUSCFG.AHBBRST" || got[1].Value != "0" || got[2].Name != "BURSTSIZE.TXPBURST" {
		t.Fatalf("settings %+v", got)
	}
	winner := "measured " + rk.Find("both").VsBaseline.String()
	if want := winner + "; alone " + rk.Find("itc-alone").VsBaseline.String(); got[0].Comment != want {
		t.Errorf("ITC comment %q, want %q", got[0].Comment, want)
	}
	if want := winner + "; alone " + rk.Find("burst-alone").VsBaseline.String(); got[1].Comment != want {
		t.Errorf("AHBBRST comment %q, want %q", got[1].Comment, want)
	}
	if !strings.HasPrefix(got[0].Comment, "measured +30.0 % (95 % CI") {
		t.Errorf("ITC comment %q does not give the winner's gain", got[0].Comment)
	}
	// TXPBURST is 8 in every point and originally: the winner keeps it,
	// and no point changes it alone.
	if got[2].Comment != "unchanged from the original" {
		t.Errorf("TXPBURST comment %q", got[2].Comment)
	}

	// An axis the winner has no value for (a point of an older plan) is
	// left out.
	delete(rk.Ranked[0].Settings, "BURSTSIZE.TXPBURST")
	if got, _ := dtsout.WinnerSettings(res, rk); len(got) != 2 {
		t.Errorf("settings %+v, want ITC and AHBBRST only", got)
	}

	if _, err := dtsout.WinnerSettings(res, rank.Ranking{}); err == nil || !strings.Contains(err.Error(), "nothing to make permanent") {
		t.Errorf("no winner: %v", err)
	}
}

// KernelParams is the kernel command line alone, in the fragment's order.
func TestKernelParams(t *testing.T) {
	p := loadProfile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	d := dtsout.BuildDTS(dtsout.DTSInput{Profile: p, Controller: c, Role: regs.RoleHost, Settings: []dtsout.Setting{
		{Name: "USBCMD.ITC", Value: "8"}, {Name: "USBCMD.ASP", Value: "2"}, {Name: "USBCMD.ASPE", Value: "1"},
		{Name: "usb_storage.delay_use", Value: "0"},
	}})
	if got, want := d.KernelParams(), "ehci_hcd.log2_irq_thresh=3 ehci_hcd.park=2 usb_storage.delay_use=0"; got != want {
		t.Errorf("KernelParams = %q, want %q", got, want)
	}
	if got := (dtsout.DTS{}).KernelParams(); got != "" {
		t.Errorf("no parameters: %q", got)
	}
}

// Settings the fragment cannot carry become notes that say why; a
// comment cannot close the C comment it is written in.
func TestDTSNotes(t *testing.T) {
	p := loadProfile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, err := soc.OpenSim(p, c, soc.SimOptions{ResetValues: true})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := soc.Take(p.Map, tg)
	if err != nil {
		t.Fatal(err)
	}
	build := func(role regs.Role, s ...dtsout.Setting) string {
		return dtsout.BuildDTS(dtsout.DTSInput{Profile: p, Controller: c, Role: role, Settings: s, Snapshot: snap,
			Header: []string{"from results.jsonl */ evil"}}).String()
	}
	for _, tc := range []struct {
		name string
		role regs.Role
		set  []dtsout.Setting
		want []string
	}{
		{"unknown field", regs.RoleHost, []dtsout.Setting{{Name: "USBCMD.NOPE", Value: "1"}}, []string{"USBCMD.NOPE = 1: not a field of imx6q's register map"}},
		{"whole register", regs.RoleHost, []dtsout.Setting{{Name: "USBCMD", Value: "1"}}, []string{"USBCMD = 1: not a field of imx6q's register map"}},
		{"not a knob", regs.RoleHost, []dtsout.Setting{{Name: "USBINTR.UE", Value: "1"}}, []string{"USBINTR.UE = 1: profile imx6q names no device-tree property or kernel parameter for this field."}},
		{"park off with ASPE=1 ASP=0", regs.RoleHost, []dtsout.Setting{{Name: "USBCMD.ASPE", Value: "1"}, {Name: "USBCMD.ASP", Value: "0"}},
			[]string{"ehci_hcd.park=0\tASPE=1 ASP=0: ehci-hcd parks only with 1-3 packets; 0 turns park off"}},
		{"park disabled", regs.RoleHost, []dtsout.Setting{{Name: "USBCMD.ASPE", Value: "0"}, {Name: "USBCMD.ASP", Value: "3"}},
			[]string{"ehci_hcd.park=0\tASPE=0 ASP=3"}},
		{"unknown role names both", "", []dtsout.Setting{{Name: "USBCMD.ITC", Value: "8"}},
			[]string{"itc-setting = <0x8>;\t/* ITC=8 (device role) */", "ehci_hcd.log2_irq_thresh=3\tITC=8 (host role)"}},
		{"header cannot end the comment", regs.RoleHost, nil, []string{" * from results.jsonl * / evil\n"}},
	} {
		s := build(tc.role, tc.set...)
		for _, w := range tc.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: missing %q in\n%s", tc.name, w, s)
			}
		}
		if strings.Count(s, "*/") != strings.Count(s, "/*") {
			t.Errorf("%s: unbalanced comments in\n%s", tc.name, s)
		}
	}
}
