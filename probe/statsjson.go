package probe

import "encoding/json"

// MarshalJSON writes "unit" only for a probe's unit of its own (fps),
// whose figures the *_bytes_per_s names then hold, as a run's
// rate_bytes_per_s does (docs/json.md). *Decision:* no UnmarshalJSON:
// citune reads no probe output back (results files carry runs, not
// stats), and the ARMv7 binary had no 500 bytes to spare for it.
func (s Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	p := plain(s)
	if p.Unit == "B/s" {
		p.Unit = ""
	}
	return json.Marshal(p)
}
