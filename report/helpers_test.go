package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// The results files in testdata were written by the real sweep on the
// simulated controller (gen_test.go, -regen):
//
//	grid.jsonl         ITC × AHBBRST, one point not held (the driver
//	                   wrote ITC back), one corrupt; handler times and CPU
//	imx6ul.jsonl       the same plan on another board and kernel
//	ofat.jsonl         one factor at a time over four axes, burst sizes
//	                   that need AHBBRST=0
//	interrupted.jsonl  cancelled after 4 of 12 points
//	killed.jsonl       the same without its end record and with its last
//	                   line cut in the middle (kill -9 while writing)
//	resumed.jsonl      interrupted.jsonl continued with --resume
//	adaptive.jsonl     the adaptive race over the grid's points
//	admitted.jsonl     a model sweep whose visit 9 admits its point's
//	                   screening run (screen_admitted), written by
//	                   `citune --sim --controller usbotg sweep --mode model
//	                   --axis ITC=1,8,32 --axis AHBBRST=0,1 --axis
//	                   TXPBURST=16,32 --seed 4 -- sim --workload gadget-in`

// stubDTS stands for `citune dts --results` (tested in the command's
// scripts).
// It ranks as the command does without a profile: every setting taken
// as permanent.
func stubDTS(path string, res *results.Results) (rank.Ranking, string, string, error) {
	rk := res.Rank(rank.Policy{MinGainPct: res.Header.Plan.MinGainPct()})
	return rk, "&usbh1 {\n\tahb-burst-config = <0x3>;\t/* from " + filepath.Base(path) + " */\n};\n", "ehci_hcd.log2_irq_thresh=0", nil
}

func load(t *testing.T, names ...string) []*Sweep {
	t.Helper()
	var ss []*Sweep
	for _, n := range names {
		s, err := Load(filepath.Join("testdata", n+".jsonl"), LoadOptions{Decide: stubDTS})
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	return ss
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test ./report -update rewrites it); got:\n%s", name, got)
	}
}
