package probe

import (
	"context"
	"errors"
)

// Series measures one run per Measure call with the package's accounting
// (Measure with Repeat 1) and checks that every run that read as many
// bytes read the same data as the series' first (Reference: the full
// hash of warm-up runs, the sample of every run). A sweep measures
// through one Series for all its points, so that a setting that corrupts
// every transfer shows. The sweep marks its warm-up runs' context
// (WarmupContext). The probe's own checks (write verification, the sim
// probe's model) set Corrupt themselves. It is a sweep.Prober.
type Series struct {
	p   Probe
	env Env
	ref Reference
	n   int
}

// NewSeries is a series of p's runs in env.
func NewSeries(p Probe, env Env) *Series { return &Series{p: p, env: env} }

// Measure runs the probe once and checks its data against the series'
// references.
func (s *Series) Measure(ctx context.Context) (Run, error) {
	s.n++
	res, err := Measure(ctx, s.p, Options{Repeat: 1, Env: s.env})
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
