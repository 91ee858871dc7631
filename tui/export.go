package tui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

func (m Model) openExport() (tea.Model, tea.Cmd) {
	if m.cfg.WriteFile == nil || m.cfg.DTS == nil {
		m.setErr("export is not available in this build")
		return m, nil
	}
	m.mode = modeExport
	_, _, m.expW = m.winnerSettings()
	m.remakeExport()
	m.in.Prompt = "file: "
	m.in.Placeholder = "file name"
	m.in.SetValue("citune-" + m.cfg.Target.Controller.Label + ".dtsi")
	m.in.CursorEnd()
	return m, m.in.Focus()
}

// remakeExport makes the export's text again while the dialog is open.
func (m *Model) remakeExport() {
	if m.mode == modeExport {
		m.expText, m.expNote = m.exportText()
	}
}

// exportText is the DeviceTree seam's fragment for the chosen source and
// its warning.
func (m *Model) exportText() (text, note string) {
	x := DTSExport{Winner: m.expW, Snapshot: snapshotOf(m.m, m.cur)}
	if m.expW {
		x.Results = m.sweep.results
	}
	t := m.cfg.Target
	role := m.role()
	header := []string{"citune: " + t.String() + ", " + string(role) + " role"}
	if role == "" { // BuildDTS then gives both roles' mechanisms
		header[0] = "citune: " + t.String() + ", role unknown (USBMODE.CM says neither host nor device)"
	}
	source := "current settings read from the controller"
	if m.expW {
		if ws, why, ok := m.winnerSettings(); ok {
			x.Settings, source = ws, why
		}
	}
	x.Role, x.Header = role, append(header, "source: "+source)
	return m.cfg.DTS.Text(x)
}

func (m *Model) exportView() []string {
	text, note := m.expText, m.expNote
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
	}
	if note != "" { // whole: the stand-in profile's name is at its end
		out = append(out, wrapStyled(m.st.Error, "note: "+note, m.w)...)
	}
	out = append(out,
		m.inputView(),
		cut("enter writes the file; esc cancels", m.w),
		m.st.Section.Render(fit("-- preview ", m.w)))
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, cut(strings.ReplaceAll(l, "\t", "    "), m.w))
	}
	return out // render cuts it to the body
}

// inputView renders the shared text input within the width.
func (s *shared) inputView() string {
	in := s.in
	in.SetWidth(max(5, s.w-len(in.Prompt)-1))
	return in.View()
}

// promptKey handles the export prompt.
func (m Model) promptKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.mode, m.expReplace = modeNormal, ""
		m.in.Blur()
		m.setStatus("cancelled")
		return m, nil
	case key.Matches(msg, k.Switch):
		if _, _, ok := m.winnerSettings(); ok {
			m.expW = !m.expW
			m.remakeExport()
		} else {
			m.setStatus("no sweep winner yet: exporting the current settings")
		}
		return m, nil
	case key.Matches(msg, k.Apply):
		val := strings.TrimSpace(m.in.Value())
		if val == "" {
			m.setErr("export: type a file name")
			return m, nil
		}
		text := m.expText // what the preview shows
		replace := val == m.expReplace
		m.mode, m.expReplace = modeNormal, ""
		m.in.Blur()
		m.setStatus("writing %s...", val)
		m.exports++
		return m, writeExport(m.cfg.WriteFile, val, text, replace)
	}
	var cmd tea.Cmd
	m.in, cmd = m.in.Update(msg)
	return m, cmd
}

// snapshotOf turns raw values by offset into a snapshot of m.
func snapshotOf(m *regs.Map, raw map[uint32]uint32) soc.Snapshot {
	var s soc.Snapshot
	for i := range m.Registers {
		r := &m.Registers[i]
		if v, ok := raw[r.Offset]; ok {
			s.Registers = append(s.Registers, soc.RegValue{Name: r.Name, Offset: r.Offset, Value: v})
		}
	}
	return s
}

// role is the controller's role: Config.Role, else as USBMODE.CM says now.
func (s *shared) role() regs.Role {
	if s.cfg.Role != "" {
		return s.cfg.Role
	}
	return s.cfg.Target.Role(snapshotOf(s.m, s.cur))
}

// winnerSettings are the sweep winner's values, commented with its win.
func (m *Model) winnerSettings() ([]DTSSetting, string, bool) {
	b, ok := m.sweep.best()
	if !ok {
		return nil, "", false
	}
	if rk := m.sweep.ranking; rk != nil {
		if rk.Verdict.Kind != rank.VerdictApply {
			return m.originalSettings()
		}
		// The verdict's recommendation, not the fastest point (which may
		// need a setting that cannot be made permanent).
		if i := slices.IndexFunc(m.sweep.points, func(p results.PointRecord) bool { return p.Point == rk.Verdict.Point && !p.Baseline }); i >= 0 {
			b = m.sweep.points[i]
		}
	}
	why := "sweep winner, " + strings.TrimPrefix(m.sweep.bestLine(), "best: ")
	var out []DTSSetting
	for _, a := range m.sweep.plan.Axes {
		if v := b.Settings[a.Name]; v != "" {
			out = append(out, DTSSetting{Name: a.Name, Value: v, Comment: "sweep winner " + m.versusOf(b)})
		}
	}
	return out, why, true
}

// originalSettings are the start values of the swept registers, for an
// export after the original settings won (as `citune dts` writes them).
func (m *Model) originalSettings() ([]DTSSetting, string, bool) {
	why := "the original settings: " + m.sweep.bestLine()
	var out []DTSSetting
	for _, a := range m.sweep.plan.Axes {
		if a.Ref.Reg == nil {
			continue // a file or module parameter: its start is not on this screen
		}
		v := strconv.FormatUint(uint64(m.startValue(a.Ref)), 10)
		out = append(out, DTSSetting{Name: a.Name, Value: v, Comment: "original value: every point swept was significantly slower"})
	}
	return out, why, len(out) > 0
}

// versusOf is how the point compares with the baseline, if known.
func (m *Model) versusOf(p results.PointRecord) string {
	if rk := m.sweep.ranking; rk != nil {
		// The finished sweep's comparison, the verdict's.
		if r := rk.Find(p.Point); r != nil && r.VsBaseline != nil {
			return r.VsBaseline.String()
		}
	}
	if v := versus(p); v != "" {
		return v
	}
	return "(" + m.sweep.pointRate(p) + ")"
}
