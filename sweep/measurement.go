package sweep

import (
	"context"
	"errors"

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

// SingleRun measures one run of a probe with its accounting (interrupts,
// CPU) and records it: the TUI's probe tab runs it (tui.Prober). A
// corrupt run is a result, shown as such, not an error.
type SingleRun struct {
	Probe probe.Probe
	Env   probe.Env
}

// Name describes the probe.
func (s SingleRun) Name() string { return s.Probe.Name() }

// Run measures once; progress, when not nil, gets bytes done and planned.
func (s SingleRun) Run(ctx context.Context, progress func(done, total int64)) (results.Measurement, error) {
	o := probe.Options{Repeat: 1, Env: s.Env}
	if progress != nil {
		o.Progress = func(p probe.Progress) { progress(p.Done, p.Total) }
	}
	res, err := probe.Measure(ctx, s.Probe, o)
	if len(res.Runs) == 0 {
		if err == nil {
			err = errors.New("the probe made no run")
		}
		return results.Measurement{}, err
	}
	r := res.Runs[len(res.Runs)-1]
	if r.Corrupt && errors.Is(err, probe.ErrCorrupt) {
		err = nil
	}
	return MeasurementOf(r), err
}
