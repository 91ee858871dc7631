package undo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/regs"
)

// Host is what a session changes on the running system besides registers.
type Host interface {
	ReadFile(path string) (string, error)
	WriteFile(path, value string) error
	ReadParam(module, param string) (string, error)
	// RestoreParams reloads the module stack with the given values
	// ("module.param" to value) and returns when it is back.
	RestoreParams(ctx context.Context, params map[string]string) error
}

// Options open a session.
type Options struct {
	// Journal is the journal file; "" keeps none (the simulated
	// controller, whose state dies with the process) and takes no lock.
	Journal string
	Target  TargetID
	// Profile, ProfileFile and Controller label a new journal entry.
	Profile, ProfileFile, Controller string
	Owner                            Owner
	Acc                              regs.Accessor
	Map                              *regs.Map
	// Host applies and restores files and module parameters (nil when
	// the session changes only registers).
	Host Host
	// Reload is recorded with module parameters so that `citune restore`
	// can reload the stack after a crash.
	Reload *Reload
	// Force lets a short owner go on while a sweep or TUI owns the
	// target.
	Force bool
	// AllowLive lets Apply write live-state fields (list addresses,
	// doorbells, run/stop, port control).
	AllowLive bool
	// Adopt takes over the records of an interrupted session (a resumed
	// sweep): Restore returns them to their originals.
	Adopt bool
}

// ErrInterrupted is wrapped when a long session opens a target whose
// previous long session was killed: its changed values would be taken
// for originals.
var ErrInterrupted = errors.New("the journal holds the changes of an interrupted session")

// InterruptedError names the interrupted sessions.
type InterruptedError struct {
	Target  TargetID
	Journal string
	Owners  []Owner
}

func (e *InterruptedError) Error() string {
	var s []string
	for _, o := range e.Owners {
		s = append(s, o.String())
	}
	return fmt.Sprintf("%s: the journal %s holds the changes of an interrupted session, %s", e.Target, e.Journal, strings.Join(s, "; "))
}

func (e *InterruptedError) Unwrap() error { return ErrInterrupted }

// ErrLive is wrapped when Apply is asked to write live state without
// AllowLive.
var ErrLive = errors.New("live state is not a knob")

// key names one recorded item within a target: a register's bits, a file
// or a module parameter.
type key struct {
	off  uint32
	mask uint32
	name string // file path or module.param
	kind byte   // 'r', 'f', 'p'
}

// touch is what the session changed on one item: its value when the
// session first changed it (what Restore returns it to) and when.
type touch struct {
	key
	ref   regs.Ref
	label string
	start uint32 // register bits under mask
	str   string // file content or parameter value
	seq   int
}

// Session is one process's ownership of one target. It is safe for
// concurrent use: the signal path may Halt while another goroutine is
// blocked in a probe.
type Session struct {
	mu       sync.Mutex
	o        Options
	lk       *lock
	touched  []*touch
	seq      int
	adopted  map[key]bool
	halted   bool
	kept     bool
	closed   bool
	warnings []string
}

// Open opens a session on the target: it takes the target's lock and, for
// a long owner, registers the session in the journal. Nothing is written
// to the hardware.
func Open(o Options) (*Session, error) {
	if o.Owner.PID == 0 {
		return nil, errors.New("undo: session without an owner")
	}
	s := &Session{o: o}
	if o.Journal == "" || o.Target.Kind == TargetSim {
		// A simulated controller's registers die with the process: no
		// lock, no register records (files and module parameters it
		// changes on the machine are journalled all the same).
		return s, nil
	}
	lk, err := acquire(o.Journal, o.Target, o.Owner, o.Force)
	if err != nil {
		return nil, err
	}
	if lk == nil {
		h, _ := Holder(o.Journal, o.Target)
		s.warnings = append(s.warnings, fmt.Sprintf("forced: %s owns %s; this change goes under it and its end may undo it", h, o.Target))
	}
	s.lk = lk
	if !o.Owner.Kind.Long() {
		return s, nil
	}
	err = Update(o.Journal, func(j *Journal) error {
		e := j.Find(o.Target.Key())
		if e == nil {
			return nil
		}
		if dead := e.Interrupted(); len(dead) > 0 && !o.Adopt {
			return &InterruptedError{Target: o.Target, Journal: o.Journal, Owners: dead}
		}
		if o.Adopt {
			s.adopted = map[key]bool{}
			for _, f := range e.Fields {
				s.adopted[key{off: f.Offset, mask: f.Mask, kind: 'r'}] = true
			}
			for _, f := range e.Files {
				s.adopted[key{name: f.Path, kind: 'f'}] = true
			}
			for _, p := range e.ModParams {
				s.adopted[key{name: p.Name, kind: 'p'}] = true
			}
			e.Sessions = slices.DeleteFunc(e.Sessions, func(x Owner) bool { return !x.Alive() })
		}
		return nil
	})
	if err != nil {
		lk.release()
		return nil, err
	}
	return s, nil
}

// Warnings are what the session wants the user to know (a forced open).
func (s *Session) Warnings() []string { return s.warnings }

// Owner is the session's owner.
func (s *Session) Owner() Owner { return s.o.Owner }

// Target is the session's target.
func (s *Session) Target() TargetID { return s.o.Target }

// Journal is the journal file that keeps this target's register
// originals ("" when none is kept: none given, or a simulated
// controller, whose registers die with the process).
func (s *Session) Journal() string {
	if s.o.Target.Kind == TargetSim {
		return ""
	}
	return s.o.Journal
}

// String describes the session's target (conn.Resource).
func (s *Session) String() string { return s.o.Target.String() }

// update runs fn on this target's journal entry (created as needed), and
// registers a long session on its first record.
func (s *Session) update(fn func(e *Entry)) error {
	if s.o.Journal == "" {
		fn(&Entry{})
		return nil
	}
	return Update(s.o.Journal, func(j *Journal) error {
		now := time.Now().UTC()
		e := j.For(Entry{Target: s.o.Target, Profile: s.o.Profile, ProfileFile: s.o.ProfileFile, Controller: s.o.Controller, Created: now})
		e.Updated = now
		if s.o.Owner.Kind.Long() && !slices.ContainsFunc(e.Sessions, s.o.Owner.Same) {
			e.Sessions = append(e.Sessions, s.o.Owner)
		}
		fn(e)
		return nil
	})
}

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

// WriteFile writes a sysfs/procfs file through the host, recording its
// original first.
func (s *Session) WriteFile(path, value string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.o.Host == nil {
		return errors.New("undo: no host for file changes")
	}
	orig, err := s.o.Host.ReadFile(path)
	if err != nil {
		return err
	}
	orig = selected(orig)
	if err := s.recordFile(path, orig); err != nil {
		return err
	}
	return s.o.Host.WriteFile(path, value)
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

// Touched lists the register fields the session changed, first changed
// first.
func (s *Session) Touched() []regs.Ref {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []regs.Ref
	for _, t := range s.touched {
		if t.kind == 'r' {
			out = append(out, t.ref)
		}
	}
	return out
}

// StartValue is the value the field had when the session first changed
// it (ok false when the session did not change it).
func (s *Session) StartValue(ref regs.Ref) (uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.touched {
		if t.kind == 'r' && t.off == ref.Reg.Offset && (ref.Field == nil && t.ref.Field == nil || ref.Field != nil && t.ref.Field != nil && strings.EqualFold(ref.Field.Name, t.ref.Field.Name)) {
			if ref.Field != nil {
				return ref.Field.Get(t.start), true
			}
			return t.start, true
		}
	}
	return 0, false
}

// Restored is one item put back.
type Restored struct {
	Name  string // REG.FIELD, file path or module.param
	Want  string
	Got   string
	Held  bool
	Wrote bool // false: it was back already
}

func (r Restored) String() string {
	switch {
	case !r.Wrote:
		return fmt.Sprintf("%s = %s (already)", r.Name, r.Want)
	case r.Held:
		return fmt.Sprintf("%s = %s", r.Name, r.Want)
	}
	return fmt.Sprintf("%s: wrote %s, reads %s", r.Name, r.Want, r.Got)
}

// Restore returns everything the session changed to its value when the
// session first changed it (for adopted records of an interrupted
// session, to the original), newest change first: module parameters (a
// reload resets the controller), files, then register fields by
// read-modify-write of those fields only. Journal records whose item is
// back at its original are dropped. It runs even when ctx is cancelled.
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
	var origs map[key]FieldRec
	var forigs map[key]string
	if len(s.adopted) > 0 || s.o.Journal != "" {
		origs, forigs = s.originals()
	}
	target := func(t *touch) (uint32, string) {
		if s.adopted[t.key] {
			if fr, ok := origs[t.key]; ok {
				return fr.Original, ""
			}
			if v, ok := forigs[t.key]; ok {
				return 0, v
			}
		}
		return t.start, t.str
	}
	var out []Restored
	var errs []error
	// Module parameters first: a reload resets the controller.
	var ps []paramTarget
	for _, t := range todo {
		if t.kind == 'p' {
			_, v := target(t)
			ps = append(ps, paramTarget{t.name, v})
		}
	}
	rs, err := s.restoreParams(ctx, ps)
	out = append(out, rs...)
	if err != nil {
		errs = append(errs, err)
	}
	for _, t := range todo {
		if t.kind != 'f' {
			continue
		}
		_, v := target(t)
		r, err := restoreFile(s.o.Host, t.name, v)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, r)
	}
	var fields []fieldTarget
	for _, t := range todo {
		if t.kind == 'r' {
			v, _ := target(t)
			fields = append(fields, fieldTarget{off: t.off, mask: t.mask, want: v, name: t.label})
		}
	}
	rs, err = restoreFields(s.o.Map, s.o.Acc, fields)
	out = append(out, rs...)
	if err != nil {
		errs = append(errs, err)
	}
	// Forget what is back at its session-start value.
	for _, r := range out {
		if r.Held {
			s.touched = slices.DeleteFunc(s.touched, func(t *touch) bool { return t.label == r.Name || t.name == r.Name && t.kind != 'r' })
		}
	}
	if err := s.dropRestored(); err != nil {
		errs = append(errs, err)
	}
	return out, summarise(out, errs)
}

func (s *Session) readParam(mod, param string) (string, error) {
	if s.o.Host == nil {
		return "", errors.New("no host")
	}
	return s.o.Host.ReadParam(mod, param)
}

// originals reads the journal's originals of this target.
func (s *Session) originals() (map[key]FieldRec, map[key]string) {
	fr := map[key]FieldRec{}
	fs := map[key]string{}
	if s.o.Journal == "" {
		return fr, fs
	}
	j, err := Load(s.o.Journal)
	if err != nil {
		return fr, fs
	}
	e := j.Find(s.o.Target.Key())
	if e == nil {
		return fr, fs
	}
	for _, f := range e.Fields {
		fr[key{off: f.Offset, mask: f.Mask, kind: 'r'}] = f
	}
	for _, f := range e.Files {
		fs[key{name: f.Path, kind: 'f'}] = f.Original
	}
	for _, p := range e.ModParams {
		fs[key{name: p.Name, kind: 'p'}] = p.Original
	}
	return fr, fs
}

// dropRestored removes the journal records of this target whose item is
// back at its original value, and, for a long session with nothing of its
// own left changed, its registration.
func (s *Session) dropRestored() error {
	if s.o.Journal == "" {
		return nil
	}
	return Update(s.o.Journal, func(j *Journal) error {
		e := j.Find(s.o.Target.Key())
		if e == nil {
			return nil
		}
		e.prune(s.o.Acc, s.o.Host)
		if len(s.touched) == 0 || s.kept {
			e.Sessions = slices.DeleteFunc(e.Sessions, s.o.Owner.Same)
		}
		return nil
	})
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
		mod, param, _ := strings.Cut(p.Name, ".")
		v, err := h.ReadParam(mod, param)
		return err == nil && v == p.Original
	})
	if len(e.ModParams) == 0 && len(e.Files) == 0 {
		e.Reload = nil
	}
}

// Settle brings the journal and the session's own bookkeeping up to date
// after the caller put values back itself (a sweep returning to its
// starting point through Apply): records at their original are dropped,
// items back at their session-start value (or at their original) are no
// longer the session's changes, and a long session with none left is
// deregistered.
func (s *Session) Settle() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	origs, forigs := s.originals()
	s.touched = slices.DeleteFunc(s.touched, func(t *touch) bool {
		switch t.kind {
		case 'r':
			v, err := s.o.Acc.Read32(t.off)
			if err != nil {
				return false
			}
			fr, ok := origs[t.key]
			return v&t.mask == t.start || ok && v&t.mask == fr.Original
		case 'f':
			if s.o.Host == nil {
				return false
			}
			v, err := s.o.Host.ReadFile(t.name)
			return err == nil && (FileHolds(t.str, v) || FileHolds(forigs[t.key], v))
		default:
			mod, param, _ := strings.Cut(t.name, ".")
			v, err := s.readParam(mod, param)
			return err == nil && (v == t.str || v == forigs[t.key])
		}
	})
	return s.dropRestored()
}

// Keep ends a long session's ownership without restoring: its changes
// stay (as after `citune set`) until `citune restore`.
func (s *Session) Keep() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kept = true
	s.touched = nil
	return s.dropRestored()
}

// Halt undoes this process's changes (periph's conn.Resource): the quit
// and signal paths call it; it is safe to call more than once and from
// another goroutine than the one writing.
func (s *Session) Halt() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.halted || s.kept {
		return nil
	}
	s.halted = true
	if s.o.Owner.Kind == KindSet {
		// A set's change is meant to last until `citune restore`.
		return nil
	}
	_, err := s.restore(context.Background(), nil)
	return err
}

// Close releases the target's lock. A long session that still has
// changes of its own (its restore failed, or it was never called) stays
// registered, so the next session sees it as interrupted and `citune
// restore` puts the originals back.
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
