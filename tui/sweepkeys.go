package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/sweep/plan"
)

// The Sweep tab's prompts.
const (
	promptNone = iota
	promptPlan // the plan's text
	promptLoad // a plan or results file
)

func (s *sweepTab) key(msg tea.KeyPressMsg) tea.Cmd {
	k, o := s.keys, s.own
	if s.prompt != promptNone {
		return s.promptKey(msg)
	}
	switch {
	case key.Matches(msg, o.Run):
		return s.start()
	case key.Matches(msg, o.Stop):
		if !s.sweeping {
			s.setStatus("no sweep is running")
			return nil
		}
		s.cancel()
		s.setStatus("stopping the sweep (it restores its values first)...")
	case key.Matches(msg, o.Plan, o.Load):
		plan := key.Matches(msg, o.Plan)
		switch {
		case s.sweeping && plan:
			s.setErr("the plan cannot change while the sweep runs (s stops it)")
			return nil
		case s.sweeping:
			s.setErr("a plan cannot be loaded while the sweep runs (s stops it)")
			return nil
		case plan:
			s.prompt, s.in.Prompt, s.in.Placeholder = promptPlan, "plan: ", "AHBBRST=0,2,3 ITC=0,1,8 repeat=3"
			s.in.SetValue(s.planText)
			s.in.CursorEnd()
		default:
			s.prompt, s.in.Prompt, s.in.Placeholder = promptLoad, "plan or results file: ", "plan.toml or an earlier sweep's results.jsonl"
			s.in.SetValue("")
		}
		return s.in.Focus()
	case key.Matches(msg, o.Chart):
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

// promptKey handles the plan and plan-file prompts.
func (s *sweepTab) promptKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.keys
	val := strings.TrimSpace(s.in.Value())
	switch {
	case key.Matches(msg, k.Cancel):
		s.prompt = promptNone
		s.in.Blur()
		s.setStatus("cancelled")
		return nil
	case !key.Matches(msg, k.Apply):
		var cmd tea.Cmd
		s.in, cmd = s.in.Update(msg)
		return cmd
	case s.prompt == promptLoad && val == "":
		s.setErr("type the plan file's name")
		return nil
	case s.prompt == promptLoad:
		s.prompt = promptNone
		s.in.Blur()
		s.setStatus("loading %s...", val)
		return loadPlanOrResults(s.cfg.LoadPlan, val, s.m)
	}
	s.setPlanText(val, s.m)
	if s.planErr != "" {
		n := strings.Count(s.planErr, "\n") + 1
		s.setErr("the plan has %d error(s), listed above: fix and press enter, or esc", n)
		return nil
	}
	s.prompt = promptNone
	s.in.Blur()
	s.markAxes()
	if len(s.plan.Axes) == 0 {
		s.setStatus("plan cleared")
	} else {
		s.setStatus("plan set: %d point(s); r starts it%s", s.plan.Points(), fewRuns(s.plan.Repeats))
	}
	return nil
}

// markAxes marks the plan's register axes on the Registers tab (the
// other kinds have no row there; planFromAxes keeps them as they are).
func (s *sweepTab) markAxes() {
	s.axes = nil
	for _, a := range s.plan.Axes {
		if a.Kind == plan.KindRegister {
			s.axes = append(s.axes, a.Ref)
		}
	}
}

// ShortHelp is the tab's help line.
func (s *sweepTab) ShortHelp() []key.Binding {
	k, o := s.keys, s.own
	if s.prompt != promptNone {
		return []key.Binding{k.Apply, k.Cancel}
	}
	return []key.Binding{o.Run, o.Stop, o.Plan, o.Load, o.Chart, k.Move, k.NextTab, k.Quit, k.Help, k.Export}
}

// FullHelp is the tab's keys on the ? screen.
func (s *sweepTab) FullHelp() [][]key.Binding {
	o := s.own
	return [][]key.Binding{{o.Run, o.Stop}, {o.Plan, o.Load, o.Chart}}
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
