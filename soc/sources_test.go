package soc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
)

// TestSourcesInTheOpen: every reset value and every knob rule of every
// embedded profile says where it comes from, and says "unknown" where no
// source exists (Vybrid, 6SX/6UL reset values, TTCTRL).
func TestSourcesInTheOpen(t *testing.T) {
	for _, name := range []string{"imx6q", "imx6sl", "imx6sx", "imx6ul", "vf610", "qemu-sabrelite"} {
		p := profile(t, name)
		for _, c := range p.Controllers {
			for _, r := range c.Map.Registers {
				switch {
				case r.Source == "":
					t.Errorf("%s %s %s: no reset source", name, c.Label, r.Name)
				case !r.ResetKnown && !strings.HasPrefix(r.Source, "unknown"):
					t.Errorf("%s %s: reset unknown but source %q", name, r.Name, r.Source)
				}
			}
		}
		for _, k := range p.Knobs {
			if k.Source == "" {
				t.Errorf("%s knob %s: no source", name, k.Field)
			}
		}
		want := map[string]string{
			"imx6q":          regs.SourceSDK,
			"imx6sl":         "i.MX6 Platform SDK regsusbcore.h (mx6sl",
			"imx6sx":         "unknown for i.MX6SX",
			"imx6ul":         "unknown for i.MX6UL",
			"vf610":          "unknown",
			"qemu-sabrelite": "QEMU hw/usb/hcd-ehci.c ehci_reset()",
		}[name]
		if r := p.Map.Register("PORTSC1"); !strings.HasPrefix(r.Source, want) {
			t.Errorf("%s PORTSC1 source %q, want %q...", name, r.Source, want)
		}
		// Issue 27, truth 5: TTHA's default is documented by the binding
		// (Vybrid keeps every reset value unknown).
		ttWant := "DT binding chipidea,usb2-common.yaml"
		if name == "vf610" {
			ttWant = "unknown"
		}
		if r := p.Map.Register("TTCTRL"); !strings.HasPrefix(r.Source, ttWant) && name != "qemu-sabrelite" {
			t.Errorf("%s TTCTRL source %q, want %q...", name, r.Source, ttWant)
		}
	}
	q := profile(t, "qemu-sabrelite")
	if r := q.Map.Register("DCCPARAMS"); !strings.Contains(r.Source, "QEMU hw/usb/chipidea.c") {
		t.Errorf("qemu DCCPARAMS source %q", r.Source)
	}
	// A source for a register the map does not have is an error.
	data := strings.Replace(goodBoard(t), "[[identity]]", "[reset_sources]\nNOPE = \"x\"\n\n[[identity]]", 1)
	if _, err := Parse("x.toml", []byte(data)); err == nil || !strings.Contains(err.Error(), "reset_sources.NOPE: no such register") {
		t.Errorf("reset_sources.NOPE: %v", err)
	}
}

func goodBoard(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestCitesCurrentBinding (issue 27, truth 9): every embedded profile, the
// profile documentation and the built-in map cite the current binding,
// chipidea,usb2-common.yaml, never the retired ci-hdrc-usb2.txt.
func TestCitesCurrentBinding(t *testing.T) {
	ents, err := profiles.FS.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	cites := 0
	for _, e := range ents {
		b, err := profiles.FS.ReadFile(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "ci-hdrc-usb2.txt") {
			t.Errorf("%s cites ci-hdrc-usb2.txt; cite chipidea,usb2-common.yaml", e.Name())
		}
		cites += strings.Count(string(b), "chipidea,usb2-common.yaml")
	}
	if cites == 0 {
		t.Error("no embedded profile cites chipidea,usb2-common.yaml")
	}
	for _, name := range []string{"imx6q", "imx6sl", "imx6sx", "imx6ul", "vf610"} {
		k := profile(t, name).Knob(regs.Ref{Reg: &regs.Register{Name: "TTCTRL"}, Field: &regs.Field{Name: "TTHA"}})
		if k == nil || !strings.Contains(k.Source, "chipidea,usb2-common.yaml") {
			t.Errorf("%s TTCTRL.TTHA knob source does not cite chipidea,usb2-common.yaml: %+v", name, k)
		}
	}
	if r := regs.ChipIdea().Register("TTCTRL"); strings.Contains(r.Source+r.Desc, "ci-hdrc-usb2") {
		t.Errorf("built-in TTCTRL cites the old binding: %s", r.Source)
	}
}
