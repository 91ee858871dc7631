package plan_test

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
)

// Each kind of axis parses to its canonical name and values, shows its
// short label, and its Spec parses back to the same axis.
func TestParseAxisKinds(t *testing.T) {
	m := regs.ChipIdea()
	for _, c := range []struct {
		spec, name, label, specOut string
		kind                       plan.Kind
		values                     []string
	}{
		{"AHBBRST=0, 3", "SBUSCFG.AHBBRST", "AHBBRST", "SBUSCFG.AHBBRST=0,3", plan.KindRegister, []string{"0", "3"}},
		{"BURSTSIZE.TXPBURST=0x8,16", "BURSTSIZE.TXPBURST", "TXPBURST", "BURSTSIZE.TXPBURST=8,16", plan.KindRegister, []string{"8", "16"}},
		{"sysfs:/sys/block/sda/queue//max_sectors_kb=64,512", "/sys/block/sda/queue/max_sectors_kb", "/sys/block/sda/queue/max_sectors_kb",
			"sysfs:/sys/block/sda/queue/max_sectors_kb=64,512", plan.KindFile, []string{"64", "512"}},
		{"procfs:/proc/sys/vm/dirty_ratio=10,20", "/proc/sys/vm/dirty_ratio", "/proc/sys/vm/dirty_ratio",
			"sysfs:/proc/sys/vm/dirty_ratio=10,20", plan.KindFile, []string{"10", "20"}},
		{"modparam:ehci-hcd.log2_irq_thresh=0,3,6", "ehci_hcd.log2_irq_thresh", "ehci_hcd.log2_irq_thresh",
			"modparam:ehci_hcd.log2_irq_thresh=0,3,6", plan.KindModParam, []string{"0", "3", "6"}},
	} {
		a, err := plan.ParseAxis(m, c.spec)
		if err != nil {
			t.Errorf("ParseAxis(%q): %v", c.spec, err)
			continue
		}
		if a.Kind != c.kind || a.Name != c.name || a.Label() != c.label || a.Spec() != c.specOut || !slices.Equal(a.Values, c.values) {
			t.Errorf("ParseAxis(%q) = kind %s name %s label %s spec %s values %q", c.spec, a.Kind, a.Name, a.Label(), a.Spec(), a.Values)
		}
		back, err := plan.ParseAxis(m, a.Spec())
		if err != nil || back.Name != a.Name || back.Kind != a.Kind || !slices.Equal(back.Values, a.Values) {
			t.Errorf("Spec %q does not parse back: %+v, %v", a.Spec(), back, err)
		}
	}
	a, _ := plan.ParseAxis(m, "modparam:ehci-hcd.park=0,3")
	if a.Module != "ehci_hcd" || a.Param != "park" {
		t.Errorf("module %q param %q", a.Module, a.Param)
	}
	r, _ := plan.ParseAxis(m, "ITC=1,8,64")
	if r.Ref.Reg == nil || r.Ref.Reg.Name != "USBCMD" || r.Number(r.Values[2]) != 64 {
		t.Errorf("ITC axis: ref %v, third value %d", r.Ref, r.Number(r.Values[2]))
	}
}

// "all" takes every defined value of a field with a fixed set (never a
// reserved one: AHBBRST 4), and is refused for a field that takes a range.
func TestParseAxisAll(t *testing.T) {
	m := regs.ChipIdea()
	want := []string{"0", "1", "2", "3", "5", "6", "7"}
	for _, spec := range []string{"AHBBRST=all", "AHBBRST=*", "AHBBRST=ALL"} {
		a, err := plan.ParseAxis(m, spec)
		if err != nil || !slices.Equal(a.Values, want) {
			t.Errorf("%s: %q, %v; want %q", spec, a.Values, err, want)
		}
	}
	if _, err := plan.ParseAxis(m, "TXPBURST=all"); err == nil || !strings.Contains(err.Error(), "fixed set of values") {
		t.Errorf("TXPBURST=all: %v", err)
	}
}

// Every error says which axis and what is wrong, and wraps ErrPlan.
func TestParseAxisErrors(t *testing.T) {
	m := regs.ChipIdea()
	for spec, want := range map[string]string{
		"ITC":                            "want NAME=V1,V2",
		"ITC=":                           "no values",
		"ITC=, ,":                        "no values",
		"NOSUCHFIELD=1":                  "axis NOSUCHFIELD",
		"USBCMD=1,2":                     "fields, not whole registers (fields of USBCMD: RS, RST,",
		"GPTIMER0LD=1,2":                 "(fields of GPTIMER0LD: none)",
		"USBCMD.RS=0,1":                  "live state, not a knob",
		"ITC=8,0x8":                      "value 0x8 given twice",
		"ITC=3":                          "axis USBCMD.ITC",
		"gpio:/sys/x=1":                  `unknown kind "gpio"`,
		"sysfs:sys/block/sda=1":          "the path must be absolute",
		"sysfs:/etc/fstab=1":             "a path under /sys or /proc",
		"file:/sys/../etc/shadow=1":      "a path under /sys or /proc",
		"sysfs:/sys/a=1,1":               "value 1 given twice",
		"modparam:ehci_hcd=1":            "want modparam:MODULE.PARAM",
		"modparam:.park=1":               "want modparam:MODULE.PARAM",
		"modparam:ehci_hcd.=1":           "want modparam:MODULE.PARAM",
		"modparam:../x.y=1":              "want modparam:MODULE.PARAM",
		"modparam:ehci_hcd.park=1,1":     "value 1 given twice",
		"modparam:ehci_hcd.park=1,\"2\"": "no spaces or quotes",
		"dt:=1":                          "want dt:PROPERTY",
		"dt:Tx-Burst=1":                  "want dt:PROPERTY",
		"dt:a/b=1":                       "want dt:PROPERTY",
		"dt:tx-burst-size-dword=0x10,16": "value 16 given twice",
		"dt:tx-burst-size-dword=big":     "want a number",
	} {
		_, err := plan.ParseAxis(m, spec)
		if err == nil || !errors.Is(err, plan.ErrPlan) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAxis(%q) = %v, want an ErrPlan containing %q", spec, err, want)
		}
	}
	// Values that the command line cannot carry but a plan file can.
	if _, err := plan.NewAxis(m, "sysfs:/sys/a", []string{"1\n2"}); err == nil || !strings.Contains(err.Error(), "newline") {
		t.Errorf("file value with a newline: %v", err)
	}
	if _, err := plan.NewAxis(m, "modparam:ehci_hcd.park", []string{"1 2"}); err == nil || !strings.Contains(err.Error(), "no spaces") {
		t.Errorf("modparam value with a space: %v", err)
	}
	// Every bad value of a register axis is reported, not only the first.
	_, err := plan.ParseAxis(m, "ITC=3,5,8")
	if err == nil || strings.Count(err.Error(), "axis USBCMD.ITC") != 2 {
		t.Errorf("two bad values: %v, want both named", err)
	}
}

// Check refuses plans that cannot run and names every problem at once.
func TestPlanCheck(t *testing.T) {
	m := regs.ChipIdea()
	itc, _ := plan.ParseAxis(m, "ITC=1,8")
	burst, _ := plan.ParseAxis(m, "AHBBRST=0,3")
	p := plan.DefaultPlan()
	if p.Mode != plan.ModeGrid || p.Repeats < 1 || p.Settle <= 0 {
		t.Errorf("DefaultPlan = %+v", p)
	}
	if err := p.Check(); !errors.Is(err, plan.ErrNoAxes) || !errors.Is(err, plan.ErrPlan) {
		t.Errorf("a plan without axes: %v, want ErrNoAxes and ErrPlan", err)
	}
	p.Axes = []plan.Axis{itc, burst}
	if err := p.Check(); err != nil {
		t.Errorf("default plan with two axes: %v", err)
	}
	for _, c := range []struct {
		edit func(*plan.Plan)
		want string
	}{
		{func(p *plan.Plan) { p.Mode = "random" }, `mode "random" (want grid, ofat, adaptive or model)`},
		{func(p *plan.Plan) { p.Repeats = 0 }, "repeat 0: at least 1"},
		{func(p *plan.Plan) { p.Repeats = 1 << 31 }, "repeat 2147483648: at least 1, at most 10000"},
		{func(p *plan.Plan) { p.Warmup = 1 << 40 }, "at most 10000"},
		{func(p *plan.Plan) { p.Mode, p.Repeats = plan.ModeAdaptive, 2 }, "adaptive mode needs 3 or more runs"},
		{func(p *plan.Plan) { p.Warmup = -1 }, "cannot be negative"},
		{func(p *plan.Plan) { p.Settle = -time.Second }, "cannot be negative"},
		{func(p *plan.Plan) { p.BaselineEvery = -1 }, "cannot be negative"},
		{func(p *plan.Plan) { p.Axes = append(p.Axes, itc) }, "axis USBCMD.ITC given twice"},
		{func(p *plan.Plan) { p.Budget = 0.5 }, "budget 0.5: only an adaptive or model sweep has a budget (mode grid measures every point)"},
		{func(p *plan.Plan) { p.Mode, p.Repeats, p.Budget = plan.ModeAdaptive, 3, 1.5 }, "budget 1.5: a share of the grid's probe runs, above 0 and at most 1"},
		{func(p *plan.Plan) { p.Mode, p.Repeats, p.Budget = plan.ModeAdaptive, 3, -0.1 }, "budget -0.1: a share"},
		{func(p *plan.Plan) { p.Mode, p.Repeats, p.Budget = plan.ModeAdaptive, 3, math.NaN() }, "budget NaN: a share"},
	} {
		q := p
		q.Axes = slices.Clone(p.Axes)
		c.edit(&q)
		if err := q.Check(); err == nil || !errors.Is(err, plan.ErrPlan) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check = %v, want %q", err, c.want)
		}
	}
	q := p
	q.Mode, q.Repeats, q.Warmup = "x", 0, -1
	if err := q.Check(); err == nil || !strings.Contains(err.Error(), "mode") || !strings.Contains(err.Error(), "repeat 0") || !strings.Contains(err.Error(), "negative") {
		t.Errorf("three problems: %v, want all three", err)
	}
	ad := p
	ad.Mode, ad.Repeats = plan.ModeAdaptive, 3
	if err := ad.Check(); err != nil {
		t.Errorf("adaptive with 3 runs: %v", err)
	}
	for _, b := range []float64{plan.DefaultBudget, 1} {
		ad.Budget = b
		if err := ad.Check(); err != nil {
			t.Errorf("adaptive with a budget of %g: %v", b, err)
		}
	}
}

// A plan file sets what it gives and leaves the rest; its axes come from
// both the axis list and [[axes]] tables.
func TestParsePlanFile(t *testing.T) {
	m := regs.ChipIdea()
	src := `mode = "ofat"
repeat = 7
warmup = 2
settle = "50ms"
seed = 42
baseline_every = 4
budget = 0.25
axis = ["AHBBRST=0,3", "sysfs:/sys/block/sda/queue/max_sectors_kb=64,512"]

[[axes]]
name = "TXPBURST"
values = [8, "16", 32]
`
	pf, axes, err := plan.ParsePlanFile(m, "plan.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range axes {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"SBUSCFG.AHBBRST", "/sys/block/sda/queue/max_sectors_kb", "BURSTSIZE.TXPBURST"}) {
		t.Errorf("axes %q", names)
	}
	if !slices.Equal(axes[2].Values, []string{"8", "16", "32"}) {
		t.Errorf("TXPBURST values %q", axes[2].Values)
	}
	p := plan.DefaultPlan()
	pf.Apply(&p)
	want := plan.Plan{Mode: plan.ModeOFAT, Repeats: 7, Warmup: 2, Settle: 50 * time.Millisecond, Seed: 42, BaselineEvery: 4, Budget: 0.25}
	if p.Mode != want.Mode || p.Repeats != want.Repeats || p.Warmup != want.Warmup || p.Settle != want.Settle || p.Seed != want.Seed || p.BaselineEvery != want.BaselineEvery || p.Budget != want.Budget {
		t.Errorf("applied plan %+v, want %+v", p, want)
	}

	// An empty file changes nothing.
	pf, axes, err = plan.ParsePlanFile(m, "empty.toml", nil)
	if err != nil || len(axes) != 0 {
		t.Fatalf("empty file: %v, %d axes", err, len(axes))
	}
	q := plan.DefaultPlan()
	pf.Apply(&q)
	if d := plan.DefaultPlan(); q.Mode != d.Mode || q.Repeats != d.Repeats || q.Settle != d.Settle || q.BaselineEvery != d.BaselineEvery {
		t.Errorf("an empty file changed the plan: %+v", q)
	}
}

// Plan file errors name the file, and what is wrong (line, key, axis,
// value); every bad axis is reported.
func TestParsePlanFileErrors(t *testing.T) {
	m := regs.ChipIdea()
	for src, want := range map[string][]string{
		"mode = \"grid\"\nrepeat = \n":                        {"my.toml:", "line 2"},
		"mode = \"grid\"\nrepeats = 3\n":                      {"my.toml:", "unknown keys repeats", "known: mode, repeat"},
		"[[axes]]\nname = \"ITC\"\nvalue = [1]\n":             {"unknown keys axes.value"},
		"settle = \"soon\"\n":                                 {"my.toml:", `settle "soon"`},
		"[[axes]]\nname = \"ITC\"\nvalues = [1.5, 8]\n":       {"axis ITC: value 1.5 is neither a number nor a string"},
		"axis = [\"ITC=3\", \"NOSUCH=1\"]\n":                  {"my.toml: invalid sweep plan: axis USBCMD.ITC", "my.toml: invalid sweep plan: axis NOSUCH"},
		"[[axes]]\nname = \"sysfs:/etc/fstab\"\nvalues = [1]": {"my.toml:", "under /sys or /proc"},
	} {
		_, _, err := plan.ParsePlanFile(m, "my.toml", []byte(src))
		if err == nil || !errors.Is(err, plan.ErrPlan) {
			t.Errorf("%q: %v, want an ErrPlan", src, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %v, want %q", src, err, w)
			}
		}
	}
	// A settle the file gets wrong does not change the plan's.
	pf, _, _ := plan.ParsePlanFile(m, "my.toml", []byte("settle = \"soon\"\n"))
	p := plan.DefaultPlan()
	pf.Apply(&p)
	if p.Settle != plan.DefaultPlan().Settle {
		t.Errorf("settle %v after a bad settle in the file", p.Settle)
	}
}

// IsKey knows the plan settings in any case and with _ for -, and
// nothing else.
func TestIsKey(t *testing.T) {
	for _, k := range []string{"mode", "REPEAT", "baseline_every", "Min-Gain", "budget"} {
		if !plan.IsKey(k) {
			t.Errorf("IsKey(%q) = false", k)
		}
	}
	for _, k := range []string{"", "modes", "USBCMD.ITC", "min gain"} {
		if plan.IsKey(k) {
			t.Errorf("IsKey(%q) = true", k)
		}
	}
}
