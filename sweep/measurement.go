package sweep

import (
	"github.com/citune/citune/probe"
	"github.com/citune/citune/sweep/results"
)

// MeasurementOf records a probe run.
func MeasurementOf(r probe.Run) results.Measurement {
	return results.Measurement{Bytes: r.Bytes, Elapsed: r.Elapsed, Rate: r.Rate, Simulated: r.Simulated, Hash: r.Hash, Sample: r.Sample,
		Integrity: r.Integrity, IntegrityCPU: r.IntegrityCPU, Corrupt: r.Corrupt, Detail: r.Detail, Warmup: r.Warmup,
		IRQs: r.IRQs, IRQsPerSec: r.IRQsPerSec, IRQsPerMiB: r.IRQsPerMiB,
		CPU:          results.CPUTimes{User: r.CPU.User, System: r.CPU.System, IRQ: r.CPU.IRQ, SoftIRQ: r.CPU.SoftIRQ, Idle: r.CPU.Idle, Total: r.CPU.Total},
		HandlerAvgUS: r.HandlerAvgUS, HandlerMaxUS: r.HandlerMaxUS, HandlerEvents: r.HandlerEvents, Err: r.Err, Unit: r.Unit,
		SenderRate: r.SenderRate, ReceiverRate: r.ReceiverRate, ReadBackRate: r.ReadBackRate}
}
