package probe

import (
	"encoding/json"
	"strings"
	"testing"
)

// Stats name their unit in their keys; a unit of its own is given beside
// them.
func TestStatsJSON(t *testing.T) {
	b, _ := json.Marshal(Stats{N: 3, Unit: "B/s", Median: 5e6, Min: 4e6, Max: 6e6, Mean: 5e6, StdDev: 1e6})
	for _, k := range []string{`"median_bytes_per_s":5000000`, `"min_bytes_per_s":4000000`, `"max_bytes_per_s":6000000`, `"mean_bytes_per_s":`, `"stddev_bytes_per_s":`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("%s lacks %s", b, k)
		}
	}
	if strings.Contains(string(b), `"unit"`) || strings.Contains(string(b), `"median":`) {
		t.Errorf("a byte rate's stats carry a unit or the old names: %s", b)
	}
	var back Stats
	if err := json.Unmarshal(b, &back); err != nil || (back.Unit != "" && back.Unit != "B/s") || back.Median != 5e6 {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	b, _ = json.Marshal(Stats{N: 1, Unit: "fps", Median: 25})
	if !strings.Contains(string(b), `"unit":"fps"`) || !strings.Contains(string(b), `"median_bytes_per_s":25`) {
		t.Errorf("own unit: %s", b)
	}
}
