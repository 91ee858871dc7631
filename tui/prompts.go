package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
)

// openExport asks for the file name of the export.
func (m Model) openExport() (tea.Model, tea.Cmd) {
	if m.cfg.WriteFile == nil {
		m.setErr("export is not available in this build")
		return m, nil
	}
	m.mode = modeExport
	_, _, m.expW = m.winnerSettings()
	m.in.Prompt = "file: "
	m.in.Placeholder = "file name"
	m.in.SetValue("citune-" + m.cfg.Target.Controller.Label + ".dtsi")
	m.in.CursorEnd()
	return m, m.in.Focus()
}

// exportText is the fragment for the chosen source, made by package
// sweep's BuildDTS (only what the kernel honours becomes a property).
func (m Model) exportText() string {
	if m.cfg.DTS != nil {
		results := ""
		if m.expW {
			results = m.sweep.results
		}
		if results != "" || !m.expW {
			if text, err := m.cfg.DTS(results, snapshotOf(m.m, m.cur)); err == nil {
				return text
			}
		}
	}
	t := m.cfg.Target
	role := m.cfg.Role
	if role == "" {
		role = soc.RoleOf(m.m, t.Controller, snapshotOf(m.m, m.cur))
	}
	header := []string{"citune: " + t.String() + ", " + string(role) + " role"}
	if role == "" { // BuildDTS then gives both roles' mechanisms
		header[0] = "citune: " + t.String() + ", role unknown (USBMODE.CM says neither host nor device)"
	}
	settings := liveSettings(t.Profile, m.cur)
	source := "current settings read from the controller"
	if m.expW {
		if ws, why, ok := m.winnerSettings(); ok {
			settings, source = ws, why
		}
	}
	header = append(header, "source: "+source)
	return dtsout.BuildDTS(dtsout.DTSInput{Profile: t.Profile, Controller: t.Controller, Role: role,
		Settings: settings, Snapshot: snapshotOf(m.m, m.cur), Header: header}).String()
}

func (m Model) exportView(h int) []string {
	text := m.exportText()
	src := "current settings"
	if m.expW {
		src = "sweep winner"
	}
	alt := ""
	if _, _, ok := m.winnerSettings(); ok {
		alt = "  (tab switches between current settings and sweep winner)"
	}
	out := []string{
		m.st.Title.Render(cut("Export the device-tree fragment and kernel parameters", m.w)),
		cut("source: "+src+alt, m.w),
		m.inputView(),
		cut("enter writes the file; esc cancels", m.w),
		m.st.Section.Render(fit("-- preview ", m.w)),
	}
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, cut(strings.ReplaceAll(l, "\t", "    "), m.w))
	}
	if len(out) > h {
		out = out[:h]
	}
	return out
}

// inputView renders the shared text input within the width.
func (m Model) inputView() string {
	in := m.in
	in.SetWidth(max(5, m.w-len(in.Prompt)-1))
	return in.View()
}

// openSweepPrompt opens the Sweep tab's plan or plan-file prompt.
func (m Model) openSweepPrompt(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	plan := key.Matches(msg, m.keys.Plan)
	switch {
	case m.sweeping && plan:
		m.setErr("the plan cannot change while the sweep runs (s stops it)")
		return m, nil
	case m.sweeping:
		m.setErr("a plan cannot be loaded while the sweep runs (s stops it)")
		return m, nil
	case plan:
		m.mode, m.in.Prompt, m.in.Placeholder = modePlan, "plan: ", "AHBBRST=0,2,3 ITC=0,1,8 repeat=3"
		m.in.SetValue(m.sweep.planText)
		m.in.CursorEnd()
	default:
		m.mode, m.in.Prompt, m.in.Placeholder = modeLoad, "plan or results file: ", "plan.toml or an earlier sweep's results.jsonl"
		m.in.SetValue("")
	}
	return m, m.in.Focus()
}

// sweepPrompt is the plan or plan-file prompt the Sweep tab shows on top.
func (m Model) sweepPrompt() []string {
	if m.mode == modeLoad {
		return []string{m.st.Title.Render(cut("Load a sweep plan, or an earlier sweep's results", m.w)), m.inputView()}
	}
	return append(wrapStyled(m.st.Title, "Sweep plan: FIELD=v1,v2,... per axis and repeat=N; values as for citune set", m.w), m.inputView())
}

// promptKey handles the export, plan and plan-file prompts.
func (m Model) promptKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.mode, m.expReplace = modeNormal, ""
		m.in.Blur()
		m.setStatus("cancelled")
		return m, nil
	case m.mode == modeExport && key.Matches(msg, k.Switch):
		if _, _, ok := m.winnerSettings(); ok {
			m.expW = !m.expW
		} else {
			m.setStatus("no sweep winner yet: exporting the current settings")
		}
		return m, nil
	case key.Matches(msg, k.Apply):
		val := strings.TrimSpace(m.in.Value())
		switch m.mode {
		case modeExport:
			if val == "" {
				m.setErr("export: type a file name")
				return m, nil
			}
			text := m.exportText()
			replace := val == m.expReplace
			m.mode, m.expReplace = modeNormal, ""
			m.in.Blur()
			m.setStatus("writing %s...", val)
			m.exports++
			return m, writeExport(m.cfg.WriteFile, val, text, replace)
		case modePlan:
			m.sweep.setPlanText(val, m.m)
			if m.sweep.planErr != "" {
				n := strings.Count(m.sweep.planErr, "\n") + 1
				m.setErr("the plan has %d error(s), listed above: fix and press enter, or esc", n)
				return m, nil
			}
			m.mode = modeNormal
			m.in.Blur()
			m.regs.axes = nil
			for _, a := range m.sweep.plan.Axes {
				m.regs.axes = append(m.regs.axes, a.Ref)
			}
			if len(m.sweep.plan.Axes) == 0 {
				m.setStatus("plan cleared")
			} else {
				m.setStatus("plan set: %d point(s); r starts it%s", m.sweep.plan.Points(), fewRuns(m.sweep.plan.Repeats))
			}
			return m, nil
		case modeLoad:
			if val == "" {
				m.setErr("type the plan file's name")
				return m, nil
			}
			m.mode = modeNormal
			m.in.Blur()
			m.setStatus("loading %s...", val)
			return m, loadPlanOrResults(m.cfg.LoadPlan, val, m.m)
		}
	}
	var cmd tea.Cmd
	m.in, cmd = m.in.Update(msg)
	return m, cmd
}
