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
	v             uint32
	name, meaning string
	reserved      bool
}

// editor picks a value for one field (or a whole register without fields).
type editor struct {
	ref      regs.Ref
	choices  []choice
	other    bool // a free "other value" row follows the choices
	sel, top int
	in       textinput.Model
	err      string
}

// onInput reports whether keys go to the text input.
func (e editor) onInput() bool { return e.other && e.sel == len(e.choices) }

// choicesOf lists the values offered for f; other: values outside the
// list are legal too.
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

func (rt *regsTab) openEditor() tea.Cmd {
	r := rt.rows[rt.sel]
	if r.kind == rowReg && len(r.reg.Fields) > 0 {
		rt.setErr("pick a field of %s to edit (the rows below it)", r.reg.Name)
		return nil
	}
	if reason := rt.busyReason(); reason != "" {
		rt.setErr("%s", reason)
		return nil
	}
	ref := r.ref()
	cur := valueOf(ref, rt.cur[r.reg.Offset])
	// The current value proves the field is writable at all (RO fields,
	// read-only registers and never-set fields are refused here).
	if _, err := rt.m.ParseChange(fmt.Sprintf("%s=%d", ref, cur)); err != nil {
		rt.setErr("%v", err)
		return nil
	}
	e := editor{ref: ref, in: rt.in}
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
	rt.ed = &e
	rt.setStatus("editing %s: pick a value; nothing is written before enter", ref)
	return cmd
}

func (rt *regsTab) editKey(msg tea.KeyPressMsg) tea.Cmd {
	k := rt.keys
	e := rt.ed
	n := len(e.choices)
	if e.other {
		n++
	}
	switch {
	case key.Matches(msg, k.Cancel):
		rt.ed = nil
		rt.setStatus("edit cancelled; nothing written")
		return nil
	case key.Matches(msg, k.Apply):
		return rt.applyEdit()
	case msg.Code == tea.KeyUp || !e.onInput() && key.Matches(msg, k.Up):
		e.sel = max(0, e.sel-1)
		return nil
	case msg.Code == tea.KeyDown || !e.onInput() && key.Matches(msg, k.Down):
		e.sel = min(n-1, e.sel+1)
		return nil
	}
	if e.onInput() {
		var cmd tea.Cmd
		e.in, cmd = e.in.Update(msg)
		e.err = ""
		return cmd
	}
	return nil
}

// applyEdit validates the value as `citune set` does and starts the write.
func (rt *regsTab) applyEdit() tea.Cmd {
	e := rt.ed
	var val string
	if e.onInput() {
		val = strings.TrimSpace(e.in.Value())
		if val == "" {
			e.err = "type a value"
			return nil
		}
	} else {
		c := e.choices[e.sel]
		if c.reserved {
			e.err = fmt.Sprintf("%d is reserved (%s): pick another value", c.v, c.meaning)
			return nil
		}
		val = fmt.Sprint(c.v)
	}
	ch, err := rt.m.ParseChange(e.ref.String() + "=" + val)
	if err != nil {
		e.err = err.Error()
		return nil
	}
	// The binding's limit, as `citune set` and the sweep axes refuse it.
	if err := rt.cfg.Target.Profile.DTLimit(ch.Ref, ch.Value); err != nil {
		e.err = err.Error()
		return nil
	}
	if reason := rt.busyReason(); reason != "" {
		e.err = reason
		return nil
	}
	rt.ed = nil
	rt.writing = true
	rt.wgen++
	rt.setStatus("writing %s=%s...", ch.Ref, val)
	return apply(rt.cfg.Undo, []regs.Change{ch}, "set "+ch.Ref.String())
}

func (rt *regsTab) editView(h int) []string {
	e := *rt.ed // its scroll is the view's own
	reg, f := e.ref.Reg, e.ref.Field
	raw := rt.cur[reg.Offset]
	sv, _ := rt.cfg.Start.Value(reg.Name)
	var out []string
	w := rt.w
	if f == nil {
		out = append(out, wrapStyled(rt.st.Title, fmt.Sprintf("Edit %s (offset %#03x, whole register)  now %s, at start %s", reg.Name, reg.Offset, regs.Hex(raw), regs.Hex(sv)), w)...)
		out = append(out, wrap(reg.Desc, w, "  ")...)
	} else {
		cur, start := f.Get(raw), f.Get(sv)
		head := fmt.Sprintf("Edit %s (bits %s, %s)  now %d, at start %d", e.ref, f.Bits(), f.Access, cur, start)
		if reg.ResetKnown {
			head += fmt.Sprintf(", reset %d", f.Get(reg.Reset))
		}
		out = append(out, wrapStyled(rt.st.Title, head, w)...)
		text := f.Desc + "."
		if len(e.choices) == 0 || e.other {
			text += " Legal: " + regs.Legal(f) + "."
		}
		d := wrap(text, w, "  ")
		if len(d) > 3 {
			d = d[:3]
		}
		out = append(out, d...)
		out = append(out, rt.st.ColHead.Render(fit(fmt.Sprintf("   %-6s %-12s %-15s %s", "value", "name", "", "meaning"), w)))
		// A meaning too long for its row shows whole, for the selected
		// value, under the list.
		var whole []string
		if e.sel < len(e.choices) && choiceCol+len(choiceMeaning(e.choices[e.sel])) > w {
			c := e.choices[e.sel]
			whole = wrap(c.name+": "+choiceMeaning(c), w, "  ")
		}
		listH := max(3, h-len(out)-4-len(whole))
		e.top = max(min(e.top, e.sel), e.sel-listH+1) // the selection in view
		for i := e.top; i < len(e.choices) && i < e.top+listH; i++ {
			out = append(out, rt.editChoiceLine(e, i, cur, start))
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
		out = append(out, wrapStyled(rt.st.Error, "refused: "+e.err, w)...)
	} else {
		out = append(out, wrap("enter writes the value and reads it back; esc leaves without writing", w, "  ")...)
	}
	if k := rt.cfg.Target.Profile.Knob(e.ref); k != nil && k.Driver != "" {
		out = append(out, wrap("Driver: "+k.Driver, w, "  ")...)
	} else if reg.Note != "" {
		out = append(out, wrap("Driver: "+reg.Note, w, "  ")...)
	}
	return out // render cuts it to the body
}

// choiceCol is the column where a choice row's meaning starts.
const choiceCol = 2 + 1 + 6 + 1 + 12 + 1 + 15 + 1

// choiceMeaning is what a value means, a reserved one marked.
func choiceMeaning(c choice) string {
	if c.reserved {
		return "RESERVED, cannot be chosen: " + c.meaning
	}
	return c.meaning
}

// editChoiceLine is the row of choice i, tagged now, start and reset.
func (rt *regsTab) editChoiceLine(e editor, i int, cur, start uint32) string {
	w := rt.w
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
		line = rt.st.Cursor.Render(line)
	} else if c.reserved {
		line = rt.st.Dim.Render(line)
	}
	return line
}
