package undo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/regs"
)

// The writes of a session: Apply and the records it keeps before each
// store, and the originals of files and parameters.

// masks splits a prepared write into the bit groups it changes: each
// described field whose value changes (write-1-to-clear, self-clearing and
// never-set fields are left out of diff by ZeroOnWrite: they are actions,
// not state) and the undescribed bits that change.
func masks(w regs.Write) []regs.Ref {
	r := w.Reg
	var out []regs.Ref
	diff := (w.Old ^ w.New) &^ r.ZeroOnWrite()
	for i := range r.Fields {
		if f := &r.Fields[i]; f.Access != regs.RO && diff&f.Mask() != 0 {
			out = append(out, regs.Ref{Reg: r, Field: f})
		}
	}
	if rest := diff &^ r.Covered(); rest != 0 {
		out = append(out, regs.Ref{Reg: r})
	}
	return out
}

func refMask(ref regs.Ref, w regs.Write) uint32 {
	if ref.Field != nil {
		return ref.Field.Mask()
	}
	return (w.Old ^ w.New) &^ ref.Reg.ZeroOnWrite() &^ ref.Reg.Covered()
}

// Apply writes register changes: it checks them (live state needs
// AllowLive), composes each register by read-modify-write, records the
// original of every field that changes in the journal before the first
// write, writes, and reads back. Results list what did not stick.
func (s *Session) Apply(changes []regs.Change) ([]regs.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.halted {
		return nil, errors.New("undo: the session was halted")
	}
	ws, err := regs.Prepare(s.o.Acc, changes)
	if err != nil {
		return nil, err
	}
	if !s.o.AllowLive {
		cur := map[uint32]uint32{}
		for _, w := range ws {
			cur[w.Reg.Offset] = w.Old
		}
		if live := regs.LiveChanges(changes, cur); len(live) > 0 {
			var why []string
			for _, c := range live {
				why = append(why, fmt.Sprintf("%s: %s", c.Ref, regs.LiveRisk(c.Ref)))
			}
			return nil, fmt.Errorf("%w: %s", ErrLive, strings.Join(why, "; "))
		}
	}
	now := time.Now().UTC()
	type pending struct {
		t  *touch
		fr FieldRec
	}
	if s.lost != nil {
		// Without the journal only a return to where the session found
		// things may be written.
		if !s.onlyRestoring(ws) {
			return nil, s.lost
		}
		return commit(s.o.Acc, ws)
	}
	var recs []pending
	for _, w := range ws {
		for _, ref := range masks(w) {
			m := refMask(ref, w)
			k := key{off: w.Reg.Offset, mask: m, kind: 'r'}
			t := s.note(k, ref, "", w.Old&m, "")
			t.written = w.New & m
			// The original is the session's own, never a value read back
			// from a register the session already changed.
			fr := FieldRec{Register: w.Reg.Name, Offset: w.Reg.Offset, Mask: m, Original: t.orig, Written: w.New & m, By: s.o.Owner, Time: now}
			if ref.Field != nil {
				fr.Field = ref.Field.Name
			}
			recs = append(recs, pending{t, fr})
		}
	}
	if (len(recs) == 0 && s.o.Owner.Kind != KindSet) || s.o.Target.Kind == TargetSim {
		return commit(s.o.Acc, ws)
	}
	err = s.update(func(e *Entry) {
		for _, p := range recs {
			i := slices.IndexFunc(e.Fields, func(x FieldRec) bool { return x.Offset == p.fr.Offset && x.Mask == p.fr.Mask })
			if i < 0 {
				e.Fields = append(e.Fields, p.fr)
				continue
			}
			if !p.t.journalled {
				p.t.orig = e.Fields[i].Original // recorded before this session (a set)
			}
			e.Fields[i].Written = p.fr.Written
		}
		if s.o.Owner.Kind == KindSet {
			var req []string
			for _, c := range changes {
				req = append(req, changeString(c))
			}
			e.Changes = mergeChanges(e.Changes, req)
		}
	})
	if err != nil {
		var je *JournalError
		if errors.As(err, &je) {
			if s.onlyRestoring(ws) {
				return commit(s.o.Acc, ws)
			}
			return nil, fmt.Errorf("%w (nothing written)", err)
		}
		return nil, fmt.Errorf("%w (nothing written: without a journal the change could not be undone)", err)
	}
	for _, p := range recs {
		p.t.journalled = true
	}
	s.keepCopy()
	return commit(s.o.Acc, ws)
}

// onlyRestoring reports whether every bit group the writes change goes
// back to where the session found it.
func (s *Session) onlyRestoring(ws []regs.Write) bool {
	for _, w := range ws {
		for _, ref := range masks(w) {
			m := refMask(ref, w)
			if !s.restoring(key{off: w.Reg.Offset, mask: m, kind: 'r'}, w.New&m) {
				return false
			}
		}
	}
	return true
}

// commit stores the writes that change their register and reads back
// all of them: one that already holds the composed value is only read.
func commit(acc regs.Accessor, ws []regs.Write) ([]regs.Result, error) {
	var out []regs.Result
	for _, w := range ws {
		if w.New != w.Old {
			rs, err := regs.Commit(acc, []regs.Write{w})
			out = append(out, rs...)
			if err != nil {
				return out, err
			}
			continue
		}
		rb, err := acc.Read32(w.Reg.Offset)
		if err != nil {
			return out, fmt.Errorf("reading back %s: %w", w.Reg.Name, err)
		}
		out = append(out, regs.Result{Write: w, Readback: rb, Mismatches: regs.Check(w.Reg, w.Changes, rb)})
	}
	return out, nil
}

// note remembers the value an item had when the session first changed
// it and returns its touch, whose original is that value (or the adopted
// one) until the journal says otherwise.
func (s *Session) note(k key, ref regs.Ref, label string, start uint32, str string) *touch {
	s.seq++
	for _, t := range s.touched {
		if t.key == k {
			t.seq = s.seq
			return t
		}
	}
	if label == "" {
		label = FieldRec{Register: ref.Reg.Name, Mask: k.mask}.Name()
		if ref.Field != nil {
			label = ref.Reg.Name + "." + ref.Field.Name
		}
	}
	t := &touch{key: k, ref: ref, label: label, start: start, str: str, seq: s.seq, orig: start, origStr: str}
	if a, ok := s.adopted[k]; ok {
		t.orig, t.origStr = a.orig, a.str
	}
	s.touched = append(s.touched, t)
	s.publish()
	return t
}

// RecordFile records a file's original before the caller changes it.
func (s *Session) RecordFile(path, orig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.record(key{name: path, kind: 'f'}, orig)
}

// RecordModParam records a module parameter's original before the caller
// reloads the module with another value.
func (s *Session) RecordModParam(name, orig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.record(key{name: name, kind: 'p'}, orig)
}

func (s *Session) record(k key, orig string) error {
	t := s.note(k, regs.Ref{}, k.name, 0, orig)
	now := time.Now().UTC()
	err := s.update(func(e *Entry) {
		if k.kind == 'f' {
			if i := slices.IndexFunc(e.Files, func(f FileRec) bool { return f.Path == k.name }); i >= 0 {
				if !t.journalled {
					t.origStr = e.Files[i].Original
				}
			} else {
				e.Files = append(e.Files, FileRec{Path: k.name, Original: t.origStr, By: s.o.Owner, Time: now})
			}
		} else {
			if i := slices.IndexFunc(e.ModParams, func(p ParamRec) bool { return p.Name == k.name }); i >= 0 {
				if !t.journalled {
					t.origStr = e.ModParams[i].Original
				}
			} else {
				e.ModParams = append(e.ModParams, ParamRec{Name: k.name, Original: t.origStr, By: s.o.Owner, Time: now})
			}
		}
		if s.o.Reload != nil {
			e.Reload = s.o.Reload // its root is where the file is
		}
	})
	if err == nil {
		t.journalled = true
		s.keepCopy()
	}
	return err
}

func changeString(c regs.Change) string {
	if c.Ref.Field == nil {
		return fmt.Sprintf("%s=%s", c.Ref, regs.Hex(c.Value))
	}
	return fmt.Sprintf("%s=%d", c.Ref, c.Value)
}

// mergeChanges replaces earlier requests for the same name.
func mergeChanges(old, add []string) []string {
	out := []string{}
	for _, o := range old {
		name, _, _ := strings.Cut(o, "=")
		if !slices.ContainsFunc(add, func(n string) bool {
			nn, _, _ := strings.Cut(n, "=")
			return strings.EqualFold(nn, name)
		}) {
			out = append(out, o)
		}
	}
	return append(out, add...)
}
