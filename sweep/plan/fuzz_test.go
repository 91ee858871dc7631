package plan

import (
	"testing"

	"github.com/citune/citune/regs"
)

// FuzzParseAxis: axis specs from the command line never panic, and an
// accepted register axis names a field of the map.
func FuzzParseAxis(f *testing.F) {
	for _, s := range []string{"ITC=1,8,64", "AHBBRST=0,2,3,7", "TXPBURST=8,16,32", "ITC=all",
		"sysfs:/sys/block/sda/queue/max_sectors_kb=64,120,512", "modparam:ehci_hcd.log2_irq_thresh=0,3,6", "dt:tx-burst-size-dword=0x10,0x20", "=", "ITC=", "x=1,,2"} {
		f.Add(s)
	}
	m := regs.ChipIdea()
	f.Fuzz(func(t *testing.T, spec string) {
		a, err := ParseAxis(m, spec)
		if err != nil {
			return
		}
		if a.Kind == KindRegister && a.Ref.Reg == nil {
			t.Fatalf("register axis %q without a register", spec)
		}
	})
}

// FuzzParsePlanFile: plan files never panic the parser.
func FuzzParsePlanFile(f *testing.F) {
	f.Add([]byte("mode = \"grid\"\nrepeat = 3\n[[axis]]\nname = \"ITC\"\nvalues = [\"1\", \"8\"]\n"))
	f.Add([]byte("[[axis]]\n"))
	f.Add([]byte("mode = \"adaptive\"\nbudget = 0.25\naxis = [\"ITC=1,8\"]\n"))
	m := regs.ChipIdea()
	f.Fuzz(func(t *testing.T, data []byte) {
		ParsePlanFile(m, "plan.toml", data)
	})
}
