package tui

import (
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
)

// read takes a fresh read and finds values changed behind the user's back.
func (rt *regsTab) read(msg regsMsg, sweep SweepPlan) {
	if msg.err != nil {
		rt.setErr("reading registers: %v", msg.err)
		return
	}
	if msg.wgen != rt.wgen || rt.writing {
		return // raced a write: a fresh read follows the write
	}
	rt.prev = rt.cur
	rt.cur = map[uint32]uint32{}
	for _, rv := range msg.snap.Registers {
		rt.cur[rv.Offset] = rv.Value
	}
	rt.reads++
	if rt.reads == 1 || rt.resync {
		// Our own writes (and a sweep's restore) are not changes
		// behind the user's back.
		rt.prev, rt.resync = nil, false
	}
	var fresh []string
	for i := range rt.m.Registers {
		r := &rt.m.Registers[i]
		for j := range r.Fields {
			f := &r.Fields[j]
			ref := regs.Ref{Reg: r, Field: f}
			k := refKey(ref)
			if rt.sweeping && sweep.has(ref) {
				continue
			}
			got := f.Get(rt.cur[r.Offset])
			// A field the user set is compared with that value; a knob
			// that drifted by itself earlier with its value before.
			want, ok := rt.desired[k]
			d, had := rt.drifts[k]
			if !ok && had && f.Knob {
				want, ok = d.want, true
			}
			switch {
			case ok && got != want:
				if !had {
					fresh = append(fresh, k)
				}
				rt.drifts[k] = drift{want: want, got: got}
			case ok:
				delete(rt.drifts, k)
			case f.Knob && rt.prev != nil:
				if was := f.Get(rt.prev[r.Offset]); was != got {
					rt.drifts[k] = drift{want: was, got: got}
					fresh = append(fresh, k)
				}
			}
		}
	}
	if len(fresh) > 0 {
		ref, _ := rt.m.Lookup(fresh[0])
		d := rt.drifts[fresh[0]]
		rt.setErr("! %s changed behind your back: was %d, reads %d. %s", ref, d.want, d.got, rt.why(ref))
	}
}

// why explains who rewrites a field (the knob's text, the register's note).
func (s *shared) why(ref regs.Ref) string {
	if ref.Reg == nil {
		return ""
	}
	if ref.Field != nil {
		if k := s.cfg.Target.Profile.Knob(ref); k != nil && k.Driver != "" {
			return k.Driver
		}
	}
	if ref.Reg.Note != "" {
		return ref.Reg.Note
	}
	if s.cfg.Target.Profile.Emulated {
		return "The emulator ignores writes to some registers."
	}
	return "Something else (the driver, a controller reset) wrote the register."
}

func (m Model) onWrite(msg writeMsg) (tea.Model, tea.Cmd) {
	m.writing = false
	m.wgen++
	m.resync = true
	read := readRegs(m.cfg.Target, m.m, m.wgen)
	var ok, bad []string
	for _, r := range msg.results {
		for _, c := range r.Changes {
			k := refKey(c.Ref)
			// Check reports a field once, for its last change.
			if i := slices.IndexFunc(r.Mismatches, func(x regs.Mismatch) bool { return sameRef(x.Ref, c.Ref) }); i >= 0 {
				bad = append(bad, fmt.Sprintf("%s DID NOT STICK: %s. %s", c.Ref, r.Mismatches[i], m.why(c.Ref)))
				delete(m.regs.desired, k)
				continue
			}
			delete(m.regs.drifts, k)
			if msg.revert {
				delete(m.regs.desired, k)
			} else {
				m.regs.desired[k] = c.Value
			}
			ok = append(ok, fmt.Sprintf("%s=%d (reads %d)", c.Ref, c.Value, valueOf(c.Ref, r.Readback)))
		}
	}
	for _, r := range msg.restored {
		k := strings.ToUpper(r.Name)
		if !r.Held {
			bad = append(bad, fmt.Sprintf("%s DID NOT RETURN: %s", r.Name, r.Line))
			continue
		}
		delete(m.regs.drifts, k)
		delete(m.regs.desired, k)
		if r.Wrote {
			ok = append(ok, fmt.Sprintf("%s=%s (reads %s)", r.Name, r.Want, r.Got))
		}
	}
	if msg.revert {
		for _, ref := range msg.refs {
			delete(m.regs.desired, refKey(ref))
			delete(m.regs.drifts, refKey(ref))
		}
	}
	if msg.err != nil && m.cfg.Undo.Stops(msg.err) && m.out.Stopped == nil {
		// The originals on disk are gone or untrustworthy: stop, and
		// restore from the session's memory.
		m.out.Stopped = msg.err
		m.setErr("%s: %v", msg.what, msg.err)
		return m, restoreAll(m.cfg.Undo)
	}
	switch {
	case msg.err != nil:
		m.setErr("%s: %v", msg.what, msg.err)
	case len(bad) > 0:
		m.setErr("%s", strings.Join(bad, "; "))
	case len(ok) == 0 && msg.revert:
		m.setStatus("%s: nothing to do, the values are already the starting ones", msg.what)
	case msg.revert:
		m.setStatus("%s: %s, read back ok", msg.what, strings.Join(ok, ", "))
	default:
		m.setStatus("applied %s, read back ok", strings.Join(ok, ", "))
	}
	if m.mode == modeClosing {
		mm, cmd := m.proceedClose()
		return mm, tea.Batch(read, cmd)
	}
	return m, read
}

// differing lists the values the session changed that differ from their
// start now (a value changed and changed back is not listed).
func (m *Model) differing() []regs.Ref {
	var out []regs.Ref
	for _, ref := range m.cfg.Undo.Touched() {
		if valueOf(ref, m.cur[ref.Reg.Offset]) != m.startValue(ref) {
			out = append(out, ref)
		}
	}
	return out
}

// valueOf is ref's value in raw, its register's value.
func valueOf(ref regs.Ref, raw uint32) uint32 {
	if ref.Field == nil {
		return raw
	}
	return ref.Field.Get(raw)
}

// startValue is ref's value when the session first changed it, or, for a
// field it has not changed, its value in the starting snapshot.
func (s *shared) startValue(ref regs.Ref) uint32 {
	if v, ok := s.cfg.Undo.StartValue(ref); ok {
		return v
	}
	raw, _ := s.cfg.Start.Value(ref.Reg.Name)
	return valueOf(ref, raw)
}
