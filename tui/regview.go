package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

type rowKind int

const (
	rowSection rowKind = iota
	rowReg
	rowField
)

// row is one line of the register list.
type row struct {
	kind  rowKind
	title string
	reg   *regs.Register
	field *regs.Field
	knobs bool // in the knob section (named REG.FIELD)
}

func (r row) ref() regs.Ref { return regs.Ref{Reg: r.reg, Field: r.field} }

// buildRows lists the knobs first, then every register with its fields.
func buildRows(m *regs.Map) []row {
	rows := []row{{kind: rowSection, title: "tuning knobs"}}
	for i := range m.Registers {
		r := &m.Registers[i]
		for j := range r.Fields {
			if r.Fields[j].Knob {
				rows = append(rows, row{kind: rowField, reg: r, field: &r.Fields[j], knobs: true})
			}
		}
	}
	rows = append(rows, row{kind: rowSection, title: "all registers"})
	for i := range m.Registers {
		r := &m.Registers[i]
		rows = append(rows, row{kind: rowReg, reg: r})
		for j := range r.Fields {
			rows = append(rows, row{kind: rowField, reg: r, field: &r.Fields[j]})
		}
	}
	return rows
}

// nextSelectable finds the first selectable row from i in direction d.
func (m Model) nextSelectable(i, d int) int {
	for ; i >= 0 && i < len(m.rows); i += d {
		if m.rows[i].kind != rowSection {
			return i
		}
	}
	return m.sel
}

// layout of the register tab: list rows and detail lines.
func (m Model) regsLayout(h int) (listH, detailH int) {
	detailH = 6
	if h >= 30 {
		detailH = 9
	}
	listH = max(3, h-1-detailH)
	return listH, detailH
}

func (m *Model) scrollToSel() {
	listH, _ := m.regsLayout(m.bodyH())
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+listH {
		m.top = m.sel - listH + 1
	}
	if m.top > 0 && m.rows[m.top-1].kind == rowSection && m.sel-m.top+1 < listH {
		m.top-- // keep the section title in view
	}
	m.top = max(0, min(m.top, len(m.rows)-listH))
}

func (m Model) columns() (nameW, bitsW int) {
	if m.w >= 100 {
		return 28, 5
	}
	return 24, 5
}

// flags renders the five flag columns of a row: * R S ! x.
func (m Model) flags(r row) string {
	b := []byte(".....")
	raw := m.cur[r.reg.Offset]
	sv, haveStart := m.cfg.Start.Value(r.reg.Name)
	switch r.kind {
	case rowField:
		f := r.field
		if f.Knob {
			b[0] = '*'
		}
		if r.reg.ResetKnown && f.Get(raw) != f.Get(r.reg.Reset) {
			b[1] = 'R'
		}
		if haveStart && f.Get(raw) != f.Get(sv) {
			b[2] = 'S'
		}
		if _, ok := m.drifts[refKey(r.ref())]; ok {
			b[3] = '!'
		}
		if m.isAxis(r.ref()) {
			b[4] = 'x'
		}
	case rowReg:
		if r.reg.HasKnob() {
			b[0] = '*'
		}
		if r.reg.ResetKnown && raw != r.reg.Reset {
			b[1] = 'R'
		}
		if haveStart && raw != sv {
			b[2] = 'S'
		}
		for k := range m.drifts {
			if strings.HasPrefix(k, strings.ToUpper(r.reg.Name)+".") {
				b[3] = '!'
			}
		}
	}
	return string(b)
}

func (m Model) isAxis(ref regs.Ref) bool {
	for _, a := range m.axes {
		if sameRef(a, ref) {
			return true
		}
	}
	return false
}

// regsView draws the register list and the detail pane.
func (m Model) regsView(h int) []string {
	listH, detailH := m.regsLayout(h)
	nameW, bitsW := m.columns()
	valW := max(8, m.w-2-5-1-nameW-1-bitsW-1)
	out := []string{m.st.ColHead.Render(fit(fmt.Sprintf("  *RS!x %s %s %s", fit("name", nameW), fit("bits", bitsW), "value"), m.w))}
	top := m.top
	if m.sel >= top+listH { // a two-line status took a row
		top = m.sel - listH + 1
	}
	for i := top; i < len(m.rows) && i < top+listH; i++ {
		r := m.rows[i]
		if r.kind == rowSection {
			t := "-- " + r.title + " "
			out = append(out, m.st.Section.Render(t+strings.Repeat("-", max(0, m.w-len(t)))))
			continue
		}
		cursor := "  "
		if i == m.sel {
			cursor = "> "
		}
		var name, bits, val string
		raw := m.cur[r.reg.Offset]
		if r.kind == rowReg {
			name, bits = r.reg.Name, fmt.Sprintf("%03x", r.reg.Offset)
			d := r.reg.Decode(raw)
			val = regs.Hex(raw)
			if d.Unknown != 0 {
				val += " unknown bits " + regs.Hex(d.Unknown)
			}
		} else {
			fv := r.reg.Decode(raw)
			for _, x := range fv.Fields {
				if x.Field == r.field {
					val = x.FormatValue()
					if x.Illegal {
						val += " (not legal)"
					}
				}
			}
			name, bits = "  "+r.field.Name, r.field.Bits()
			if r.knobs {
				name = r.reg.Name + "." + r.field.Name
			}
		}
		line := cursor + m.flags(r) + " " + fit(name, nameW) + " " + fit(bits, bitsW) + " " + fit(val, valW)
		line = fit(line, m.w)
		switch {
		case i == m.sel:
			line = m.st.Cursor.Render(line)
		case m.flags(r)[3] == '!':
			line = m.st.Drift.Render(line)
		case r.kind == rowField && r.field.Knob:
			line = m.st.Knob.Render(line)
		case r.kind == rowReg:
			line = m.st.Section.Render(line)
		}
		out = append(out, line)
	}
	out = padLines(out, m.w, listH+1)
	return append(out, m.detailView(detailH)...)
}

// detailView explains the selected row.
func (m Model) detailView(h int) []string {
	if m.sel < 0 || m.sel >= len(m.rows) {
		return nil
	}
	r := m.rows[m.sel]
	if r.kind == rowReg {
		return padLines(m.regDetail(r.reg), m.w, h)[:h]
	}
	return padLines(m.fieldDetail(r), m.w, h)[:h]
}

// regDetail describes a whole register: its values now, at start and at
// reset, and what the driver does with it.
func (m Model) regDetail(reg *regs.Register) []string {
	raw := m.cur[reg.Offset]
	sv, haveStart := m.cfg.Start.Value(reg.Name)
	var lines []string
	add := func(s string) { lines = append(lines, wrap(s, m.w, "  ")...) }
	title := fmt.Sprintf("-- %s at offset %#03x ", reg.Name, reg.Offset)
	lines = append(lines, m.st.Section.Render(title+strings.Repeat("-", max(0, m.w-len(title)))))
	s := "now " + regs.Hex(raw)
	if haveStart {
		s += ", at start " + regs.Hex(sv)
	}
	if reg.ResetKnown {
		s += ", reset " + regs.Hex(reg.Reset)
	} else {
		s += ", reset unknown"
	}
	if reg.ReadOnly {
		s += "; read-only for citune"
	}
	add(s)
	add(reg.Desc)
	if reg.Note != "" {
		add("Driver: " + reg.Note)
	}
	return lines
}

// fieldDetail describes a field: its values, whether it drifted, its
// legal values and how to persist it.
func (m Model) fieldDetail(r row) []string {
	reg := r.reg
	raw := m.cur[reg.Offset]
	sv, haveStart := m.cfg.Start.Value(reg.Name)
	var lines []string
	add := func(s string) { lines = append(lines, wrap(s, m.w, "  ")...) }
	f := r.field
	ref := r.ref()
	kind := f.Access.String()
	if f.Knob {
		kind += ", tuning knob"
	}
	title := fmt.Sprintf("-- %s  bits %s  %s ", ref, f.Bits(), kind)
	lines = append(lines, m.st.Section.Render(fit(title+strings.Repeat("-", max(0, m.w-len(title))), m.w)))
	now := f.Get(raw)
	s := "now " + valueName(f, now)
	var diff []string
	if haveStart {
		s += " | start " + valueName(f, f.Get(sv))
		if f.Get(sv) != now {
			diff = append(diff, "start")
		}
	}
	if reg.ResetKnown {
		s += " | reset " + valueName(f, f.Get(reg.Reset))
		if f.Get(reg.Reset) != now {
			diff = append(diff, "reset")
		}
	} else {
		s += " | reset unknown"
	}
	if len(diff) > 0 {
		s += " | differs from " + strings.Join(diff, " and ")
	}
	add(s)
	if d, ok := m.drifts[refKey(ref)]; ok {
		add(fmt.Sprintf("! CHANGED BEHIND YOUR BACK: was %d, reads %d. %s", d.want, d.got, m.why(ref)))
	}
	if cs, _ := choicesOf(f); len(cs) > 0 {
		add(f.Desc + ".")
	} else {
		add(f.Desc + ". Legal: " + regs.Legal(f) + ".")
	}
	if k := m.cfg.Target.Profile.Knob(ref); k != nil {
		var p []string
		if k.DT != "" {
			p = append(p, fmt.Sprintf("DT %s (%s role)", k.DT, soc.JoinRoles(k.DTRoles, "/")))
		}
		if k.Param != "" {
			p = append(p, fmt.Sprintf("kernel parameter %s (%s role; module-wide, it changes %s)", k.Param, soc.JoinRoles(k.ParamRoles, "/"),
				soc.ParamUsersString(soc.ParamScope(nil, m.cfg.Target.Profile, k.Param))))
		}
		if k.None != "" {
			p = append(p, "none: "+k.None)
		}
		add("Persist: " + strings.Join(p, "; "))
		if k.Driver != "" {
			add("Driver: " + k.Driver)
		}
	} else if reg.Note != "" {
		add("Driver: " + reg.Note)
	}
	return lines
}

// valueName renders "1 (UF1)" or "5".
func valueName(f *regs.Field, v uint32) string {
	if e := f.Enum(v); e != nil && e.Name != "" {
		return fmt.Sprintf("%d (%s)", v, e.Name)
	}
	return fmt.Sprint(v)
}

func (m Model) regsKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	listH, _ := m.regsLayout(m.bodyH())
	switch {
	case key.Matches(msg, k.Up):
		m.sel = m.nextSelectable(m.sel-1, -1)
	case key.Matches(msg, k.Down):
		m.sel = m.nextSelectable(m.sel+1, 1)
	case key.Matches(msg, k.PageUp):
		m.sel = m.nextSelectable(max(0, m.sel-listH), 1)
	case key.Matches(msg, k.PageDown):
		m.sel = m.nextSelectable(min(len(m.rows)-1, m.sel+listH), -1)
	case key.Matches(msg, k.Top):
		m.sel = m.nextSelectable(0, 1)
	case key.Matches(msg, k.Bottom):
		m.sel = m.nextSelectable(len(m.rows)-1, -1)
	case key.Matches(msg, k.Edit):
		return m.openEditor()
	case key.Matches(msg, k.Revert):
		return m.revertSelected()
	case key.Matches(msg, k.RevertAll):
		if reason := m.busyReason(); reason != "" {
			m.setErr("%s", reason)
			return m, nil
		}
		if len(m.cfg.Undo.Touched()) == 0 {
			m.setStatus("revert all: this session changed nothing")
			return m, nil
		}
		m.writing = true
		m.wgen++
		m.setStatus("reverting every changed field to its starting value...")
		return m, revert(m.cfg.Undo, nil, "revert all")
	case key.Matches(msg, k.Axis):
		m.toggleAxis()
	}
	m.scrollToSel()
	return m, nil
}

// busyReason says why registers may not be written now ("" when they may).
func (m Model) busyReason() string {
	switch {
	case m.writing:
		return "a write is in flight; try again in a moment"
	case m.sweeping:
		return "a sweep is running and owns the registers until it ends (s on the Sweep tab stops it)"
	case m.probing:
		return "a probe is running; changing settings now would spoil the run (s on the Probe tab stops it)"
	}
	return ""
}

func (m Model) revertSelected() (tea.Model, tea.Cmd) {
	r := m.rows[m.sel]
	if reason := m.busyReason(); reason != "" {
		m.setErr("%s", reason)
		return m, nil
	}
	if r.kind == rowReg && len(r.reg.Fields) > 0 {
		m.setErr("revert: pick a field of %s (U reverts everything)", r.reg.Name)
		return m, nil
	}
	ref := r.ref()
	touched := false
	for _, t := range m.cfg.Undo.Touched() {
		if sameRef(t, ref) {
			touched = true
		}
	}
	if !touched {
		m.setStatus("revert: this session did not change %s", ref)
		return m, nil
	}
	m.writing = true
	m.wgen++
	m.setStatus("reverting %s...", ref)
	return m, revert(m.cfg.Undo, []regs.Ref{ref}, "revert "+ref.String())
}

// toggleAxis marks or unmarks the selected field as a sweep axis and
// rebuilds the on-screen plan.
func (m *Model) toggleAxis() {
	r := m.rows[m.sel]
	if r.kind != rowField {
		m.setErr("sweep axes are fields: pick a field")
		return
	}
	ref := r.ref()
	if _, err := m.m.ParseChange(fmt.Sprintf("%s=%d", ref, r.field.Get(m.cur[r.reg.Offset]))); err != nil {
		m.setErr("%s cannot be swept: %v", ref, err)
		return
	}
	for i, a := range m.axes {
		if sameRef(a, ref) {
			m.axes = append(m.axes[:i:i], m.axes[i+1:]...)
			m.setStatus("%s is no longer a sweep axis", ref)
			m.sweep.setPlanText(m.planFromAxes(), m.m)
			return
		}
	}
	m.axes = append(m.axes, ref)
	m.sweep.setPlanText(m.planFromAxes(), m.m)
	m.setStatus("%s added to the sweep plan (%d axes); see the Sweep tab", ref, len(m.axes))
}
