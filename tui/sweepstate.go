package tui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

type sweepTab struct {
	*shared
	own               sweepKeys
	planText, planErr string
	plan              SweepPlan

	id     int
	cancel context.CancelFunc
	ch     chan tea.Msg

	points []results.PointRecord // folded over visits (see rankable)
	// screened holds each point's screening rates until a visit admits
	// them (PointRecord.ScreenAdmitted), as results.Store counts them;
	// screening are those of the visit under way.
	screened          map[string][]float64
	screening         []float64
	done, total       int
	current, err      string
	elapsed           time.Duration
	finished, stopped bool

	note    string
	results string // where the sweeper records the results
	// end is the run's end record and ranking the finished sweep's
	// ranking (the sweep's order, intervals and verdict, not the
	// screen's own); nil until the sweep ended.
	end     *results.EndRecord
	ranking *rank.Ranking
	// simulated: elapsed is the simulated board's modelled time.
	simulated bool

	started time.Time // the time of this run's first event
	planned int       // the points the sweep's header planned (baseline aside)
	visit   string    // the label of the point being measured

	view, top int
	prompt    int // the open prompt (promptPlan, promptLoad) or promptNone
}

func (s *sweepTab) resetResults() {
	s.points, s.done, s.total, s.current = nil, 0, 0, ""
	s.finished, s.stopped, s.err, s.elapsed, s.top = false, false, "", 0, 0
	s.note, s.ranking, s.planned, s.simulated = "", nil, 0, false
	s.screened, s.screening = nil, nil
}

// screenRun keeps a counted screening run's rate for its admitting visit.
func (s *sweepTab) screenRun(r results.RunRecord) {
	if r.Screen && results.Counts(r) {
		s.screening = append(s.screening, r.Run.Rate)
	}
}

// countHeld counts finished non-baseline points.
func countHeld(ps []results.PointRecord) int {
	n := 0
	for _, p := range ps {
		if !p.Baseline {
			n++
		}
	}
	return n
}

func (s *sweepTab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return s.key(msg)
	case sweepMsg:
		if msg.id != s.id {
			return nil
		}
		if p := s.follow(msg.e); p != nil && p.Status == rank.StatusCorrupt {
			s.setErr("CORRUPT data at %s: %s", s.label(*p), pointReason(*p))
		}
	case sweepDoneMsg:
		if msg.id != s.id {
			return nil
		}
		s.sweeping = false
		s.cancel()
		if msg.results != "" {
			s.results = msg.results
		}
		if end := s.end; end != nil {
			rk := end.Ranking
			s.ranking = &rk
			s.simulated = end.SimTime != nil
			if end.RestoreError != "" {
				s.note = "RESTORE FAILED: " + end.RestoreError
			}
		}
		switch {
		case errors.Is(msg.err, context.Canceled):
			s.stopped = true
			s.setStatus("sweep stopped at %d/%d point(s); r resumes", len(s.points), s.plan.Points())
		case msg.err != nil:
			s.err = msg.err.Error()
			s.setErr("sweep: %v", msg.err)
		default:
			s.finished = true
			fin := "sweep finished"
			if s.end != nil && s.end.OutOfBudget > 0 {
				fin = fmt.Sprintf("sweep finished, budget spent (%d still racing)", s.end.OutOfBudget)
			}
			if b, ok := s.best(); ok && s.ranking != nil {
				s.setStatus("%s; best %s at %s; %s", fin, s.label(b), s.pointRate(b), s.ranking.Verdict.Short())
			} else {
				s.setStatus("%s without a point that held", fin)
			}
		}
		return nil // the Model reads the registers back
	}
	return listen(s.ch)
}

// follow updates the tab from one of the runner's events and returns the
// point a visit closed, if any.
func (s *sweepTab) follow(e event.Event) *results.PointRecord {
	if s.started.IsZero() {
		s.started = e.Time
	}
	s.elapsed = e.Time.Sub(s.started)
	switch e.Kind {
	case event.SweepStarted:
		if e.Header != nil {
			s.planned = planned(*e.Header)
		}
		// A resume counts only what is left of the points planned.
		s.total = s.planned - countHeld(s.points)
		if len(e.Notes) > 0 {
			s.note = e.Notes[0]
		}
	case event.PointStarted:
		s.visit = e.Label
		s.current = e.Label
		s.screening = nil
	case event.RunFinished:
		s.screenRun(*e.Run)
		s.current = fmt.Sprintf("%s, %s %d", s.visit, e.Run.Kind(), e.Run.Seq)
	case event.PointClosed:
		return s.addPoint(*e.Closed)
	case event.PointEliminated:
		if e.Replayed {
			return nil // already in the results being resumed
		}
		if i := s.find(e.Settings); i >= 0 && statusOK(s.points[i]) {
			p := &s.points[i]
			p.Status, p.Reason, p.Changed = rank.StatusEliminated, e.Message, nil
			return nil
		}
		s.note = e.Kind.String() + ": " + e.Message
	case event.ModuleReload, event.SettingsRestored:
		s.note = e.Kind.String() + ": " + e.Message
	case event.SweepEnded:
		s.end = e.End
	}
	return nil
}

// planned counts the points a sweep planned, baselines left out.
func planned(h results.Header) int {
	n := 0
	for _, p := range h.Points {
		if p.Key != results.BaselineKey {
			n++
		}
	}
	return n
}

// find is the index of the (non-baseline) point with settings, or -1.
func (s *sweepTab) find(settings map[string]string) int {
	return slices.IndexFunc(s.points, func(p results.PointRecord) bool { return !p.Baseline && maps.Equal(p.Settings, settings) })
}

// addPoint folds a visit into its point's record (each baseline is kept)
// and returns the record.
func (s *sweepTab) addPoint(r results.PointRecord) *results.PointRecord {
	if sc := s.screening; len(sc) > 0 && !r.Baseline && statusOK(r) {
		if s.screened == nil {
			s.screened = map[string][]float64{}
		}
		s.screened[r.Point] = append(s.screened[r.Point], sc...)
	}
	s.screening = nil
	if sc := s.screened[r.Point]; r.ScreenAdmitted && len(sc) > 0 && statusOK(r) {
		r.Rates = append(slices.Clone(r.Rates), sc...)
		delete(s.screened, r.Point)
	}
	if r.Baseline {
		s.points = append(s.points, r)
		return &s.points[len(s.points)-1]
	}
	if i := s.find(r.Settings); i >= 0 {
		s.points[i] = foldVisit(s.points[i], r)
		return &s.points[i]
	}
	s.done++
	s.points = append(s.points, foldVisit(results.PointRecord{}, r))
	return &s.points[len(s.points)-1]
}

// foldVisit is the point's record after visit r over prev (the earlier
// visits'): every visit's rates, the last figures measured, and the first
// reason the point was excluded (as in the sweep's ranking; an
// elimination gives way to a later failure).
func foldVisit(prev, r results.PointRecord) results.PointRecord {
	p := r
	p.Rates = append(slices.Clone(prev.Rates), r.Rates...)
	if p.IRQsPerMiB == nil {
		p.IRQsPerMiB = prev.IRQsPerMiB
	}
	if p.CPUPerMiB == nil {
		p.CPUPerMiB = prev.CPUPerMiB
	}
	if p.VsBaseline == nil {
		p.VsBaseline = prev.VsBaseline
	}
	if p.Unit == "" {
		p.Unit = prev.Unit
	}
	if !statusOK(prev) && (prev.Status != rank.StatusEliminated || statusOK(r)) {
		p.Status, p.Reason, p.Changed = prev.Status, prev.Reason, prev.Changed
	}
	return p
}
