package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func (m Model) sweepKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	s := &m.sweep
	switch {
	case key.Matches(msg, k.Run):
		return m.startSweep()
	case key.Matches(msg, k.Stop):
		if !m.sweeping {
			m.setStatus("no sweep is running")
			return m, nil
		}
		s.cancel()
		m.setStatus("stopping the sweep (it restores its values first)...")
	case key.Matches(msg, k.Plan):
		if m.sweeping {
			m.setErr("the plan cannot change while the sweep runs (s stops it)")
			return m, nil
		}
		m.mode = modePlan
		m.in.Prompt = "plan: "
		m.in.Placeholder = "AHBBRST=0,2,3 ITC=0,1,8 repeat=3"
		m.in.SetValue(s.planText)
		m.in.CursorEnd()
		return m, m.in.Focus()
	case key.Matches(msg, k.Load):
		if m.sweeping {
			m.setErr("a plan cannot be loaded while the sweep runs (s stops it)")
			return m, nil
		}
		m.mode = modeLoad
		m.in.Prompt = "plan or results file: "
		m.in.Placeholder = "plan.toml or an earlier sweep's results.jsonl"
		m.in.SetValue("")
		return m, m.in.Focus()
	case key.Matches(msg, k.Chart):
		n := 2
		if len(s.plan.Axes) == 2 {
			n = 3
		}
		s.view = (s.view + 1) % n
	case key.Matches(msg, k.Up):
		s.top = max(0, s.top-1)
	case key.Matches(msg, k.Down):
		s.top = min(max(0, len(s.points)-1), s.top+1)
	}
	return m, nil
}

func (m Model) startSweep() (tea.Model, tea.Cmd) {
	s := &m.sweep
	switch {
	case m.cfg.Sweeper == nil:
		m.setErr("sweeping is not available: %s", m.cfg.NoSweep)
		return m, nil
	case m.sweeping:
		m.setErr("the sweep is already running (s stops it)")
		return m, nil
	case s.planErr != "":
		m.setErr("the plan has errors (listed above): e fixes it")
		return m, nil
	case len(s.plan.Axes) == 0:
		m.setErr("no plan: mark fields with x on the Registers tab, e writes a plan, l loads a file")
		return m, nil
	case m.probing:
		m.setErr("a probe is running; wait for it or stop it first")
		return m, nil
	case m.writing:
		m.setErr("a write is in flight; try again in a moment")
		return m, nil
	}
	if s.finished {
		s.resetResults()
	}
	done := countHeld(s.points)
	ctx, cancel := context.WithCancel(m.cfg.Ctx)
	s.id++
	m.sweeping, s.cancel, s.stopped, s.err, s.end = true, cancel, false, "", nil
	s.done, s.total, s.elapsed, s.current, s.started = 0, s.plan.Points()-done, 0, "", time.Time{}
	s.ch = make(chan tea.Msg, 16)
	resume := len(s.points) > 0
	if resume {
		m.setStatus("resuming the sweep: %d point(s) done, %d to go", len(s.points), s.total)
	} else {
		m.setStatus("sweep started: %d point(s), %d run(s) each", s.plan.Points(), s.plan.Repeats)
	}
	return m, job(m.cfg.Ctx, m.cfg.Jobs, s.ch, sweepJob(ctx, m.cfg.Sweeper, s.plan.Plan, resume, s.id))
}
