package undo

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/regs"
)

// How a session ends: restoring what it changed, settling the journal,
// keeping values, halting, closing.

// Restored is one item put back.
type Restored struct {
	Name  string // REG.FIELD, file path or module.param
	Want  string
	Got   string
	Held  bool
	Wrote bool // false: it was back already
}

// Restore returns everything the session changed to its value when the
// session first changed it (adopted records to their original), newest
// change first: module parameters (a reload resets the controller),
// files, then register fields by read-modify-write of those fields only.
// Journal records whose item is back at its original are dropped. It
// runs even when ctx is cancelled.
func (s *Session) Restore(ctx context.Context) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restore(ctx, nil)
}

// Revert restores the given fields only (the TUI's revert).
func (s *Session) Revert(refs []regs.Ref) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.restore(context.Background(), refs)
}

func (s *Session) restore(ctx context.Context, only []regs.Ref) ([]Restored, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	todo := slices.Clone(s.touched)
	if only != nil {
		todo = slices.DeleteFunc(todo, func(t *touch) bool {
			return t.kind != 'r' || !slices.ContainsFunc(only, func(r regs.Ref) bool {
				return r.Reg.Offset == t.off && (r.Field == nil || r.Field.Mask() == t.mask)
			})
		})
	}
	slices.SortStableFunc(todo, func(a, b *touch) int { return b.seq - a.seq })
	// Everything comes from memory: the journal may be gone or damaged.
	target := func(t *touch) (uint32, string) {
		if a, ok := s.adopted[t.key]; ok {
			return a.orig, a.str
		}
		return t.start, t.str
	}
	var rl restoreLog
	var ps []paramTarget
	for _, t := range todo {
		if t.kind == 'p' {
			_, v := target(t)
			ps = append(ps, paramTarget{t.name, v})
		}
	}
	rl.add(s.restoreParams(ctx, ps))
	for _, t := range todo {
		if t.kind == 'f' {
			_, v := target(t)
			rl.add(restoreFile(s.o.Host, t.name, v))
		}
	}
	var fields []fieldTarget
	for _, t := range todo {
		if t.kind == 'r' {
			v, _ := target(t)
			fields = append(fields, fieldTarget{off: t.off, mask: t.mask, want: v, name: t.label})
		}
	}
	rl.add(restoreFields(s.o.Map, s.o.Acc, fields))
	// Forget what is back at its session-start value.
	for _, r := range rl.out {
		if r.Held {
			s.touched = slices.DeleteFunc(s.touched, func(t *touch) bool { return t.label == r.Name || t.name == r.Name && t.kind != 'r' })
		}
	}
	s.publish()
	if err := s.dropRestored(); err != nil {
		rl.errs = append(rl.errs, err)
	}
	return rl.done()
}

// readParam reads the module parameter name ("module.param").
func readParam(h Host, name string) (string, error) {
	if h == nil {
		return "", errors.New("no host")
	}
	mod, param, _ := strings.Cut(name, ".")
	return h.ReadParam(mod, param)
}

// dropRestored removes the journal records of this target whose item is
// back at its original value, and the registration of a long session
// with nothing of its own left changed. A damaged journal is left alone.
func (s *Session) dropRestored() error {
	if s.o.Journal == "" {
		return nil
	}
	if s.lost != nil && s.lost.What == Damaged {
		return s.keepCopy()
	}
	unlock, err := lockFile(s.o.Journal+".lock", lockEX)
	if err != nil {
		return err
	}
	defer unlock()
	j, err := Read(s.o.Journal)
	if err != nil {
		return err
	}
	if e := j.Find(s.o.Target.Key()); e != nil {
		e.prune(s.o.Acc, s.o.Host)
		if len(s.touched) == 0 || s.kept {
			e.Sessions = slices.DeleteFunc(e.Sessions, s.o.Owner.Same)
		}
		for _, t := range s.recorded() {
			t.journalled = e.holds(t)
		}
	} else {
		for _, t := range s.touched {
			t.journalled = false
		}
	}
	if err := j.save(s.o.Journal); err != nil {
		return err
	}
	s.lastSeq = j.Seq
	return s.keepCopy()
}

// prune drops the records of items that are at their original value now.
func (e *Entry) prune(acc regs.Accessor, h Host) {
	e.Fields = slices.DeleteFunc(e.Fields, func(f FieldRec) bool {
		v, err := acc.Read32(f.Offset)
		return err == nil && v&f.Mask == f.Original
	})
	if h == nil {
		return
	}
	e.Files = slices.DeleteFunc(e.Files, func(f FileRec) bool {
		v, err := h.ReadFile(f.Path)
		return err == nil && FileHolds(f.Original, v)
	})
	e.ModParams = slices.DeleteFunc(e.ModParams, func(p ParamRec) bool {
		v, err := readParam(h, p.Name)
		return err == nil && v == p.Original
	})
	if len(e.ModParams) == 0 && len(e.Files) == 0 {
		e.Reload = nil
	}
}

// Settle brings the journal and the session's bookkeeping up to date
// after the caller put values back itself (a sweep returning to its
// starting point through Apply), as dropRestored does.
func (s *Session) Settle() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.touched = slices.DeleteFunc(s.touched, func(t *touch) bool {
		switch t.kind {
		case 'r':
			v, err := s.o.Acc.Read32(t.off)
			return err == nil && (v&t.mask == t.start || v&t.mask == t.orig)
		case 'f':
			if s.o.Host == nil {
				return false
			}
			v, err := s.o.Host.ReadFile(t.name)
			return err == nil && (FileHolds(t.str, v) || FileHolds(t.origStr, v))
		default:
			v, err := readParam(s.o.Host, t.name)
			return err == nil && (v == t.str || v == t.origStr)
		}
	})
	s.publish()
	return s.dropRestored()
}

// Keep ends a long session's ownership without restoring: its changes
// stay (as after `citune set`) until `citune restore`.
func (s *Session) Keep() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept = true
	s.touched = nil
	s.publish()
	return s.dropRestored()
}

// Halt undoes this process's changes (periph's conn.Resource) for the
// quit and signal paths; it is safe to call more than once and from
// another goroutine.
func (s *Session) Halt() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.halted || s.kept {
		return nil
	}
	s.halted = true
	if s.o.Owner.Kind == KindSet {
		return nil // a set's change lasts until `citune restore`
	}
	_, err := s.restore(context.Background(), nil)
	return err
}

// Close releases the target's lock. A long session that still has
// changes of its own stays registered, so the next session sees it as
// interrupted and `citune restore` puts the originals back.
func (s *Session) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.o.Owner.Kind.Long() && len(s.touched) == 0 && s.o.Journal != "" {
		err = s.dropRestored()
	}
	s.lk.release()
	return err
}
