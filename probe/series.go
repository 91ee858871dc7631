package probe

import (
	"context"
	"errors"
)

// Series measures one run per Run call with the package's accounting
// (Measure with Repeat 1) and checks that every run that read as many
// bytes read the same data as the series' first (Reference: the full
// hash of warm-up runs, the sample of every run). A sweep measures
// through one Series for all its points, so that a setting that corrupts
// every transfer shows. The sweep marks its warm-up runs' context
// (WarmupContext). The probe's own checks (write verification, the sim
// probe's model) set Corrupt themselves. A Series is itself a Probe: the
// one probe interface, which the sweep (sweep.Config.Prober) and the
// TUI's probe tab take; the command gives both a Series.
type Series struct {
	p   Probe
	env Env
	ref Reference
	n   int
}

// NewSeries is a series of p's runs in env.
func NewSeries(p Probe, env Env) *Series { return &Series{p: p, env: env} }

// Name is the probe's.
func (s *Series) Name() string { return s.p.Name() }

// Run runs the probe once with the accounting and checks its data
// against the series' references; progress, when not nil, gets bytes
// done and planned. A corrupt run is a result, not an error.
func (s *Series) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	s.n++
	o := Options{Repeat: 1, Env: s.env}
	if progress != nil {
		o.Progress = func(p Progress) { progress(p.Done, p.Total) }
	}
	res, err := Measure(ctx, s.p, o)
	if len(res.Runs) == 0 {
		if err == nil {
			err = errors.New("the probe returned no run")
		}
		return Run{}, err
	}
	r := res.Runs[len(res.Runs)-1]
	if err != nil && !r.Corrupt {
		return r, err
	}
	s.ref.Check(&r, s.n)
	return r, nil
}
