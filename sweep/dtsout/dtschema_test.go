package dtsout_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
)

// nodeCompatible is each SoC's controller compatible as its .dtsi writes
// it (Linux imx6qdl/6sl/6sx/6ul/7s.dtsi, vfxxx.dtsi, imx8mm/8mn.dtsi; the
// i.MX8M trees gained the fsl,imx27-usb fallback with Peng Fan's 2022
// binding update, which chipidea,usb2-imx.yaml now requires),
// which selects the binding (chipidea,usb2-imx.yaml) dt-validate applies.
var nodeCompatible = map[string]string{
	"imx6q":  `"fsl,imx6q-usb", "fsl,imx27-usb"`,
	"imx6sl": `"fsl,imx6sl-usb", "fsl,imx27-usb"`,
	"imx6sx": `"fsl,imx6sx-usb", "fsl,imx27-usb"`,
	"imx6ul": `"fsl,imx6ul-usb", "fsl,imx27-usb"`,
	"vf610":  `"fsl,vf610-usb", "fsl,imx27-usb"`,
	"imx7d":  `"fsl,imx7d-usb", "fsl,imx27-usb"`,
	"imx8mm": `"fsl,imx8mm-usb", "fsl,imx7d-usb", "fsl,imx27-usb"`,
	"imx8mn": `"fsl,imx8mn-usb", "fsl,imx7d-usb", "fsl,imx27-usb"`,
}

// dtValidate compiles frags (label -> fragment) after a tree holding the
// controllers' nodes (as their SoC's .dtsi has them) and returns
// dt-validate's complaints about those nodes. schema is a processed schema
// (dt-mk-schema -j).
func dtValidate(t *testing.T, schema, compat string, cs []*soc.Controller, frags []string) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("/dts-v1/;\n\n/ {\n\t#address-cells = <1>;\n\t#size-cells = <1>;\n\tmodel = \"citune\";\n\tcompatible = \"citune,test\";\n\n" +
		"\tclk: clock {\n\t\tcompatible = \"fixed-clock\";\n\t\t#clock-cells = <0>;\n\t\tclock-frequency = <24000000>;\n\t};\n")
	for _, c := range cs {
		fmt.Fprintf(&b, "\n\t%s: %s {\n\t\tcompatible = %s;\n\t\treg = <%#x %#x>;\n\t\tinterrupts = <43>;\n\t\tclocks = <&clk>;\n\t};\n",
			c.Label, c.Node, compat, c.Base, c.Size)
	}
	b.WriteString("};\n\n" + strings.Join(frags, "\n"))
	src := filepath.Join(dir, "board.dts")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	dtb := filepath.Join(dir, "board.dtb")
	if out, err := exec.Command("dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dtb, src).CombinedOutput(); err != nil {
		t.Fatalf("dtc: %v\n%s\n%s", err, out, b.String())
	}
	out, _ := exec.Command("dt-validate", "-s", schema, dtb).CombinedOutput()
	var msgs []string
	for _, l := range strings.Split(string(out), "\n") {
		for _, c := range cs {
			if i := strings.Index(l, c.Node+":"); i >= 0 {
				msgs = append(msgs, strings.TrimSpace(l[i:]))
			}
		}
	}
	return strings.Join(msgs, "\n")
}

// TestDTSPassesDTSchema: the fragment citune dts writes for every SoC
// profile, with every device-tree knob set, passes dt-schema's dt-validate
// against the kernel's bindings (chipidea,usb2-imx.yaml and
// chipidea,usb2-common.yaml). CITUNE_DT_SCHEMA names the processed schema
// (.ci/dt-schema makes it from Debian's linux-source); without it, or
// without dtc and dt-validate, the test skips. A property out of the
// binding's range is caught, so the check is live.
func TestDTSPassesDTSchema(t *testing.T) {
	schema := os.Getenv("CITUNE_DT_SCHEMA")
	if schema == "" {
		t.Skip("CITUNE_DT_SCHEMA not set (.ci/dt-schema prepares it)")
	}
	for _, tool := range []string{"dtc", "dt-validate"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install device-tree-compiler dt-schema)", tool)
		}
	}
	if _, err := os.Stat(schema); err != nil {
		t.Fatalf("CITUNE_DT_SCHEMA: %v", err)
	}
	ps, err := soc.LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	// Every DT knob at a legal, non-default value (burst sizes take effect
	// only with AHBBRST 0, which the fragment then states too).
	settings := []dtsout.Setting{{Name: "SBUSCFG.AHBBRST", Value: "0"}, {Name: "BURSTSIZE.TXPBURST", Value: "16"},
		{Name: "BURSTSIZE.RXPBURST", Value: "8"}, {Name: "USBCMD.ITC", Value: "8"}, {Name: "TTCTRL.TTHA", Value: "127"}}
	checked := map[string]bool{}
	for _, p := range ps {
		compat, ok := nodeCompatible[p.Name]
		if !ok {
			continue // QEMU boards: their SoC's profile is checked
		}
		for _, role := range []regs.Role{regs.RoleHost, regs.RoleDevice} {
			var cs []*soc.Controller
			var frags []string
			for i := range p.Controllers {
				c := &p.Controllers[i]
				if !slices.Contains(c.Roles, role) {
					continue
				}
				pc := p.ForController(c)
				tg, err := soc.OpenSim(pc, c, soc.SimOptions{})
				if err != nil {
					t.Fatal(err)
				}
				snap, _ := soc.Take(pc.Map, tg)
				tg.Close()
				d := dtsout.BuildDTS(dtsout.DTSInput{Profile: pc, Controller: c, Role: role, Settings: settings, Snapshot: snap})
				if len(d.Props) == 0 {
					t.Errorf("%s %s (%s): no property emitted", p.Name, c.Label, role)
				}
				cs, frags = append(cs, c), append(frags, d.String())
			}
			if len(cs) == 0 {
				continue
			}
			if msgs := dtValidate(t, schema, compat, cs, frags); msgs != "" {
				t.Errorf("%s (%s role): dt-validate:\n%s\nfragments:\n%s", p.Name, role, msgs, strings.Join(frags, "\n"))
			}
			checked[p.Name] = true
		}
	}
	for name := range nodeCompatible {
		if !checked[name] {
			t.Errorf("profile %s not checked", name)
		}
	}
	// The validator sees the node: a value outside the binding is reported.
	p := ps[0]
	for _, q := range ps {
		if q.Name == "imx8mm" {
			p = q
		}
	}
	c := &p.Controllers[0]
	if msgs := dtValidate(t, schema, nodeCompatible[p.Name], []*soc.Controller{c}, []string{fmt.Sprintf("&%s {\n\tahb-burst-config = <0x8>;\n};\n", c.Label)}); !strings.Contains(msgs, "ahb-burst-config") {
		t.Errorf("dt-validate did not flag ahb-burst-config = <0x8>: %q", msgs)
	}
}
