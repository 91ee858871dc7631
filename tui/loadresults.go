package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// An earlier sweep's results file opens in the Sweep tab as the session's
// own sweep would show it, ranked as the sweep and citune dts rank it.
// Only a file of the session's SoC and controller opens (its settings
// name this map's fields); the loaded file is never written.

// resultsMsg carries a loaded results file.
type resultsMsg struct {
	path string
	res  *results.Results
	err  error
}

// LoadPlanFile reads a sweep plan file (TOML, as `citune sweep --plan`).
func LoadPlanFile(path string, m *regs.Map) (SweepPlan, error) {
	pf, axes, err := plan.ReadPlanFile(m, path)
	if err != nil {
		return SweepPlan{}, err
	}
	sp := plan.DefaultPlan()
	if err := pf.Apply(&sp); err != nil {
		return SweepPlan{}, fmt.Errorf("%s: %w", path, err)
	}
	sp.Axes = axes
	// The rules citune sweep --plan has (plan.Check); the fields may be
	// chosen on screen later.
	if err := sp.CheckSettings(); err != nil {
		return SweepPlan{}, fmt.Errorf("%s: %w", path, err)
	}
	return SweepPlan{Plan: sp, Source: filepath.Base(path)}, nil
}

// loadPlanOrResults reads path as a results file when it is one, else as
// a plan file.
func loadPlanOrResults(load PlanLoader, path string, m *regs.Map) tea.Cmd {
	return func() tea.Msg {
		if strings.HasSuffix(path, ".jsonl") || results.IsFile(path) {
			res, err := results.Load(path)
			return resultsMsg{path: path, res: res, err: err}
		}
		if load == nil {
			return planMsg{path: path, err: fmt.Errorf("plan files are not available")}
		}
		return loadPlan(load, path, m)()
	}
}

func (m Model) onResults(msg resultsMsg) Model {
	if msg.err != nil {
		m.setErr("%v", msg.err)
		return m
	}
	if m.sweeping {
		m.setErr("%s: not opened while the sweep runs (s stops it)", msg.path)
		return m
	}
	h := msg.res.Header
	t := m.cfg.Target
	if m.cfg.DTS == nil {
		// Ranked without it, the verdict could recommend what cannot be
		// made permanent.
		m.setErr("%s: not opened: this build has no device-tree rules to rank it by; citune report %s shows it", msg.path, msg.path)
		return m
	}
	if !strings.EqualFold(h.Profile, t.Profile.Name) || !strings.EqualFold(h.Controller, t.Controller.Label) {
		m.setErr("%s was measured on %s %s, this session is %s %s: citune report %s shows it", msg.path, h.Profile, h.Controller, t.Profile.Name, t.Controller.Label, msg.path)
		return m
	}
	pl, err := h.Plan.Bind(m.m)
	if err != nil {
		m.setErr("%s: %v", msg.path, err)
		return m
	}
	s := &m.sweep
	s.resetResults()
	s.plan = SweepPlan{Plan: pl, Source: msg.path}
	s.setPlanText(planString(s.plan, m.m), m.m)
	s.plan.Source = msg.path
	s.markAxes()
	s.planned = planned(h)
	s.addVisits(msg.res)
	s.total = s.planned
	if n := len(msg.res.Runs); n > 0 {
		first, last := msg.res.Runs[0], msg.res.Runs[n-1]
		if first.SimTime != nil && last.SimTime != nil {
			// A simulated sweep: the board's modelled time, as the
			// session's own sweeps count it.
			s.elapsed = last.SimTime.Sub(*first.SimTime)
		} else {
			s.elapsed = last.Time.Sub(first.Time)
		}
	}
	// The verdict's rule of the session's own sweeps and of citune dts:
	// only what can be made permanent on this controller is recommended.
	rk := msg.res.Rank(rank.Policy{MinGainPct: h.Plan.MinGainPct(), NotPermanent: m.cfg.DTS.NotPermanent(h)})
	s.ranking = &rk
	s.simulated = h.Simulated() && !h.RealProbe()
	s.results = msg.path
	s.finished = true
	if n := len(msg.res.Ends); n == 0 || msg.res.Ends[n-1].Status != results.StatusComplete {
		s.finished, s.stopped = false, true
	}
	what := "opened " + msg.path
	if mark := h.SimulatedMark(); mark != "" && !t.Simulated() {
		what += " (" + mark + ")"
	}
	if b, ok := s.best(); ok {
		m.setStatus("%s: %d point(s); best %s at %s; %s", what, countHeld(s.points), s.label(b), s.pointRate(b), rk.Verdict.Short())
	} else {
		m.setStatus("%s: %d point(s), none that held", what, countHeld(s.points))
	}
	return m
}

// addVisits adds res's visits in the order they were measured, as the
// ranking reads them (so a point's rates are those its rank stands on),
// and marks the points the sweep dropped.
func (s *sweepTab) addVisits(res *results.Results) {
	for _, v := range res.VisitsInOrder() {
		for _, r := range v.Runs {
			s.screenRun(r)
		}
		s.addPoint(v.Point)
	}
	// The points a race or the model dropped, as follow marks them live.
	dropped := res.Eliminated()
	for i := range s.points {
		p := &s.points[i]
		if why, ok := dropped[p.Point]; ok && !p.Baseline && statusOK(*p) {
			p.Status, p.Reason, p.Changed = rank.StatusEliminated, why, nil
		}
	}
}
