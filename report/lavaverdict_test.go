package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// A verdict that decides nothing skips the winner and passes a gain of
// zero; one that keeps the original settings passes the baseline.
func TestLAVAVerdictWithoutChange(t *testing.T) {
	for _, c := range []struct {
		kind rank.VerdictKind
		want []string
	}{
		{rank.VerdictNone, []string{"citune: winner: none, no decision", "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=winner RESULT=skip>"}},
		{rank.VerdictKeep, []string{"citune: winner: the original settings, 2.00 ops/s", "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=winner RESULT=pass MEASUREMENT=2.00 UNITS=ops/s>"}},
	} {
		var b bytes.Buffer
		s := &Sweep{State: results.StatusComplete, Unit: "ops/s", Baseline: &Point{Label: "baseline", Baseline: true, Median: 2, Rates: []float64{2}},
			Ranked: []*Point{{Key: "a", Label: "A", Rank: 1, Median: 1, Rates: []float64{1}}}, Verdict: rank.Verdict{Kind: c.kind}}
		(&lavaWriter{w: &b, s: s, units: "ops/s", used: map[string]int{}}).verdict()
		got := b.String()
		for _, w := range append(c.want, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=sweep RESULT=pass>",
			"citune: winner-gain: none, nothing to make permanent\n<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=winner-gain RESULT=pass MEASUREMENT=0.00 UNITS=%>\n") {
			if !strings.Contains(got, w) {
				t.Errorf("%s: no %q in\n%s", c.kind, w, got)
			}
		}
		if strings.Count(got, "TEST_CASE_ID=winner-gain") != 1 {
			t.Errorf("%s: winner-gain signalled %d times", c.kind, strings.Count(got, "TEST_CASE_ID=winner-gain"))
		}
	}
}
