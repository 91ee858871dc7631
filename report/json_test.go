package report

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// The machine form lists every point of every file once (ranked, excluded,
// eliminated), with its rates in the probe's unit and, for byte rates,
// in MiB/s, MB/s and Mbit/s.
func TestJSONListsEveryPointWithItsRates(t *testing.T) {
	ss := load(t, "grid", "adaptive")
	js := JSON(ss)
	if len(js) != 2 {
		t.Fatalf("%d sweeps, want 2", len(js))
	}
	statuses := map[string]int{}
	for i, s := range ss {
		j := js[i]
		if want := len(s.Ranked) + len(s.Excluded) + len(s.Eliminated); len(j.Points) != want || want == 0 {
			t.Errorf("%s: %d points, want %d", s.File, len(j.Points), want)
		}
		if w := s.Winner(); w == nil || j.Winner != w.Label {
			t.Errorf("%s: winner %q, report's %+v", s.File, j.Winner, w)
		}
		if j.Baseline == nil || !j.Baseline.Baseline || j.Baseline.Median == nil || *j.Baseline.Median.BytesPerS != s.Baseline.Median {
			t.Errorf("%s: baseline %+v", s.File, j.Baseline)
		}
		for k, p := range j.Points {
			statuses[p.Status]++
			if p.Runs == 0 {
				if p.Median != nil {
					t.Errorf("%s: point %s without runs has a median", s.File, p.Label)
				}
				continue
			}
			m := p.Median
			if m == nil || m.Unit != "" || m.BytesPerS == nil || m.MiBps == nil || !near(*m.MiBps, *m.BytesPerS/(1<<20)) || !near(*m.MBps, *m.BytesPerS/1e6) || !near(*m.Mbitps, *m.BytesPerS*8/1e6) {
				t.Errorf("%s: point %d median %+v", s.File, k, m)
			}
			if *p.Min.BytesPerS > *m.BytesPerS || *p.Max.BytesPerS < *m.BytesPerS {
				t.Errorf("%s: point %s min %v median %v max %v", s.File, p.Label, *p.Min.BytesPerS, *m.BytesPerS, *p.Max.BytesPerS)
			}
		}
	}
	for _, st := range []string{"ok", "not-held", "corrupt", "eliminated"} {
		if statuses[st] == 0 {
			t.Errorf("no %s point in %v", st, statuses)
		}
	}
	b, err := json.Marshal(js)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"mib_s":`, `"mbit_s":`, `"vs_baseline":{"diff_pct":`, `"ci_lo_pct":`, `"change":`, `"winner":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("no %s in %.300s", k, b)
		}
	}
}

// A rate in the probe's own unit is not converted to bytes.
func TestJSONKeepsAProbesOwnUnit(t *testing.T) {
	ss := load(t, "grid")
	ss[0].Unit = "fps"
	for _, p := range JSON(ss)[0].Points {
		if p.Median != nil && (p.Median.Unit != "fps" || p.Median.MiBps != nil) {
			t.Errorf("point %s: %+v", p.Label, p.Median)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Abs(b) }
