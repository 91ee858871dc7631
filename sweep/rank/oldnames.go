package rank

import "encoding/json"

// Results files and --json output written before the medians had their
// unit in the name call them "median_rate"; these read both.

// DecodeOldMedian decodes b into v (a method-less copy of the caller's
// type) and, when b names the median the old way, into *median.
func DecodeOldMedian(b []byte, v any, median *float64) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	var old struct {
		Median *float64 `json:"median_rate"`
	}
	if json.Unmarshal(b, &old) == nil && old.Median != nil && *median == 0 {
		*median = *old.Median
	}
	return nil
}

// UnmarshalJSON reads median_bytes_per_s or the older median_rate.
func (r *Ranked) UnmarshalJSON(b []byte) error {
	type plain Ranked
	return DecodeOldMedian(b, (*plain)(r), &r.Median)
}

// UnmarshalJSON reads median_bytes_per_s or the older median_rate.
func (x *Excluded) UnmarshalJSON(b []byte) error {
	type plain Excluded
	return DecodeOldMedian(b, (*plain)(x), &x.Median)
}

// UnmarshalJSON reads median_bytes_per_s or the older median_rate, and
// visit_medians_bytes_per_s or the older visits.
func (s *BaselineStats) UnmarshalJSON(b []byte) error {
	type plain BaselineStats
	if err := DecodeOldMedian(b, (*plain)(s), &s.Median); err != nil {
		return err
	}
	var old struct {
		Visits []float64 `json:"visits"`
	}
	if s.Visits == nil && json.Unmarshal(b, &old) == nil {
		s.Visits = old.Visits
	}
	return nil
}
