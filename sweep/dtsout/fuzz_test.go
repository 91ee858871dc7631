package dtsout_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
)

// FuzzBuildDTS: any setting names and values (a results file is
// untrusted input) give a fragment without a panic, whose properties are
// only the binding's forms, whose comments cannot be closed early, and
// the permanence test agrees with it: a setting it calls permanent got
// its property or parameter.
func FuzzBuildDTS(f *testing.F) {
	for _, s := range [][2]string{
		{"BURSTSIZE.RXPBURST", "32"}, {"BURSTSIZE.TXPBURST", "64"}, {"SBUSCFG.AHBBRST", "0"}, {"USBCMD.ITC", "8"},
		{"USBCMD.ASP", "3"}, {"USBMODE.SDIS", "1"}, {"ehci_hcd.park", "3"}, {"/sys/x", "1"}, {"USBCMD.ITC", "0x10"},
		{"TTCTRL.TTHA", "127"}, {"BURSTSIZE.RXPBURST", "sixteen */"}, {"NOPE.X", "-1"},
	} {
		f.Add(s[0], s[1], "host")
	}
	pr, err := soc.LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		f.Fatal(err)
	}
	c, _ := pr.Controller("usbh1")
	tg, _ := soc.OpenSim(pr, c, soc.SimOptions{})
	snap, _ := soc.Take(pr.Map, tg)
	prop := regexp.MustCompile(`^[a-z0-9-]+( = <0x[0-9a-f]+>)?$`)
	f.Fuzz(func(t *testing.T, name, value, role string) {
		in := dtsout.DTSInput{Profile: pr, Controller: c, Role: regs.Role(role), Snapshot: snap,
			Settings: []dtsout.Setting{{Name: name, Value: value, Comment: value}}}
		d := dtsout.BuildDTS(in)
		for _, p := range d.Props {
			if !prop.MatchString(p.Text) {
				t.Fatalf("property %q", p.Text)
			}
		}
		text := d.String()
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, "/*"); i >= 0 && strings.Count(line[i:], "*/") > 1 {
				t.Fatalf("a comment closed early: %q", line)
			}
		}
		blocked := dtsout.Permanence(in)(map[string]string{name: value})
		if len(blocked) == 0 && len(d.Props) == 0 && len(d.Params) == 0 && !strings.Contains(text, "leave ") {
			t.Fatalf("%s=%q called permanent, but the fragment holds nothing for it:\n%s", name, value, text)
		}
	})
}
