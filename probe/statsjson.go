package probe

import "encoding/json"

// MarshalJSON writes the stats with the unit in the names
// (median_bytes_per_s, ...) and "unit" only for a probe's unit of its own
// (fps), whose figures the same names then hold, as a run's
// rate_bytes_per_s does (docs/json.md). *Decision:* no UnmarshalJSON for
// the first form (min, median, ... beside "unit"): citune reads no probe
// output back (results files carry runs, not stats), and the ARMv7
// binary's text segment had no 500 bytes to spare for it.
func (s Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	p := plain(s)
	if p.Unit == "B/s" {
		p.Unit = ""
	}
	return json.Marshal(p)
}
