package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func (s *sweepTab) key(msg tea.KeyPressMsg) tea.Cmd {
	k := s.keys
	switch {
	case key.Matches(msg, k.Run):
		return s.start()
	case key.Matches(msg, k.Stop):
		if !s.sweeping {
			s.setStatus("no sweep is running")
			return nil
		}
		s.cancel()
		s.setStatus("stopping the sweep (it restores its values first)...")
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
	return nil
}

// ShortHelp is the tab's help line.
func (s *sweepTab) ShortHelp() []key.Binding {
	k := s.keys
	return []key.Binding{k.Run, k.Stop, k.Plan, k.Load, k.Chart, k.Move, k.NextTab, k.Quit, k.Help, k.Export}
}

func (s *sweepTab) start() tea.Cmd {
	switch {
	case s.cfg.Sweeper == nil:
		s.setErr("sweeping is not available: %s", s.cfg.NoSweep)
		return nil
	case s.sweeping:
		s.setErr("the sweep is already running (s stops it)")
		return nil
	case s.planErr != "":
		s.setErr("the plan has errors (listed above): e fixes it")
		return nil
	case len(s.plan.Axes) == 0:
		s.setErr("no plan: mark fields with x on the Registers tab, e writes a plan, l loads a file")
		return nil
	case s.probing:
		s.setErr("a probe is running; wait for it or stop it first")
		return nil
	case s.writing:
		s.setErr("a write is in flight; try again in a moment")
		return nil
	}
	if s.finished {
		s.resetResults()
	}
	done := countHeld(s.points)
	ctx, cancel := context.WithCancel(s.cfg.Ctx)
	s.id++
	s.sweeping, s.cancel, s.stopped, s.err, s.end = true, cancel, false, "", nil
	s.done, s.total, s.elapsed, s.current, s.started = 0, s.plan.Points()-done, 0, "", time.Time{}
	s.ch = make(chan tea.Msg, 16)
	resume := len(s.points) > 0
	if resume {
		s.setStatus("resuming the sweep: %d point(s) done, %d to go", len(s.points), s.total)
	} else {
		s.setStatus("sweep started: %d point(s), %d run(s) each", s.plan.Points(), s.plan.Repeats)
	}
	return job(s.cfg.Ctx, s.cfg.Jobs, s.ch, sweepJob(ctx, s.cfg.Sweeper, s.plan.Plan, resume, s.id))
}
