package tui

import (
	"fmt"
	"slices"
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

// maxStatusLines is how many wrapped lines a long status may take from
// the body; a longer one ends "... (? shows all)" (the help screen has it).
const maxStatusLines = 3

// bodyH is the number of lines between the header and the status.
func (m *Model) bodyH() int {
	return m.h - 2 - len(m.statusLines())
}

// bodyH is the body's height outside the help screen.
func (s *shared) bodyH() int {
	return s.h - 2 - len(s.statusLines())
}

// render draws exactly h lines of at most w columns.
func (m *Model) render() string {
	bodyH := m.bodyH()
	var body []string
	switch m.mode {
	case modeQuit, modeClosing:
		body = m.quitView()
	case modeHelp:
		body = m.helpView()
	case modeExport:
		body = m.exportView()
	default:
		body = m.active().View(bodyH)
	}
	body = padLines(body, bodyH)
	lines := make([]string, 0, m.h)
	lines = append(lines, m.headerView())
	lines = append(lines, body...)
	lines = append(lines, m.statusView()...)
	lines = append(lines, m.helpLine(m.shortHelp()))
	return strings.Join(lines, "\n")
}

func (m *Model) headerView() string {
	t := m.cfg.Target
	kind := "/dev/mem"
	switch t.Kind {
	case soc.KindSim:
		kind = "SIMULATED"
	case soc.KindFile:
		kind = "image"
	}
	// Narrow screens lose the refresh rate, the base, the profile and the
	// controller; what is driven (SIMULATED, image, /dev/mem) goes last.
	lefts := []string{
		fmt.Sprintf("%s %s %#x %s", t.Profile.Name, t.Controller.Label, t.Controller.Base, kind),
		fmt.Sprintf("%s %s %s", t.Profile.Name, t.Controller.Label, kind),
		fmt.Sprintf("%s %s", t.Controller.Label, kind),
		kind,
	}
	var tabs []string
	for i := tab(0); i < numTabs; i++ {
		name := fmt.Sprintf("%d %s", i+1, tabNames[i])
		if i == m.tab {
			tabs = append(tabs, m.st.TabActive.Render("["+name+"]"))
		} else {
			tabs = append(tabs, m.st.Tab.Render(" "+name+" "))
		}
	}
	right := "live " + m.interval.String()
	if m.paused {
		right = "PAUSED"
	}
	if m.probing {
		right = "PROBE " + right
	}
	if m.sweeping {
		right = "SWEEP " + right
	}
	tabW := len(strings.Join(tabNames[:], "")) + 5*int(numTabs) - 1 // "[1 Name]" and a space between
	room := m.w - tabW - 2 - len(right) - 1
	if room < len(lefts[1]) {
		right = ""
		room = m.w - tabW - 2
	}
	left := lefts[len(lefts)-1]
	for _, l := range lefts {
		if len(l) <= room {
			left = l
			break
		}
	}
	if right != "" {
		right = " " + right
	}
	return m.st.Header.Render(fit(left, room)) + "  " + strings.Join(tabs, " ") + right
}

// helpLine renders the bindings that fit in one line; when some do not,
// quit and "? more" stand last, so the line is never cut and says where
// the other keys are.
func (m *Model) helpLine(bs []key.Binding) string {
	var on []key.Binding
	for _, k := range bs {
		if k.Enabled() {
			on = append(on, k)
		}
	}
	width := func(ks []key.Binding) int {
		n := 0
		for i, k := range ks {
			n += len(k.Help().Key) + 1 + len(k.Help().Desc) + 2*min(i, 1)
		}
		return n
	}
	shown := on
	if width(on) > m.w {
		more := key.NewBinding(key.WithKeys(m.keys.Help.Keys()...), key.WithHelp(m.keys.Help.Help().Key, "more"))
		var tail []key.Binding // pinned last: quit, then the help key
		var rest []key.Binding
		for _, k := range on {
			switch k.Help() {
			case m.keys.Quit.Help():
				tail = append([]key.Binding{k}, tail...)
			case m.keys.Help.Help():
			default:
				rest = append(rest, k)
			}
		}
		tail = append(tail, more)
		shown = nil
		for _, k := range rest {
			if width(append(append(slices.Clone(shown), k), tail...)) > m.w {
				break
			}
			shown = append(shown, k)
		}
		shown = append(shown, tail...)
	}
	return m.help.ShortHelpView(shown)
}

// statusLines is the status wrapped to the width (maxStatusLines at most).
func (m *Model) statusLines() []string {
	if m.mode == modeHelp {
		return []string{""} // the help screen shows the last message itself
	}
	return m.shared.statusLines()
}

// statusLines is the status wrapped outside the help screen.
func (s *shared) statusLines() []string {
	lines := wrap(s.status, s.w, "  ")
	switch {
	case len(lines) == 0:
		return []string{""}
	case len(lines) > maxStatusLines:
		const more = " ... (? shows all)"
		lines = lines[:maxStatusLines]
		last := strings.Fields(lines[maxStatusLines-1])
		for len(last) > 1 && len("  "+strings.Join(last, " ")+more) > s.w {
			last = last[:len(last)-1]
		}
		lines[maxStatusLines-1] = cut("  "+strings.Join(last, " ")+more, s.w)
	}
	return lines
}

func (m *Model) statusView() []string {
	lines := m.statusLines()
	st := m.st.Status
	if m.statusErr {
		st = m.st.Error
	}
	for i, l := range lines {
		lines[i] = st.Render(fit(l, m.w))
	}
	return lines
}

// shortHelp is the help line for what is on screen.
func (m *Model) shortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeQuit:
		return []key.Binding{k.RestoreQuit, k.KeepQuit, k.Cancel}
	case modeClosing:
		return nil
	case modeHelp:
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "back"))}
	case modeExport:
		return []key.Binding{k.Apply, k.Switch, k.Cancel}
	}
	return m.active().ShortHelp()
}

// helpView is the ? screen: the active tab's keys, every tab's and the
// legend, cut at the bottom on small screens a whole paragraph at a time
// (half a list of flags would read as all of them).
func (m *Model) helpView() []string {
	out := []string{m.st.Title.Render("Keys of the " + tabNames[m.tab] + " tab")}
	out = append(out, m.keyColumns(m.active().FullHelp())...)
	out = append(out, "", m.st.Title.Render("Keys of every tab"))
	out = append(out, m.keyColumns(m.keys.FullHelp())...)
	legend := [][]string{{
		"Flags in the Registers tab (the column headed *RS!x):",
		"  *  tuning knob            R  differs from the reset value",
		"  S  differs from the value at the start of this session",
		"  !  changed behind your back (the detail pane says who does that)",
		"  x  marked as a sweep axis",
	}, {
		"Leaving restores the starting values unless you choose keep; so does a",
		"closed terminal (SIGHUP).",
	}}
	if m.status != "" {
		legend = append(legend, []string{"Last message: " + m.status})
	}
	out = append(out, "")
	for _, para := range legend {
		var lines []string
		for _, l := range para {
			lines = append(lines, wrapLine(l, m.w)...)
		}
		if len(out)+len(lines) > m.bodyH() {
			break
		}
		out = append(out, lines...)
	}
	return out
}

// keyColumns lays the bindings out in columns with the help bubble's full
// view; columns that do not fit beside the others start a band below (the
// bubble would cut them), so every key shows at any width.
func (m *Model) keyColumns(cols [][]key.Binding) []string {
	width := func(col []key.Binding) int {
		kw, dw := 0, 0
		for _, b := range col {
			if b.Enabled() {
				kw, dw = max(kw, len(b.Help().Key)), max(dw, len(b.Help().Desc))
			}
		}
		return kw + 1 + dw
	}
	var out []string
	for len(cols) > 0 {
		n, w := 1, width(cols[0])
		for n < len(cols) && w+2+width(cols[n]) <= m.w {
			w += 2 + width(cols[n])
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		for _, l := range strings.Split(m.help.FullHelpView(cols[:n]), "\n") {
			out = append(out, strings.TrimRight(l, " "))
		}
		cols = cols[n:]
	}
	return out
}
