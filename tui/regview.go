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

type regsTab struct {
	*shared
	own      regsKeys
	rows     []row
	sel, top int
	prev     map[uint32]uint32 // the read before
	reads    int
	desired  map[string]uint32 // what the user set, by ref key
	drifts   map[string]drift
	ed       *editor // the open editor, nil when none
}

// ShortHelp is the tab's help line.
func (rt *regsTab) ShortHelp() []key.Binding {
	k, o := rt.keys, rt.own
	if rt.ed != nil {
		return []key.Binding{k.Move, k.Apply, k.Cancel}
	}
	return []key.Binding{k.Move, o.Edit, o.Revert, o.RevertAll, o.Axis, k.NextTab, k.Quit, k.Help, k.Pause, k.Rate, k.Export}
}

// FullHelp is the tab's keys on the ? screen.
func (rt *regsTab) FullHelp() [][]key.Binding {
	o := rt.own
	return [][]key.Binding{{o.PageUp, o.PageDown, o.Top, o.Bottom}, {o.Edit, o.Revert, o.RevertAll, o.Axis}}
}

// nextSelectable finds the first selectable row from i in direction d.
func (rt *regsTab) nextSelectable(i, d int) int {
	for ; i >= 0 && i < len(rt.rows); i += d {
		if rt.rows[i].kind != rowSection {
			return i
		}
	}
	return rt.sel
}

// layout of the register tab: list rows and detail lines.
func (rt *regsTab) regsLayout(h int) (listH, detailH int) {
	detailH = 6
	if h >= 30 {
		detailH = 9
	}
	listH = max(3, h-1-detailH)
	return listH, detailH
}

func (rt *regsTab) scrollToSel(bodyH int) {
	listH, _ := rt.regsLayout(bodyH)
	rt.top = max(min(rt.top, rt.sel), rt.sel-listH+1)
	if rt.top > 0 && rt.rows[rt.top-1].kind == rowSection && rt.sel-rt.top+1 < listH {
		rt.top-- // keep the section title in view
	}
	rt.top = max(0, min(rt.top, len(rt.rows)-listH))
}

// flags renders the five flag columns of a row: * R S ! x.
func (rt *regsTab) flags(r row) string {
	b := []byte(".....")
	ref := r.ref()
	v := valueOf(ref, rt.cur[r.reg.Offset])
	sv, haveStart := rt.cfg.Start.Value(r.reg.Name)
	if r.field != nil && r.field.Knob || r.field == nil && r.reg.HasKnob() {
		b[0] = '*'
	}
	if r.reg.ResetKnown && v != valueOf(ref, r.reg.Reset) {
		b[1] = 'R'
	}
	if haveStart && v != valueOf(ref, sv) {
		b[2] = 'S'
	}
	key := refKey(ref)
	if _, ok := rt.drifts[key]; ok {
		b[3] = '!'
	}
	for k := range rt.drifts { // a register's row shows its fields' drifts
		if r.field == nil && strings.HasPrefix(k, key+".") {
			b[3] = '!'
		}
	}
	if hasRef(rt.axes, ref) {
		b[4] = 'x'
	}
	return string(b)
}

// View draws the register list and the detail pane.
func (rt *regsTab) View(h int) []string {
	if rt.ed != nil {
		return rt.editView(h)
	}
	listH, detailH := rt.regsLayout(h)
	nameW, bitsW := 24, 5
	if rt.w >= 100 {
		nameW = 28
	}
	valW := max(8, rt.w-2-5-1-nameW-1-bitsW-1)
	out := []string{rt.st.ColHead.Render(fit(fmt.Sprintf("  *RS!x %s %s %s", fit("name", nameW), fit("bits", bitsW), "value"), rt.w))}
	top := max(rt.top, rt.sel-listH+1) // a two-line status took a row
	for i := top; i < len(rt.rows) && i < top+listH; i++ {
		r := rt.rows[i]
		if r.kind == rowSection {
			t := "-- " + r.title + " "
			out = append(out, rt.st.Section.Render(t+strings.Repeat("-", max(0, rt.w-len(t)))))
			continue
		}
		cursor := "  "
		if i == rt.sel {
			cursor = "> "
		}
		var name, bits, val string
		raw := rt.cur[r.reg.Offset]
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
		line := cursor + rt.flags(r) + " " + fit(name, nameW) + " " + fit(bits, bitsW) + " " + fit(val, valW)
		line = fit(line, rt.w)
		switch {
		case i == rt.sel:
			line = rt.st.Cursor.Render(line)
		case rt.flags(r)[3] == '!':
			line = rt.st.Drift.Render(line)
		case r.kind == rowField && r.field.Knob:
			line = rt.st.Knob.Render(line)
		case r.kind == rowReg:
			line = rt.st.Section.Render(line)
		}
		out = append(out, line)
	}
	out = padLines(out, listH+1)
	return append(out, rt.detailView(detailH)...)
}

func (rt *regsTab) detailView(h int) []string {
	if rt.sel < 0 || rt.sel >= len(rt.rows) {
		return nil
	}
	r := rt.rows[rt.sel]
	if r.kind == rowReg {
		return padLines(rt.regDetail(r.reg), h)
	}
	return padLines(rt.fieldDetail(r), h)
}

// regDetail describes a register: its values and what the driver does.
func (rt *regsTab) regDetail(reg *regs.Register) []string {
	raw := rt.cur[reg.Offset]
	sv, haveStart := rt.cfg.Start.Value(reg.Name)
	title := fmt.Sprintf("-- %s at offset %#03x ", reg.Name, reg.Offset)
	lines := []string{rt.st.Section.Render(title + strings.Repeat("-", max(0, rt.w-len(title))))}
	add := func(s string) { lines = append(lines, wrap(s, rt.w, "  ")...) }
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

// fieldDetail describes a field: values, drift, legal values, persistence.
func (rt *regsTab) fieldDetail(r row) []string {
	reg := r.reg
	raw := rt.cur[reg.Offset]
	sv, haveStart := rt.cfg.Start.Value(reg.Name)
	f := r.field
	ref := r.ref()
	kind := f.Access.String()
	if f.Knob {
		kind += ", tuning knob"
	}
	title := fmt.Sprintf("-- %s  bits %s  %s ", ref, f.Bits(), kind)
	lines := []string{rt.st.Section.Render(fit(title+strings.Repeat("-", max(0, rt.w-len(title))), rt.w))}
	add := func(s string) { lines = append(lines, wrap(s, rt.w, "  ")...) }
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
	if d, ok := rt.drifts[refKey(ref)]; ok {
		add(fmt.Sprintf("! CHANGED BEHIND YOUR BACK: was %d, reads %d. %s", d.want, d.got, rt.why(ref)))
	}
	if cs, _ := choicesOf(f); len(cs) > 0 {
		add(f.Desc + ".")
	} else {
		add(f.Desc + ". Legal: " + regs.Legal(f) + ".")
	}
	if k := rt.cfg.Target.Profile.Knob(ref); k != nil {
		var p []string
		if k.DT != "" {
			p = append(p, fmt.Sprintf("DT %s (%s role)", k.DT, soc.JoinRoles(k.DTRoles, "/")))
		}
		if k.Param != "" {
			p = append(p, fmt.Sprintf("kernel parameter %s (%s role; module-wide, it changes %s)", k.Param, soc.JoinRoles(k.ParamRoles, "/"),
				soc.ParamUsersString(soc.ParamScope(nil, rt.cfg.Target.Profile, k.Param))))
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

func (rt *regsTab) Update(raw tea.Msg) tea.Cmd {
	msg, ok := raw.(tea.KeyPressMsg)
	switch {
	case rt.ed != nil && ok:
		return rt.editKey(msg)
	case rt.ed != nil && rt.ed.onInput():
		var cmd tea.Cmd
		rt.ed.in, cmd = rt.ed.in.Update(raw)
		return cmd
	case !ok:
		return nil
	}
	k, o := rt.keys, rt.own
	listH, _ := rt.regsLayout(rt.bodyH())
	switch {
	case key.Matches(msg, k.Up):
		rt.sel = rt.nextSelectable(rt.sel-1, -1)
	case key.Matches(msg, k.Down):
		rt.sel = rt.nextSelectable(rt.sel+1, 1)
	case key.Matches(msg, o.PageUp):
		rt.sel = rt.nextSelectable(max(0, rt.sel-listH), 1)
	case key.Matches(msg, o.PageDown):
		rt.sel = rt.nextSelectable(min(len(rt.rows)-1, rt.sel+listH), -1)
	case key.Matches(msg, o.Top):
		rt.sel = rt.nextSelectable(0, 1)
	case key.Matches(msg, o.Bottom):
		rt.sel = rt.nextSelectable(len(rt.rows)-1, -1)
	case key.Matches(msg, o.Edit):
		return rt.openEditor()
	case key.Matches(msg, o.Revert):
		return rt.revertSelected()
	case key.Matches(msg, o.RevertAll):
		if reason := rt.busyReason(); reason != "" {
			rt.setErr("%s", reason)
			return nil
		}
		if len(rt.cfg.Undo.Touched()) == 0 {
			rt.setStatus("revert all: this session changed nothing")
			return nil
		}
		rt.writing = true
		rt.wgen++
		rt.setStatus("reverting every changed field to its starting value...")
		return revert(rt.cfg.Undo, nil, "revert all")
	case key.Matches(msg, o.Axis):
		rt.toggleAxis()
	}
	rt.scrollToSel(rt.bodyH())
	return nil
}

// busyReason says why registers may not be written now ("" when they may).
func (s *shared) busyReason() string {
	switch {
	case s.writing:
		return "a write is in flight; try again in a moment"
	case s.sweeping:
		return "a sweep is running and owns the registers until it ends (s on the Sweep tab stops it)"
	case s.probing:
		return "a probe is running; changing settings now would spoil the run (s on the Probe tab stops it)"
	}
	return ""
}

func (rt *regsTab) revertSelected() tea.Cmd {
	r := rt.rows[rt.sel]
	if reason := rt.busyReason(); reason != "" {
		rt.setErr("%s", reason)
		return nil
	}
	if r.kind == rowReg && len(r.reg.Fields) > 0 {
		rt.setErr("revert: pick a field of %s (U reverts everything)", r.reg.Name)
		return nil
	}
	ref := r.ref()
	if !hasRef(rt.cfg.Undo.Touched(), ref) {
		rt.setStatus("revert: this session did not change %s", ref)
		return nil
	}
	rt.writing = true
	rt.wgen++
	rt.setStatus("reverting %s...", ref)
	return revert(rt.cfg.Undo, []regs.Ref{ref}, "revert "+ref.String())
}

func (rt *regsTab) toggleAxis() {
	r := rt.rows[rt.sel]
	if rt.sweeping { // as e and l on the Sweep tab: the plan is the running sweep's
		rt.setErr("the plan cannot change while the sweep runs (s stops it)")
		return
	}
	if r.kind != rowField {
		rt.setErr("sweep axes are fields: pick a field")
		return
	}
	ref := r.ref()
	if _, err := rt.m.ParseChange(fmt.Sprintf("%s=%d", ref, r.field.Get(rt.cur[r.reg.Offset]))); err != nil {
		rt.setErr("%s cannot be swept: %v", ref, err)
		return
	}
	for i, a := range rt.axes {
		if sameRef(a, ref) {
			rt.axes = append(rt.axes[:i:i], rt.axes[i+1:]...)
			rt.setStatus("%s is no longer a sweep axis", ref)
			return
		}
	}
	rt.axes = append(rt.axes, ref)
	rt.setStatus("%s added to the sweep plan (%d axes); see the Sweep tab", ref, len(rt.axes))
}
