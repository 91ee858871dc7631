package results

import (
	"encoding/json"

	"github.com/citune/citune/sweep/rank"
)

// UnmarshalJSON reads a run under the names of either form: today's,
// with units in the names (rate_bytes_per_s, irqs_per_s, cpu_s), and the
// first one's (rate_bps, irqs_per_sec, cpu, sender_rate_bps, ...), so
// results files written before the rename still load.
func (m *Measurement) UnmarshalJSON(b []byte) error {
	type plain Measurement
	var aux struct {
		*plain
		OldRate         *float64  `json:"rate_bps"`
		OldIRQsPerSec   *float64  `json:"irqs_per_sec"`
		OldCPU          *CPUTimes `json:"cpu"`
		OldSenderRate   *float64  `json:"sender_rate_bps"`
		OldReceiverRate *float64  `json:"receiver_rate_bps"`
		OldReadBackRate *float64  `json:"readback_rate_bps"`
	}
	aux.plain = (*plain)(m)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	// A line has one form or the other: an old name fills what the new
	// one left at zero.
	old := func(v *float64, dst *float64) {
		if v != nil && *dst == 0 {
			*dst = *v
		}
	}
	old(aux.OldRate, &m.Rate)
	old(aux.OldIRQsPerSec, &m.IRQsPerSec)
	old(aux.OldSenderRate, &m.SenderRate)
	old(aux.OldReceiverRate, &m.ReceiverRate)
	old(aux.OldReadBackRate, &m.ReadBackRate)
	if aux.OldCPU != nil && m.CPU == (CPUTimes{}) {
		m.CPU = *aux.OldCPU
	}
	return nil
}

// UnmarshalJSON reads a point's median under today's name
// (median_bytes_per_s) or the older median_rate.
func (p *PointRecord) UnmarshalJSON(b []byte) error {
	type plain PointRecord
	return rank.DecodeOldMedian(b, (*plain)(p), &p.Median)
}
