package undo

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// What a session does when its journal is disturbed under it (doc.go):
// the journal is checked against the originals in memory at every update.

// ErrJournalChanged is wrapped when the journal no longer holds what the
// session recorded in it.
var ErrJournalChanged = errors.New("the journal changed under the session")

// Disturbance is how a journal changed under a session.
type Disturbance int

// Disturbances.
const (
	Vanished  Disturbance = iota + 1 // the file is gone
	Replaced                         // its save count went back
	Rewritten                        // the session's records are missing or hold other originals
	Damaged                          // it cannot be read as a journal
)

// JournalError says how the journal changed under a session and what the
// session did about it.
type JournalError struct {
	Journal string
	Target  TargetID
	What    Disturbance
	Detail  string // the records that went or changed, or the read error
	// Rewrote is true when the session wrote its in-memory originals
	// back to the journal (for `citune restore`, should the session be
	// killed); RewriteErr is why that failed.
	Rewrote    bool
	RewriteErr error
}

func (e *JournalError) Error() string {
	var s string
	switch e.What {
	case Vanished:
		s = fmt.Sprintf("the journal %s vanished under this session (deleted or moved away)", e.Journal)
	case Replaced:
		s = fmt.Sprintf("the journal %s was replaced under this session (%s)", e.Journal, e.Detail)
	case Rewritten:
		s = fmt.Sprintf("the journal %s was rewritten under this session: its records of %s do not hold what this session recorded (%s)", e.Journal, e.Target, e.Detail)
	default:
		s = fmt.Sprintf("the journal %s was damaged under this session (%s)", e.Journal, e.Detail)
	}
	s += "; stopping: what this session changed goes back to the originals it keeps in memory"
	switch {
	case e.Rewrote:
		s += " (written back to the journal meanwhile)"
	case e.RewriteErr != nil:
		s += fmt.Sprintf(" (writing them back to the journal failed: %v)", e.RewriteErr)
	case e.What == Damaged:
		s += " (the damaged file is left as it is)"
	}
	return s
}

func (e *JournalError) Unwrap() error { return ErrJournalChanged }

// adoptRec is an interrupted session's original.
type adoptRec struct {
	orig uint32
	str  string
}

// recorded lists the items whose records the journal must still hold.
func (s *Session) recorded() []*touch {
	var out []*touch
	for _, t := range s.touched {
		if t.journalled {
			out = append(out, t)
		}
	}
	return out
}

// withJournal runs fn on the journal under its exclusive lock after
// checking that it still holds what this session recorded, and saves
// when fn says so. A disturbed journal gets the session's records back
// from memory where it can be written (nothing of fn is saved), and the
// *JournalError is kept in s.lost.
func (s *Session) withJournal(fn func(j *Journal) bool) error {
	unlock, err := lockFile(s.o.Journal+".lock", lockEX)
	if err != nil {
		return err
	}
	defer unlock()
	j, err := loadFile(s.o.Journal)
	missing := errors.Is(err, errNoFile)
	if missing {
		j, err = &Journal{Version: Version}, nil
	}
	if err != nil {
		if len(s.recorded()) > 0 {
			s.lost = &JournalError{Journal: s.o.Journal, Target: s.o.Target, What: Damaged, Detail: err.Error()}
			return s.lost
		}
		return err
	}
	if je := s.verify(j, missing); je != nil {
		s.repair(j)
		if err := j.save(s.o.Journal); err != nil {
			je.RewriteErr = err
		} else {
			je.Rewrote = true
			s.lastSeq = j.Seq
		}
		s.keepCopy()
		s.lost = je
		return je
	}
	if fn(j) {
		if err := j.save(s.o.Journal); err != nil {
			return err
		}
	}
	s.lastSeq = j.Seq
	return nil
}

// keepCopy writes a long session's records, from memory, into its lock
// file too (holderFile): a safety net beside the journal, so callers go
// on when it fails.
func (s *Session) keepCopy() error {
	if !s.o.Owner.Kind.Long() {
		return nil
	}
	var e *Entry
	if len(s.recorded()) > 0 {
		j := &Journal{}
		s.repair(j)
		e = &j.Entries[0]
		e.Sessions = nil
	}
	return s.lk.keep(s.o.Owner, e)
}

// verify compares the journal with what the session recorded in it.
func (s *Session) verify(j *Journal, missing bool) *JournalError {
	recs := s.recorded()
	if len(recs) == 0 {
		return nil
	}
	je := &JournalError{Journal: s.o.Journal, Target: s.o.Target}
	switch {
	case missing:
		je.What = Vanished
	case j.Seq < s.lastSeq:
		je.What = Replaced
		je.Detail = fmt.Sprintf("its save count went back from %d to %d", s.lastSeq, j.Seq)
	}
	e := j.Find(s.o.Target.Key())
	var bad []string
	for _, t := range recs {
		if e == nil || !e.holds(t) {
			bad = append(bad, t.label)
		}
	}
	if s.o.Owner.Kind.Long() && (e == nil || !slices.ContainsFunc(e.Sessions, s.o.Owner.Same)) {
		bad = append(bad, "this session's registration")
	}
	if je.What == 0 && len(bad) > 0 {
		je.What = Rewritten
		je.Detail = strings.Join(bad, ", ")
	}
	if je.What == 0 {
		return nil
	}
	return je
}

// holds reports whether e records t with the original the session keeps.
func (e *Entry) holds(t *touch) bool {
	switch t.kind {
	case 'r':
		return slices.ContainsFunc(e.Fields, func(f FieldRec) bool {
			return f.Offset == t.off && f.Mask == t.mask && f.Original == t.orig
		})
	case 'f':
		return slices.ContainsFunc(e.Files, func(f FileRec) bool { return f.Path == t.name && f.Original == t.origStr })
	}
	return slices.ContainsFunc(e.ModParams, func(p ParamRec) bool { return p.Name == t.name && p.Original == t.origStr })
}

// repair writes the session's records into j from memory, replacing other
// originals of the same items.
func (s *Session) repair(j *Journal) {
	e := s.entry(j)
	now := time.Now().UTC()
	for _, t := range s.recorded() {
		switch t.kind {
		case 'r':
			fr := FieldRec{Register: t.ref.Reg.Name, Offset: t.off, Mask: t.mask, Original: t.orig, Written: t.written, By: s.o.Owner, Time: now}
			if t.ref.Field != nil {
				fr.Field = t.ref.Field.Name
			}
			e.Fields = slices.DeleteFunc(e.Fields, func(f FieldRec) bool { return f.Offset == t.off && f.Mask == t.mask })
			e.Fields = append(e.Fields, fr)
		case 'f':
			e.Files = slices.DeleteFunc(e.Files, func(f FileRec) bool { return f.Path == t.name })
			e.Files = append(e.Files, FileRec{Path: t.name, Original: t.origStr, By: s.o.Owner, Time: now})
		default:
			e.ModParams = slices.DeleteFunc(e.ModParams, func(p ParamRec) bool { return p.Name == t.name })
			e.ModParams = append(e.ModParams, ParamRec{Name: t.name, Original: t.origStr, By: s.o.Owner, Time: now})
		}
	}
	if s.o.Reload != nil && (len(e.Files) > 0 || len(e.ModParams) > 0) {
		e.Reload = s.o.Reload
	}
}

// Check verifies that the journal still holds what the session recorded
// (a long session calls it before each step), else the *JournalError.
func (s *Session) Check() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.o.Journal == "" {
		return nil
	}
	if s.lost != nil {
		return s.lost
	}
	if len(s.recorded()) == 0 {
		return nil
	}
	return s.withJournal(func(*Journal) bool { return false })
}

// restoring reports whether writing bits to the item k only returns it
// to where the session found it.
func (s *Session) restoring(k key, bits uint32) bool {
	for _, t := range s.touched {
		if t.key == k {
			a, ok := s.adopted[k]
			return ok && bits == a.orig || bits == t.start
		}
	}
	return false
}

// Lost is the *JournalError that stopped the session, or nil.
func (s *Session) Lost() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lost == nil {
		return nil
	}
	return s.lost
}
