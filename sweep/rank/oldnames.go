package rank

import "encoding/json"

// Results files and --json output written before the medians had their
// unit in the name call them "median_rate"; these read both.

type oldMedian struct {
	Median *float64 `json:"median_rate"`
}

func (o oldMedian) fill(dst *float64) {
	if o.Median != nil && *dst == 0 {
		*dst = *o.Median
	}
}

// UnmarshalJSON reads median_bytes_per_s or the older median_rate.
func (r *Ranked) UnmarshalJSON(b []byte) error {
	type plain Ranked
	var aux struct {
		*plain
		oldMedian
	}
	aux.plain = (*plain)(r)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	aux.fill(&r.Median)
	return nil
}

// UnmarshalJSON reads median_bytes_per_s or the older median_rate.
func (x *Excluded) UnmarshalJSON(b []byte) error {
	type plain Excluded
	var aux struct {
		*plain
		oldMedian
	}
	aux.plain = (*plain)(x)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	aux.fill(&x.Median)
	return nil
}

// UnmarshalJSON reads median_bytes_per_s or the older median_rate.
func (s *BaselineStats) UnmarshalJSON(b []byte) error {
	type plain BaselineStats
	var aux struct {
		*plain
		oldMedian
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	aux.fill(&s.Median)
	return nil
}
