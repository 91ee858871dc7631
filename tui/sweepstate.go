package tui

import (
	"context"
	"errors"
	"maps"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// sweepState is the Sweep tab.
type sweepState struct {
	planText string
	plan     SweepPlan
	planErr  string

	id      int
	running bool
	cancel  context.CancelFunc
	ch      chan tea.Msg

	points   []results.PointRecord // folded over visits (see rankable)
	done     int
	total    int
	current  string
	elapsed  time.Duration
	finished bool
	stopped  bool
	err      string

	note     string
	results  string   // where the sweeper records the results
	bestVals []string // the sweeper's winner, when it names one

	view int
	top  int
}

func (s *sweepState) resetResults() {
	s.points, s.done, s.total, s.current = nil, 0, 0, ""
	s.finished, s.stopped, s.err, s.elapsed, s.top = false, false, "", 0, 0
	s.note, s.bestVals = "", nil
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

func (m Model) onSweep(msg tea.Msg) (tea.Model, tea.Cmd) {
	s := &m.sweep
	switch msg := msg.(type) {
	case sweepMsg:
		if msg.id != s.id {
			return m, nil
		}
		u := msg.u
		s.done, s.total, s.elapsed = u.Done, u.Total, u.Elapsed
		if u.Current != "" {
			s.current = u.Current
		}
		if u.Note != "" {
			s.note = u.Note
		}
		if u.Results != "" {
			s.results = u.Results
		}
		if u.Best != nil {
			s.bestVals = u.Best
		}
		if u.Point != nil {
			s.addPoint(*u.Point)
			if u.Point.Status == rank.StatusCorrupt {
				m.setErr("CORRUPT data at %s: %s", s.label(*u.Point, m.m), pointReason(*u.Point))
			}
		}
	case sweepDoneMsg:
		if msg.id != s.id {
			return m, nil
		}
		s.running = false
		s.cancel()
		m.wgen++
		m.resync = true
		read := readRegs(m.cfg.Target.Acc, m.m, m.wgen)
		switch {
		case errors.Is(msg.err, context.Canceled):
			s.stopped = true
			m.setStatus("sweep stopped at %d/%d point(s); r resumes", len(s.points), s.plan.Points())
		case msg.err != nil:
			s.err = msg.err.Error()
			m.setErr("sweep: %v", msg.err)
		default:
			s.finished = true
			if b, ok := s.best(); ok {
				m.setStatus("sweep finished; best %s at %s", s.label(b, m.m), fmtRate(median(b.Rates)))
			} else {
				m.setStatus("sweep finished without a point that held")
			}
		}
		if m.mode == modeClosing {
			mm, cmd := m.proceedClose()
			return mm, tea.Batch(read, cmd)
		}
		return m, read
	}
	return m, listen(s.ch)
}

// addPoint records a point, replacing an earlier result of the same
// values (baselines are kept, each measurement counts).
func (s *sweepState) addPoint(p results.PointRecord) {
	if !p.Baseline {
		for i := range s.points {
			if !s.points[i].Baseline && maps.Equal(s.points[i].Settings, p.Settings) {
				s.points[i] = p
				return
			}
		}
	}
	s.points = append(s.points, p)
}

func sameValues(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
