package probe

import "encoding/json"

// MarshalJSON writes the stats with the unit in the names
// (median_bytes_per_s, ...) and "unit" only for a probe's unit of its own
// (fps), whose figures the same names then hold, as a run's
// rate_bytes_per_s does (docs/json.md).
func (s Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	p := plain(s)
	if p.Unit == "B/s" {
		p.Unit = ""
	}
	return json.Marshal(p)
}

// UnmarshalJSON reads stats in today's names and in the first form's
// (min, median, mean, max, stddev beside a "unit"), so saved
// `probe --json` output still loads; no unit is bytes per second.
func (s *Stats) UnmarshalJSON(b []byte) error {
	type plain Stats
	var aux struct {
		*plain
		Min    *float64 `json:"min"`
		Median *float64 `json:"median"`
		Mean   *float64 `json:"mean"`
		Max    *float64 `json:"max"`
		StdDev *float64 `json:"stddev"`
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	for _, o := range []struct{ old, dst *float64 }{{aux.Min, &s.Min}, {aux.Median, &s.Median}, {aux.Mean, &s.Mean}, {aux.Max, &s.Max}, {aux.StdDev, &s.StdDev}} {
		if o.old != nil && *o.dst == 0 {
			*o.dst = *o.old
		}
	}
	if s.Unit == "" {
		s.Unit = "B/s"
	}
	return nil
}
