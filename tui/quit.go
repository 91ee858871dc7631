package tui

import (
	"fmt"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

func (m Model) quitKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.RestoreQuit):
		return m.startClose(closeRestore)
	case key.Matches(msg, k.KeepQuit):
		return m.startClose(closeKeep)
	case key.Matches(msg, k.Cancel, k.Quit):
		m.mode = modeNormal
	}
	return m, nil
}

// startClose stops background jobs, then restores (or keeps) and quits.
func (m Model) startClose(c closing) (tea.Model, tea.Cmd) {
	m.closing = c
	m.mode = modeClosing
	m.out.Quit = true
	m.out.Kept = c == closeKeep
	if m.probe.cancel != nil {
		m.probe.cancel()
	}
	if m.sweep.cancel != nil {
		m.sweep.cancel()
	}
	return m.proceedClose()
}

// proceedClose quits once no job runs any more.
func (m Model) proceedClose() (tea.Model, tea.Cmd) {
	if m.probing || m.sweeping {
		m.setStatus("stopping the running probe or sweep first...")
		return m, nil
	}
	if m.exports > 0 {
		m.setStatus("finishing the export first...")
		return m, nil // the exportMsg brings us back here
	}
	if m.writing {
		return m, nil // onWrite brings us back here (keep it too: the write's value is kept)
	}
	// What differs is known only now: a write typed just before the quit
	// has landed.
	m.out.Unchanged = len(m.differing()) == 0
	if m.closing == closeKeep {
		return m, tea.Quit
	}
	m.setStatus("restoring the starting values...")
	m.writing = true
	return m, restoreAll(m.cfg.Undo)
}

func (m *Model) quitView() []string {
	out := []string{m.st.Title.Render("Quit citune tui"), ""}
	diff := m.differing()
	if len(diff) == 0 {
		out = append(out, "Every value is at its start.")
	} else {
		out = append(out, fmt.Sprintf("%d value(s) differ from their start:", len(diff)))
		for _, ref := range diff {
			out = append(out, cut(fmt.Sprintf("  %-26s start %-10d now %d", ref.String(), m.startValue(ref), valueOf(ref, m.cur[ref.Reg.Offset])), m.w))
		}
	}
	out = append(out, "")
	if m.sweeping || m.probing {
		out = append(out, cut("A probe or sweep is running: it is stopped first (a sweep restores its own values).", m.w), "")
	}
	if m.mode == modeClosing {
		return out // the status line says what is being done
	}
	out = append(out,
		cut("  r or enter  restore the starting values and quit (default)", m.w),
		cut("  k           keep the current settings and quit", m.w))
	if m.cfg.Undo.Journal() != "" {
		out = append(out, cut("              (the journal keeps the originals: `citune restore` undoes them)", m.w))
	}
	out = append(out, cut("  esc         stay", m.w))
	return out
}
