package probe

import (
	"context"
	"errors"
)

// Series measures one run per Run call with the package's accounting
// (Measure with Repeat 1) and checks every run's data against the
// series' references (Reference). A sweep measures through one Series
// for all its points, so that a setting that corrupts every transfer
// shows. A Series is itself a Probe: the one the sweep
// (sweep.Config.Prober) and the TUI's probe tab take.
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

// Run runs the probe once; a corrupt run is a result, not an error.
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
