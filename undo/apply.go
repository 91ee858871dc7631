package undo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/regs"
)

// This file holds the writes of a session: Apply and the records it
// keeps before each store, and the originals of files and parameters.

// masks splits a prepared write into the bit groups it changes: each
// described field whose value changes (write-1-to-clear, self-clearing and
// never-set fields excluded: they are actions, not state) and the
// undescribed bits that change.
func masks(w regs.Write) []regs.Ref {
	r := w.Reg
	var out []regs.Ref
	diff := (w.Old ^ w.New) &^ r.ZeroOnWrite()
	for i := range r.Fields {
		f := &r.Fields[i]
		if f.Access == regs.RO || f.Access == regs.W1C || f.Access == regs.SC || f.Access == regs.WC || f.Never {
			continue
		}
		if diff&f.Mask() != 0 {
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
	var recs []FieldRec
	for _, w := range ws {
		for _, ref := range masks(w) {
			m := refMask(ref, w)
			k := key{off: w.Reg.Offset, mask: m, kind: 'r'}
			fr := FieldRec{Register: w.Reg.Name, Offset: w.Reg.Offset, Mask: m, Original: w.Old & m, Written: w.New & m, By: s.o.Owner, Time: now}
			if ref.Field != nil {
				fr.Field = ref.Field.Name
			}
			recs = append(recs, fr)
			s.note(k, ref, fr.Name(), w.Old&m, "")
		}
	}
	if len(recs) == 0 && s.o.Owner.Kind != KindSet || s.o.Target.Kind == TargetSim {
		return commit(s.o.Acc, ws)
	}
	err = s.update(func(e *Entry) {
		for _, fr := range recs {
			i := slices.IndexFunc(e.Fields, func(x FieldRec) bool { return x.Offset == fr.Offset && x.Mask == fr.Mask })
			if i < 0 {
				e.Fields = append(e.Fields, fr)
				continue
			}
			e.Fields[i].Written = fr.Written
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
		return nil, fmt.Errorf("%w (nothing written: without a journal the change could not be undone)", err)
	}
	return commit(s.o.Acc, ws)
}

// commit stores the writes that change their register and reads back
// all of them: a register that already holds the composed value is read,
// not written again (writing only what was asked).
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

// note remembers the value an item had when the session first changed it.
func (s *Session) note(k key, ref regs.Ref, label string, start uint32, str string) {
	for _, t := range s.touched {
		if t.key == k {
			s.seq++
			t.seq = s.seq
			return
		}
	}
	s.seq++
	s.touched = append(s.touched, &touch{key: k, ref: ref, label: label, start: start, str: str, seq: s.seq})
}

// RecordFile records a file's original before the caller changes it.
func (s *Session) RecordFile(path, orig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recordFile(path, orig)
}

func (s *Session) recordFile(path, orig string) error {
	s.note(key{name: path, kind: 'f'}, regs.Ref{}, path, 0, orig)
	return s.update(func(e *Entry) {
		if !slices.ContainsFunc(e.Files, func(f FileRec) bool { return f.Path == path }) {
			e.Files = append(e.Files, FileRec{Path: path, Original: orig, By: s.o.Owner, Time: time.Now().UTC()})
		}
		if s.o.Reload != nil {
			e.Reload = s.o.Reload // its root is where the file is
		}
	})
}

// RecordModParam records a module parameter's original before the caller
// reloads the module with another value.
func (s *Session) RecordModParam(name, orig string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.note(key{name: name, kind: 'p'}, regs.Ref{}, name, 0, orig)
	return s.update(func(e *Entry) {
		if !slices.ContainsFunc(e.ModParams, func(p ParamRec) bool { return p.Name == name }) {
			e.ModParams = append(e.ModParams, ParamRec{Name: name, Original: orig, By: s.o.Owner, Time: time.Now().UTC()})
		}
		if s.o.Reload != nil {
			e.Reload = s.o.Reload
		}
	})
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
