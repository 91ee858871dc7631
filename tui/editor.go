package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
)

// choice is one value offered by the editor.
type choice struct {
	v        uint32
	name     string
	meaning  string
	reserved bool
}

// editor picks a value for one field (or a whole register without fields).
type editor struct {
	ref     regs.Ref
	choices []choice
	other   bool // a free "other value" row follows the choices
	sel     int
	top     int
	in      textinput.Model
	err     string
}

// onInput reports whether keys go to the text input.
func (e editor) onInput() bool { return e.other && e.sel == len(e.choices) }

// choicesOf lists the values offered for f: its named values, or off/on
// for a bare one-bit field. other is set when values outside the list are
// legal too.
func choicesOf(f *regs.Field) (cs []choice, other bool) {
	for _, e := range f.Values {
		cs = append(cs, choice{v: e.Value, name: e.Name, meaning: e.Meaning, reserved: e.Reserved})
	}
	if len(cs) == 0 && f.Width == 1 {
		cs = []choice{{v: 0, name: "off"}, {v: 1, name: "on"}}
	}
	if f.HasRange && len(cs) == 0 && f.Max-f.Min < 16 {
		for v := f.Min; v <= f.Max; v++ {
			cs = append(cs, choice{v: v})
		}
	}
	full := uint64(len(f.Values)) == uint64(f.WidthMax())+1
	other = !f.Strict && !full && !(f.Width == 1) && !(f.HasRange && f.Max-f.Min < 16)
	return cs, other
}

// openEditor opens the editor on the selected row after checking, like
// the CLI, that the field may be written at all.
func (m Model) openEditor() (tea.Model, tea.Cmd) {
	r := m.regs.rows[m.regs.sel]
	if r.kind == rowReg && len(r.reg.Fields) > 0 {
		m.setErr("pick a field of %s to edit (the rows below it)", r.reg.Name)
		return m, nil
	}
	if reason := m.busyReason(); reason != "" {
		m.setErr("%s", reason)
		return m, nil
	}
	ref := r.ref()
	raw := m.cur[r.reg.Offset]
	cur := raw
	if r.field != nil {
		cur = r.field.Get(raw)
	}
	// The current value proves the field is writable at all (RO fields,
	// read-only registers and never-set fields are refused here).
	if _, err := m.m.ParseChange(fmt.Sprintf("%s=%d", ref, cur)); err != nil {
		m.setErr("%v", err)
		return m, nil
	}
	e := editor{ref: ref, in: m.in}
	if r.field != nil {
		e.choices, e.other = choicesOf(r.field)
	} else {
		e.other = true
	}
	e.sel = len(e.choices)
	for i, c := range e.choices {
		if c.v == cur {
			e.sel = i
		}
	}
	if e.sel == len(e.choices) && !e.other {
		e.sel = 0
	}
	e.in.Prompt = "other value: "
	e.in.Placeholder = "number (0x.., 0b..) or name"
	if r.field == nil {
		e.in.SetValue(regs.Hex(cur))
	} else {
		e.in.SetValue(fmt.Sprint(cur))
	}
	e.in.CursorEnd()
	cmd := e.in.Focus()
	m.ed = e
	m.mode = modeEdit
	m.setStatus("editing %s: pick a value; nothing is written before enter", ref)
	return m, cmd
}

func (m Model) editKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	e := &m.ed
	n := len(e.choices)
	if e.other {
		n++
	}
	switch {
	case key.Matches(msg, k.Cancel):
		m.mode = modeNormal
		m.setStatus("edit cancelled; nothing written")
		return m, nil
	case key.Matches(msg, k.Apply):
		return m.applyEdit()
	case msg.Code == tea.KeyUp || !e.onInput() && key.Matches(msg, k.Up):
		e.sel = max(0, e.sel-1)
		return m, nil
	case msg.Code == tea.KeyDown || !e.onInput() && key.Matches(msg, k.Down):
		e.sel = min(n-1, e.sel+1)
		return m, nil
	}
	if e.onInput() {
		var cmd tea.Cmd
		e.in, cmd = e.in.Update(msg)
		e.err = ""
		return m, cmd
	}
	return m, nil
}

// applyEdit validates the chosen value exactly as `citune set` does and
// starts the write.
func (m Model) applyEdit() (tea.Model, tea.Cmd) {
	e := &m.ed
	var val string
	if e.onInput() {
		val = strings.TrimSpace(e.in.Value())
		if val == "" {
			e.err = "type a value"
			return m, nil
		}
	} else {
		c := e.choices[e.sel]
		if c.reserved {
			e.err = fmt.Sprintf("%d is reserved (%s): pick another value", c.v, c.meaning)
			return m, nil
		}
		val = fmt.Sprint(c.v)
	}
	ch, err := m.m.ParseChange(e.ref.String() + "=" + val)
	if err != nil {
		e.err = err.Error()
		return m, nil
	}
	// The binding's limit, as `citune set` and the sweep axes refuse it.
	if err := m.cfg.Target.Profile.DTLimit(ch.Ref, ch.Value); err != nil {
		e.err = err.Error()
		return m, nil
	}
	if reason := m.busyReason(); reason != "" {
		e.err = reason
		return m, nil
	}
	m.mode = modeNormal
	m.writing = true
	m.wgen++
	m.setStatus("writing %s=%s...", ch.Ref, val)
	return m, apply(m.cfg.Undo, []regs.Change{ch}, "set "+ch.Ref.String())
}

// editView draws the editor in place of the register list.
func (m Model) editView(h int) []string {
	e := m.ed
	reg, f := e.ref.Reg, e.ref.Field
	raw := m.cur[reg.Offset]
	sv, _ := m.cfg.Start.Value(reg.Name)
	var out []string
	w := m.w
	if f == nil {
		out = append(out, wrapStyled(m.st.Title, fmt.Sprintf("Edit %s (offset %#03x, whole register)  now %s, at start %s", reg.Name, reg.Offset, regs.Hex(raw), regs.Hex(sv)), w)...)
		out = append(out, wrap(reg.Desc, w, "  ")...)
	} else {
		cur, start := f.Get(raw), f.Get(sv)
		head := fmt.Sprintf("Edit %s (bits %s, %s)  now %d, at start %d", e.ref, f.Bits(), f.Access, cur, start)
		if reg.ResetKnown {
			head += fmt.Sprintf(", reset %d", f.Get(reg.Reset))
		}
		out = append(out, wrapStyled(m.st.Title, head, w)...)
		text := f.Desc + "."
		if len(e.choices) == 0 || e.other {
			text += " Legal: " + regs.Legal(f) + "."
		}
		d := wrap(text, w, "  ")
		if len(d) > 3 {
			d = d[:3]
		}
		out = append(out, d...)
		out = append(out, m.st.ColHead.Render(fit(fmt.Sprintf("   %-6s %-12s %-15s %s", "value", "name", "", "meaning"), w)))
		// A meaning too long for its row shows whole, for the selected
		// value, under the list.
		var whole []string
		if e.sel < len(e.choices) && choiceCol+len(choiceMeaning(e.choices[e.sel])) > w {
			c := e.choices[e.sel]
			whole = wrap(c.name+": "+choiceMeaning(c), w, "  ")
		}
		listH := max(3, h-len(out)-4-len(whole))
		if e.sel < e.top {
			e.top = e.sel
		}
		if e.sel >= e.top+listH {
			e.top = e.sel - listH + 1
		}
		for i := e.top; i < len(e.choices) && i < e.top+listH; i++ {
			out = append(out, m.editChoiceLine(e, i, cur, start))
		}
		out = append(out, whole...)
	}
	if e.other {
		cursor := "  "
		if e.onInput() {
			cursor = "> "
		}
		in := e.in
		in.SetWidth(max(5, w-3-len(in.Prompt)-1))
		out = append(out, cursor+" "+in.View())
	}
	out = append(out, "")
	if e.err != "" {
		out = append(out, wrapStyled(m.st.Error, "refused: "+e.err, w)...)
	} else {
		out = append(out, wrap("enter writes the value and reads it back; esc leaves without writing", w, "  ")...)
	}
	if k := m.cfg.Target.Profile.Knob(e.ref); k != nil && k.Driver != "" {
		out = append(out, wrap("Driver: "+k.Driver, w, "  ")...)
	} else if reg.Note != "" {
		out = append(out, wrap("Driver: "+reg.Note, w, "  ")...)
	}
	if len(out) > h {
		out = out[:h]
	}
	return out
}

// choiceCol is the column where a choice row's meaning starts.
const choiceCol = 2 + 1 + 6 + 1 + 12 + 1 + 15 + 1

// choiceMeaning is what a value of the editor means, a reserved one
// marked.
func choiceMeaning(c choice) string {
	if c.reserved {
		return "RESERVED, cannot be chosen: " + c.meaning
	}
	return c.meaning
}

// editChoiceLine is the editor's row of choice i, tagged with the values
// now, at start and at reset (cur, start and the register's reset).
func (m Model) editChoiceLine(e editor, i int, cur, start uint32) string {
	w := m.w
	reg, f := e.ref.Reg, e.ref.Field
	c := e.choices[i]
	var tags []string
	if c.v == cur {
		tags = append(tags, "now")
	}
	if c.v == start {
		tags = append(tags, "start")
	}
	if reg.ResetKnown && c.v == f.Get(reg.Reset) {
		tags = append(tags, "reset")
	}
	meaning := choiceMeaning(c)
	cursor := "  "
	if i == e.sel {
		cursor = "> "
	}
	line := fit(fmt.Sprintf("%s %-6d %-12s %-15s %s", cursor, c.v, cut(c.name, 12), strings.Join(tags, " "), meaning), w)
	if i == e.sel {
		line = m.st.Cursor.Render(line)
	} else if c.reserved {
		line = m.st.Dim.Render(line)
	}
	return line
}
