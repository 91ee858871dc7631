package undo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
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
	// Journal is the journal file; "" keeps none and takes no lock.
	Journal string
	Target  TargetID
	// Profile, ProfileFile and Controller label a new journal entry.
	Profile, ProfileFile, Controller string
	Owner                            Owner
	Acc                              regs.Accessor
	Map                              *regs.Map
	Host                             Host // files and module parameters (nil: none)
	// Reload is recorded with module parameters so that `citune restore`
	// can reload the stack after a crash.
	Reload *Reload
	// Force lets a short owner go on while a sweep or TUI owns the target.
	Force bool
	// AllowLive lets Apply write live-state fields (list addresses,
	// doorbells, run/stop, port control).
	AllowLive   bool
	TargetLocks string // the folder of /dev/mem targets' own locks ("": SystemLocks)
	// Adopt takes over the records of an interrupted session (a resumed
	// sweep): Restore returns them to their originals.
	Adopt bool
}

// ErrInterrupted is wrapped when a long session opens a target whose
// previous long session was killed (its values would be taken for
// originals).
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

// key names one recorded item: a register's bits, a file or a module
// parameter.
type key struct {
	off  uint32
	mask uint32
	name string // file path or module.param
	kind byte   // 'r', 'f', 'p'
}

// touch is what the session changed on one item: its value when the
// session first changed it (start, str: what Restore returns it to) and
// when (seq).
type touch struct {
	key
	ref   regs.Ref
	label string
	start uint32 // register bits under mask
	str   string // file content or parameter value
	seq   int
	// orig and origStr are the original the journal records (older than
	// start when a `set` changed it first), kept in memory so that the
	// session never takes a value it wrote for an original; journalled
	// says the journal holds it.
	orig       uint32
	origStr    string
	written    uint32
	journalled bool
}

// Session is one process's ownership of one target. It is safe for
// concurrent use: the signal path may Halt while another goroutine is
// blocked in a probe.
type Session struct {
	mu      sync.Mutex
	o       Options
	lk      *lock
	touched []*touch
	changes atomic.Pointer[Changes] // published after every change of touched
	seq     int
	adopted map[key]adoptRec
	halted  bool
	// lastSeq is the journal's save count when this session last read or
	// wrote it; lost is set once the journal was disturbed (trust.go).
	lastSeq  uint64
	lost     *JournalError
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
		return s, nil // no lock, no register records (doc.go)
	}
	lk, err := acquire(o.Journal, o.TargetLocks, o.Target, o.Owner, o.Force)
	if err != nil {
		return nil, err
	}
	if lk == nil {
		who := "another citune process (under another journal)"
		if h, ok := Holder(o.Journal, o.Target); ok {
			who = h.String()
		}
		s.warnings = append(s.warnings, fmt.Sprintf("forced: %s owns %s; this change goes under it and its end may undo it", who, o.Target))
	}
	s.lk = lk
	if !o.Owner.Kind.Long() {
		return s, nil
	}
	var seen *Journal
	err = Update(o.Journal, func(j *Journal) error {
		seen = j
		e := j.Find(o.Target.Key())
		if e == nil {
			return nil
		}
		if dead := e.Interrupted(); len(dead) > 0 && !o.Adopt {
			return &InterruptedError{Target: o.Target, Journal: o.Journal, Owners: dead}
		}
		if o.Adopt {
			// Read once, here, and kept in memory like the session's own.
			s.adopted = map[key]adoptRec{}
			for _, f := range e.Fields {
				s.adopted[key{off: f.Offset, mask: f.Mask, kind: 'r'}] = adoptRec{orig: f.Original}
			}
			for _, f := range e.Files {
				s.adopted[key{name: f.Path, kind: 'f'}] = adoptRec{str: f.Original}
			}
			for _, p := range e.ModParams {
				s.adopted[key{name: p.Name, kind: 'p'}] = adoptRec{str: p.Original}
			}
			e.Sessions = slices.DeleteFunc(e.Sessions, func(x Owner) bool { return !x.Alive() })
		}
		return nil
	})
	if err != nil {
		lk.release()
		return nil, err
	}
	s.lastSeq = seen.Seq
	return s, nil
}

// Warnings are what the session wants the user to know (a forced open).
func (s *Session) Warnings() []string { return s.warnings }

// Target is the session's target.
func (s *Session) Target() TargetID { return s.o.Target }

// Journal is the journal file that keeps this target's register
// originals ("" when none is kept).
func (s *Session) Journal() string {
	if s.o.Target.Kind == TargetSim {
		return ""
	}
	return s.o.Journal
}

// String describes the session's target (conn.Resource).
func (s *Session) String() string { return s.o.Target.String() }

// update runs fn on this target's journal entry (s.entry). The journal
// must still hold what this session recorded (trust.go): when it does
// not, nothing of fn is saved and the error is a *JournalError.
func (s *Session) update(fn func(e *Entry)) error {
	if s.o.Journal == "" {
		fn(&Entry{})
		return nil
	}
	if s.lost != nil {
		return s.lost
	}
	return s.withJournal(func(j *Journal) bool {
		fn(s.entry(j))
		return true
	})
}

// entry is this target's entry in j (created as needed), updated now,
// with a long session registered.
func (s *Session) entry(j *Journal) *Entry {
	now := time.Now().UTC()
	e := j.For(Entry{Target: s.o.Target, Profile: s.o.Profile, ProfileFile: s.o.ProfileFile, Controller: s.o.Controller, Created: now})
	e.Updated = now
	if s.o.Owner.Kind.Long() && !slices.ContainsFunc(e.Sessions, s.o.Owner.Same) {
		e.Sessions = append(e.Sessions, s.o.Owner)
	}
	return e
}

// Changes is a snapshot of the register fields a session changed, first
// changed first, with their values when it first changed them.
//
// Decision: the session publishes a new snapshot (an atomic pointer),
// read without its mutex, which is held across register I/O, flock and
// module reloads: the TUI's View reads it every frame and must not
// freeze while a restore runs.
type Changes struct {
	refs  []regs.Ref
	start []uint32 // register bits under the field's mask
}

// publish stores the snapshot of s.touched; s.mu is held.
func (s *Session) publish() {
	c := &Changes{}
	for _, t := range s.touched {
		if t.kind == 'r' {
			c.refs, c.start = append(c.refs, t.ref), append(c.start, t.start)
		}
	}
	s.changes.Store(c)
}

// Changes is the current snapshot; it takes no lock.
func (s *Session) Changes() *Changes {
	if c := s.changes.Load(); c != nil {
		return c
	}
	return &Changes{}
}

// Touched is Changes().Touched().
func (s *Session) Touched() []regs.Ref { return s.Changes().Touched() }

// StartValue is Changes().StartValue(ref).
func (s *Session) StartValue(ref regs.Ref) (uint32, bool) { return s.Changes().StartValue(ref) }

// Touched lists the register fields changed, first changed first.
func (c *Changes) Touched() []regs.Ref { return slices.Clone(c.refs) }

// StartValue is the value ref had when the session first changed it (ok
// false when it did not).
func (c *Changes) StartValue(ref regs.Ref) (uint32, bool) {
	for i, t := range c.refs {
		if t.Reg.Offset == ref.Reg.Offset && (ref.Field == nil && t.Field == nil || ref.Field != nil && t.Field != nil && strings.EqualFold(ref.Field.Name, t.Field.Name)) {
			if ref.Field != nil {
				return ref.Field.Get(c.start[i]), true
			}
			return c.start[i], true
		}
	}
	return 0, false
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
