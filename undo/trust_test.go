package undo

// The journal disturbed under a session: deleted, truncated, replaced by
// an older copy, rewritten. The session's in-memory originals win.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

func fieldRec(t *testing.T, f *fixture, name string) (FieldRec, bool) {
	t.Helper()
	for _, fr := range mustEntry(t, f).Fields {
		if fr.Name() == name {
			return fr, true
		}
	}
	return FieldRec{}, false
}

func disturbed(t *testing.T, err error, want Disturbance) *JournalError {
	t.Helper()
	var je *JournalError
	if !errors.As(err, &je) || !errors.Is(err, ErrJournalChanged) || je.What != want {
		t.Fatalf("error %v, want a JournalError of kind %d", err, want)
	}
	return je
}

// Deleted under a sweep: the next change is refused (nothing written),
// the journal is written again from memory with the true original (not
// the sweep's own value), so a kill -9 now still leaves `citune restore`
// what it needs; the session's restore works from memory.
func TestJournalDeletedUnderSession(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, func(o *Options) { o.Owner = deadOwner(t, KindSweep) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f.journal); err != nil {
		t.Fatal(err)
	}
	_, err = s.Apply([]regs.Change{f.change(t, "ITC=16"), f.change(t, "AHBBRST=0")})
	je := disturbed(t, err, Vanished)
	if !je.Rewrote || !strings.Contains(err.Error(), "vanished") || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("error %q", err)
	}
	if f.field(t, "ITC") != 64 || f.field(t, "AHBBRST") != 2 {
		t.Errorf("written after the journal vanished: ITC %d, AHBBRST %d", f.field(t, "ITC"), f.field(t, "AHBBRST"))
	}
	if fr, ok := fieldRec(t, f, "USBCMD.ITC"); !ok || fr.Original != 8<<16 {
		t.Errorf("journal written again with ITC %+v (ok %v), want the original 8", fr, ok)
	}
	// Everything else is refused now, a return to the start is not.
	if err := s.RecordFile(maxSectors, "120"); !errors.Is(err, ErrJournalChanged) {
		t.Errorf("recording a file after the journal vanished: %v", err)
	}
	// kill -9 here: `citune restore` puts the original back.
	s.lk.release()
	r, err := f.open(t, KindRestore, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RestoreAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if f.field(t, "ITC") != 8 {
		t.Errorf("ITC %d after citune restore, want 8", f.field(t, "ITC"))
	}
	if _, err := os.Stat(f.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal after the restore: %v", err)
	}
}

// Deleted, then the session's own change of an item it changed already:
// the original it records is its own memory, never the register's
// current value (the session's earlier write).
func TestSessionNeverRecordsItsOwnValue(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	// The session's records pruned (back at the original for a moment),
	// then changed again: still the first original.
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=8")}); err != nil {
		t.Fatal(err)
	}
	if err := s.dropRestored(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=32")}); err != nil {
		t.Fatal(err)
	}
	if fr, ok := fieldRec(t, f, "USBCMD.ITC"); !ok || fr.Original != 8<<16 {
		t.Errorf("ITC record %+v, want the original 8", fr)
	}
}

// Truncated under a session (not killed): the next change is refused,
// the session restores from memory without the journal, its restore
// succeeds and the damaged file is left as it is.
func TestJournalTruncatedUnderSession(t *testing.T) {
	for name, damage := range map[string][]byte{"empty": nil, "cut": []byte(`{"version":2,"entr`), "other version": []byte(`{"version":9}`)} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			s, err := f.open(t, KindSweep, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64"), f.change(t, "AHBBRST=0")}); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.journal, damage, 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = s.Apply([]regs.Change{f.change(t, "ITC=16")})
			if je := disturbed(t, err, Damaged); !strings.Contains(je.Error(), "left as it is") {
				t.Errorf("error %q", err)
			}
			if f.field(t, "ITC") != 64 {
				t.Errorf("ITC %d written after the journal was damaged", f.field(t, "ITC"))
			}
			// The sweep's own return to its start (through Apply) is
			// still written; then Settle; or Restore.
			if _, err := s.Apply([]regs.Change{f.change(t, "AHBBRST=2")}); err != nil || f.field(t, "AHBBRST") != 2 {
				t.Errorf("return to the start after the journal was damaged: %v, AHBBRST %d", err, f.field(t, "AHBBRST"))
			}
			if _, err := s.Restore(context.Background()); err != nil {
				t.Errorf("restore from memory: %v", err)
			}
			if err := s.Settle(); err != nil {
				t.Errorf("settle: %v", err)
			}
			if f.field(t, "ITC") != 8 || f.field(t, "AHBBRST") != 2 {
				t.Errorf("after the restore: ITC %d AHBBRST %d", f.field(t, "ITC"), f.field(t, "AHBBRST"))
			}
			if b, _ := os.ReadFile(f.journal); string(b) != string(damage) {
				t.Errorf("damaged journal rewritten: %q", b)
			}
			if s.Lost() == nil {
				t.Error("Lost is nil")
			}
			// Everything is back: the lock file's copy holds nothing a
			// later session would take for a killed one's records.
			if b, _ := os.ReadFile(lockPath(f.journal, f.id)); strings.Contains(string(b), `"entry"`) {
				t.Errorf("lock file after the restore from memory: %s", b)
			}
		})
	}
}

// Replaced by an older copy of itself: its save count went back. The
// session's records are written back.
func TestJournalReplacedUnderSession(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "AHBBRST=0")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatalf("check of an undisturbed journal: %v", err)
	}
	if err := os.WriteFile(f.journal, old, 0o600); err != nil {
		t.Fatal(err)
	}
	disturbed(t, s.Check(), Replaced)
	if fr, ok := fieldRec(t, f, "SBUSCFG.AHBBRST"); !ok || fr.Original != 2 {
		t.Errorf("AHBBRST not written back: %+v", fr)
	}
	if _, err := s.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.field(t, "ITC") != 8 || f.field(t, "AHBBRST") != 2 {
		t.Errorf("after the restore: ITC %d AHBBRST %d", f.field(t, "ITC"), f.field(t, "AHBBRST"))
	}
	if j, err := Load(f.journal); err != nil || len(j.Entries) != 0 {
		t.Errorf("journal after the restore: %+v, %v", j, err)
	}
}

// Rewritten with another original (a planted value, the save count
// kept going): named, and replaced by the session's own.
func TestJournalRewrittenUnderSession(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindTUI, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	err = Update(f.journal, func(j *Journal) error {
		j.Entries[0].Fields[0].Original = 64 << 16
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	je := disturbed(t, s.Check(), Rewritten)
	if !strings.Contains(je.Error(), "USBCMD.ITC") {
		t.Errorf("error does not name the field: %v", je)
	}
	b, _ := os.ReadFile(f.journal)
	var j Journal
	if err := json.Unmarshal(b, &j); err != nil || j.Entries[0].Fields[0].Original != 8<<16 {
		t.Errorf("journal not put right: %s", b)
	}
}

// Another process's legitimate updates of the same journal (a set on
// another target) are no disturbance.
func TestOtherWritersAreNoDisturbance(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	g := newFixture(t)
	g.journal = f.journal
	g.id = DevMem(0x2184400)
	o, err := g.open(t, KindSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Apply([]regs.Change{g.change(t, "ITC=1")}); err != nil {
		t.Fatal(err)
	}
	o.Close()
	if err := s.Check(); err != nil {
		t.Errorf("check after another target's set: %v", err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=16")}); err != nil {
		t.Errorf("apply after another target's set: %v", err)
	}
}

// Deleted under a sweep, and the sweep killed before it met the journal
// again: the copy of its records in its lock file gives `citune restore`
// the originals.
func TestJournalDeletedThenKilled(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, func(o *Options) { o.Owner = deadOwner(t, KindSweep) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64"), f.change(t, "AHBBRST=0")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=16")}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(f.journal); err != nil {
		t.Fatal(err)
	}
	s.lk.release() // kill -9
	// A new sweep is refused: the killed one's values are not originals.
	if _, err := f.open(t, KindSweep, nil); !errors.Is(err, ErrInterrupted) {
		t.Errorf("new sweep after the kill: %v, want ErrInterrupted", err)
	}
	r, err := f.open(t, KindRestore, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RestoreAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if f.field(t, "ITC") != 8 || f.field(t, "AHBBRST") != 2 {
		t.Errorf("after citune restore: ITC %d AHBBRST %d, want 8 and 2", f.field(t, "ITC"), f.field(t, "AHBBRST"))
	}
	if _, err := os.Stat(f.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal after the restore: %v", err)
	}
	// The restore's lock file no longer holds the killed sweep's records.
	s2, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatalf("sweep after the restore: %v", err)
	}
	s2.Close()
}

// A session that ends cleanly leaves no records in its lock file: a
// later journal deletion resurrects nothing.
func TestCleanEndLeavesNoCopy(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Nor a lock file at all: it is removed as it is released.
	if b, err := os.ReadFile(lockPath(f.journal, f.id)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after a clean end: %s, %v", b, err)
	}
}
