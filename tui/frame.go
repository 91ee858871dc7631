package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/soc"
)

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	if !m.cfg.Mono {
		v.WindowTitle = "citune " + m.cfg.Target.Controller.Label
	}
	return v
}

// render draws exactly h lines of at most w columns.
func (m Model) render() string {
	bodyH := m.h - 3
	var body []string
	switch m.mode {
	case modeQuit, modeClosing:
		body = m.quitView(bodyH)
	case modeHelp:
		body = m.helpView(bodyH)
	case modeExport:
		body = m.exportView(bodyH)
	case modeEdit:
		body = m.editView(bodyH)
	default:
		switch m.tab {
		case tabRegs:
			body = m.regsView(bodyH)
		case tabProbe:
			body = m.probeView(bodyH)
		case tabSweep:
			body = m.sweepView(bodyH)
		}
	}
	body = padLines(body, m.w, bodyH)
	lines := make([]string, 0, m.h)
	lines = append(lines, m.headerView())
	lines = append(lines, body...)
	lines = append(lines, m.statusView(), m.helpLine(m.shortHelp()))
	return strings.Join(lines, "\n")
}

func (m Model) headerView() string {
	t := m.cfg.Target
	kind := "/dev/mem"
	switch t.Kind {
	case soc.KindSim:
		kind = "SIMULATED"
	case soc.KindFile:
		kind = "image"
	}
	left := fmt.Sprintf("%s %s %#x %s", t.Profile.Name, t.Controller.Label, t.Controller.Base, kind)
	var tabs []string
	for i := tab(0); i < numTabs; i++ {
		name := fmt.Sprintf("%d %s", i+1, tabNames[i])
		if i == m.tab && m.mode != modeHelp {
			tabs = append(tabs, m.st.TabActive.Render("["+name+"]"))
		} else {
			tabs = append(tabs, m.st.Tab.Render(" "+name+" "))
		}
	}
	right := "live " + m.interval.String()
	if m.paused {
		right = "PAUSED"
	}
	if m.probe.running {
		right = "PROBE " + right
	}
	if m.sweep.running {
		right = "SWEEP " + right
	}
	tabW := 0
	for i := tab(0); i < numTabs; i++ {
		tabW += len(tabNames[i]) + 4
	}
	tabW += int(numTabs) - 1
	room := m.w - tabW - 2 - len(right) - 1
	if room < 12 {
		right = ""
		room = m.w - tabW - 2
	}
	return m.st.Header.Render(fit(left, room)) + "  " + strings.Join(tabs, " ") + " " + right
}

// helpLine renders as many bindings as fit in one line, "~" marking
// that more exist (? lists them all).
func (m Model) helpLine(bs []key.Binding) string {
	var b strings.Builder
	n := 0
	for _, k := range bs {
		if !k.Enabled() {
			continue
		}
		h := k.Help()
		item := h.Key + " " + h.Desc
		sep := ""
		if n > 0 {
			sep = "  "
		}
		if n+len(sep)+len(item) > m.w-2 {
			if n+2 <= m.w {
				b.WriteString(" ~")
			}
			break
		}
		b.WriteString(sep + m.st.Help.ShortKey.Render(h.Key) + " " + m.st.Help.ShortDesc.Render(h.Desc))
		n += len(sep) + len(item)
	}
	return b.String()
}

func (m Model) statusView() string {
	s := fit(m.status, m.w)
	if m.statusErr {
		return m.st.Error.Render(s)
	}
	return m.st.Status.Render(s)
}

// shortHelp is the help line for what is on screen.
func (m Model) shortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeQuit:
		return []key.Binding{k.RestoreQuit, k.KeepQuit, k.Cancel}
	case modeClosing:
		return nil
	case modeHelp:
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "back"))}
	case modeEdit:
		return []key.Binding{k.Move, k.Apply, k.Cancel}
	case modeExport:
		return []key.Binding{k.Apply, k.Switch, k.Cancel}
	case modePlan, modeLoad:
		return []key.Binding{k.Apply, k.Cancel}
	}
	switch m.tab {
	case tabProbe:
		return []key.Binding{k.Run, k.Stop, k.Runs, k.Move, k.Mark, k.NextTab, k.Quit, k.Help, k.Export}
	case tabSweep:
		return []key.Binding{k.Run, k.Stop, k.Plan, k.Load, k.Chart, k.Move, k.NextTab, k.Quit, k.Help, k.Export}
	}
	return []key.Binding{k.Move, k.Edit, k.Revert, k.RevertAll, k.Axis, k.NextTab, k.Quit, k.Help, k.Pause, k.Rate, k.Export}
}

func (m Model) helpView(h int) []string {
	out := []string{m.st.Title.Render("Keys"), ""}
	out = append(out, m.keyColumns(m.keys.FullHelp())...)
	out = append(out, "",
		"Flags in the Registers tab (the column headed *RS!x):",
		"  *  tuning knob            R  differs from the reset value",
		"  S  differs from the value at the start of this session",
		"  !  changed behind your back (the detail pane says who does that)",
		"  x  marked as a sweep axis",
		"Leaving restores the starting values unless you choose keep; so does a",
		"closed terminal (SIGHUP).")
	for i := range out {
		out[i] = cut(out[i], m.w)
	}
	return out
}

// keyColumns lays the bindings out in columns, two spaces apart, without
// the help bubble's truncation: every key of the session fits 80 columns
// (the help screen test checks it).
func (m Model) keyColumns(cols [][]key.Binding) []string {
	type cell struct{ k, d string }
	var grid [][]cell
	rows := 0
	var kw, dw []int
	for _, col := range cols {
		var cs []cell
		w1, w2 := 0, 0
		for _, b := range col {
			if !b.Enabled() {
				continue
			}
			h := b.Help()
			cs = append(cs, cell{h.Key, h.Desc})
			w1, w2 = max(w1, len(h.Key)), max(w2, len(h.Desc))
		}
		grid = append(grid, cs)
		kw, dw = append(kw, w1), append(dw, w2)
		rows = max(rows, len(cs))
	}
	var out []string
	for r := 0; r < rows; r++ {
		var b strings.Builder
		for c, cs := range grid {
			if c > 0 {
				b.WriteString("  ")
			}
			k, d := "", ""
			if r < len(cs) {
				k, d = cs[r].k, cs[r].d
			}
			b.WriteString(m.st.Help.FullKey.Render(fmt.Sprintf("%-*s", kw[c], k)) + " " + m.st.Help.FullDesc.Render(fmt.Sprintf("%-*s", dw[c], d)))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}
