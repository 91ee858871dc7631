package plan_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
)

func TestParseAxis(t *testing.T) {
	m := regs.ChipIdea()
	cases := map[string]struct {
		spec, name string
		kind       plan.Kind
		vals       []string
		err        string
	}{
		"field":           {spec: "AHBBRST=0,INCR16,7", name: "SBUSCFG.AHBBRST", kind: plan.KindRegister, vals: []string{"0", "3", "7"}},
		"all":             {spec: "ITC=all", name: "USBCMD.ITC", kind: plan.KindRegister, vals: []string{"0", "1", "2", "4", "8", "16", "32", "64"}},
		"sysfs":           {spec: "sysfs:/sys/block/sda/queue/max_sectors_kb=64,120,512", name: "/sys/block/sda/queue/max_sectors_kb", kind: plan.KindFile, vals: []string{"64", "120", "512"}},
		"modparam":        {spec: "modparam:ehci-hcd.log2_irq_thresh=0,3,6", name: "ehci_hcd.log2_irq_thresh", kind: plan.KindModParam, vals: []string{"0", "3", "6"}},
		"dt":              {spec: "dt:tx-burst-size-dword=0x10,32", name: "tx-burst-size-dword", kind: plan.KindDT, vals: []string{"16", "32"}},
		"reserved":        {spec: "AHBBRST=4", err: "reserved"},
		"illegal ITC":     {spec: "ITC=3", err: "not a legal value"},
		"whole register":  {spec: "USBCMD=1", err: "a sweep changes fields"},
		"read-only":       {spec: "CAPLENGTH.CAPLENGTH=1", err: "read-only"},
		"RST never":       {spec: "RST=1", err: "never sets"},
		"relative path":   {spec: "sysfs:block/x=1", err: "absolute"},
		"twice":           {spec: "ITC=1,1", err: "given twice"},
		"bad modparam":    {spec: "modparam:ehci_hcd=1", err: "MODULE.PARAM"},
		"unknown kind":    {spec: "gpio:5=1", err: "unknown kind"},
		"no values":       {spec: "ITC=", err: "no values"},
		"no equals":       {spec: "ITC", err: "want NAME=V1"},
		"typo suggestion": {spec: "AHBBST=1", err: "did you mean"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a, err := plan.ParseAxis(m, c.spec)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, plan.ErrPlan) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Name != c.name || a.Kind != c.kind || !slices.Equal(a.Values, c.vals) {
				t.Errorf("got %+v", a)
			}
		})
	}
}

func TestPlanFile(t *testing.T) {
	m := regs.ChipIdea()
	pf, as, err := plan.ParsePlanFile(m, "plan.toml", []byte(`
mode = "ofat"
repeat = 4
settle = "50ms"
seed = 9
axis = ["AHBBRST=0,3"]

[[axes]]
name = "TXPBURST"
values = [8, "0x10"]

[[axes]]
name = "sysfs:/sys/block/sda/queue/max_sectors_kb"
values = ["64", 512]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.DefaultPlan()
	pf.Apply(&p)
	if p.Mode != "ofat" || p.Repeats != 4 || p.Settle != 50*time.Millisecond || p.Seed != 9 || p.Warmup != 1 {
		t.Errorf("plan %+v", p)
	}
	if len(as) != 3 || !slices.Equal(as[1].Values, []string{"8", "16"}) || !slices.Equal(as[2].Values, []string{"64", "512"}) {
		t.Errorf("axes %+v", as)
	}
	for name, text := range map[string]string{
		"unknown key": "mode = \"grid\"\nrepeats = 3\n",
		"bad value":   "axis = [\"ITC=5\"]\n",
		"bad settle":  "settle = \"soon\"\n",
		"bad toml":    "mode = \n",
	} {
		if _, _, err := plan.ParsePlanFile(m, "p.toml", []byte(text)); err == nil || !errors.Is(err, plan.ErrPlan) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

// A plan read back from a results file (names and values, no register
// references) binds to the map again as the flags built it, and a name
// the map does not have is refused.
func TestBindAPlanReadBack(t *testing.T) {
	m := regs.ChipIdea()
	p := plan.DefaultPlan()
	p.Seed = 7
	for _, spec := range []string{"AHBBRST=0,3", "sysfs:/sys/block/sda/queue/max_sectors_kb=64,512", "modparam:ehci-hcd.park=0,3"} {
		a, err := plan.ParseAxis(m, spec)
		if err != nil {
			t.Fatal(err)
		}
		p.Axes = append(p.Axes, a)
	}
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var back plan.Plan
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Axes[0].Ref.Field != nil {
		t.Fatal("the file form kept the register reference")
	}
	b, err := back.Bind(m)
	if err != nil {
		t.Fatal(err)
	}
	if b.Seed != 7 || b.Mode != p.Mode || len(b.Axes) != 3 {
		t.Fatalf("bound plan %+v", b)
	}
	for i, a := range b.Axes {
		if a.Spec() != p.Axes[i].Spec() || a.Ref != p.Axes[i].Ref || a.Module != p.Axes[i].Module || a.Param != p.Axes[i].Param {
			t.Errorf("axis %d: %+v, want %+v", i, a, p.Axes[i])
		}
	}
	back.Axes[0].Name = "SBUSCFG.NOSUCH"
	if _, err := back.Bind(m); err == nil || !errors.Is(err, plan.ErrPlan) {
		t.Errorf("unknown field: error %v", err)
	}
}

func TestReadPlanFile(t *testing.T) {
	m := regs.ChipIdea()
	path := filepath.Join(t.TempDir(), "plan.toml")
	if err := os.WriteFile(path, []byte("repeat = 5\naxis = [\"ITC=1,8\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pf, axes, err := plan.ReadPlanFile(m, path)
	if err != nil || pf.Repeat == nil || *pf.Repeat != 5 || len(axes) != 1 || axes[0].Name != "USBCMD.ITC" {
		t.Fatalf("%+v %+v %v", pf, axes, err)
	}
	if _, _, err := plan.ReadPlanFile(m, path+".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: error %v", err)
	}
}
