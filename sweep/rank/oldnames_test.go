package rank

import (
	"encoding/json"
	"strings"
	"testing"
)

// A ranking's medians have their unit in the name; the older median_rate
// still reads.
func TestMedianNames(t *testing.T) {
	b, _ := json.Marshal(Ranking{Baseline: BaselineStats{Median: 7}, Ranked: []Ranked{{Median: 8}}, Excluded: []Excluded{{Median: 9}}})
	if strings.Contains(string(b), "median_rate") || strings.Count(string(b), `"median_bytes_per_s"`) != 3 {
		t.Errorf("names: %s", b)
	}
	var r Ranking
	old := `{"baseline":{"median_rate":7},"ranked":[{"median_rate":8}],"excluded":[{"median_rate":9}]}`
	if err := json.Unmarshal([]byte(old), &r); err != nil || r.Baseline.Median != 7 || r.Ranked[0].Median != 8 || r.Excluded[0].Median != 9 {
		t.Errorf("old names: %+v, %v", r, err)
	}
	var n Ranking
	if err := json.Unmarshal(b, &n); err != nil || n.Baseline.Median != 7 || n.Ranked[0].Median != 8 || n.Excluded[0].Median != 9 {
		t.Errorf("new names: %+v, %v", n, err)
	}
}

// The baseline's visit medians carry their unit in the name; files that
// call them "visits" still read.
func TestVisitMedianNames(t *testing.T) {
	b, _ := json.Marshal(BaselineStats{Visits: []float64{1, 2}})
	if !strings.Contains(string(b), `"visit_medians_bytes_per_s":[1,2]`) || strings.Contains(string(b), `"visits"`) {
		t.Errorf("names: %s", b)
	}
	for _, in := range []string{`{"visits":[1,2]}`, string(b)} {
		var s BaselineStats
		if err := json.Unmarshal([]byte(in), &s); err != nil || len(s.Visits) != 2 || s.Visits[1] != 2 {
			t.Errorf("%s: %+v, %v", in, s, err)
		}
	}
}
