package rank

// Rate is a rate as the --json outputs give it: the value in its probe's
// unit and, for a byte rate, the same in every unit of ByteUnits. The
// one place that converts a rate for machines (`citune probe --json`,
// `citune report --json`).
type Rate struct {
	Value  float64  `json:"value"` // in Unit (bytes per second for a byte rate)
	Unit   string   `json:"unit"`
	MiBps  *float64 `json:"mib_s,omitempty"`
	MBps   *float64 `json:"mb_s,omitempty"`
	Mbitps *float64 `json:"mbit_s,omitempty"`
}

// RateOf is v in unit ("" or "B/s" for bytes per second, which gains the
// MiB/s, MB/s and Mbit/s figures; any other unit stays as it is).
func RateOf(v float64, unit string) Rate {
	r := Rate{Value: v, Unit: unit}
	if unit == "" || unit == "B/s" {
		r.Unit = "B/s"
		r.MiBps = Ptr(v / ByteUnits["MiB/s"])
		r.MBps = Ptr(v / ByteUnits["MB/s"])
		r.Mbitps = Ptr(v / ByteUnits["Mbit/s"])
	}
	return r
}
