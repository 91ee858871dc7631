package undo

// Session life cycle: restore after a kill, settle, keep, revert, sim
// sessions, and what an unusable journal prevents.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// `citune restore` after a sweep was killed: every journalled parameter,
// file and field goes back to its original, the dead sweep's
// registration goes, and a new sweep may start.
func TestRestoreAllAfterKill(t *testing.T) {
	f := newFixture(t)
	h := newHost()
	dead, err := f.open(t, KindSweep, func(o *Options) { o.Owner, o.Host = deadOwner(t, KindSweep), h })
	if err != nil {
		t.Fatal(err)
	}
	changeHost(t, dead, h)
	if _, err := dead.Apply([]regs.Change{f.change(t, "ITC=64"), f.change(t, "AHBBRST=0")}); err != nil {
		t.Fatal(err)
	}
	dead.lk.release() // killed
	if _, err := f.open(t, KindSweep, nil); !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), f.journal) {
		t.Fatalf("new sweep over a killed one: %v, want ErrInterrupted naming the journal", err)
	}
	r, err := f.open(t, KindRestore, func(o *Options) { o.Host = h })
	if err != nil {
		t.Fatal(err)
	}
	rs, err := r.RestoreAll(context.Background())
	r.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 5 {
		t.Errorf("restored %+v, want 5 items", rs)
	}
	if h.files[maxSectors] != "120" || h.files[scheduler] != "[mq-deadline] none" || h.params[itcParam] != "0" ||
		f.field(t, "ITC") != 8 || f.field(t, "AHBBRST") != 2 {
		t.Errorf("after RestoreAll: files %v, params %v, ITC %d, AHBBRST %d", h.files, h.params, f.field(t, "ITC"), f.field(t, "AHBBRST"))
	}
	if j, _ := Load(f.journal); len(j.Entries) != 0 {
		t.Errorf("journal after RestoreAll: %+v", j.Entries)
	}
	s, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatalf("sweep after the restore: %v", err)
	}
	s.Close()

	// Nothing journalled, or no journal kept: nothing to do.
	r, _ = f.open(t, KindRestore, nil)
	if rs, err := r.RestoreAll(context.Background()); rs != nil || err != nil {
		t.Errorf("RestoreAll with an empty journal: %v, %v", rs, err)
	}
	r.Close()
	nj, _ := f.open(t, KindRestore, func(o *Options) { o.Journal = "" })
	if rs, err := nj.RestoreAll(context.Background()); rs != nil || err != nil {
		t.Errorf("RestoreAll without a journal: %v, %v", rs, err)
	}
}

// Settle: after the caller put values back itself, they are no longer
// the session's changes and their records go; what is still changed
// stays.
func TestSettle(t *testing.T) {
	f := newFixture(t)
	h := newHost()
	s, err := f.open(t, KindSweep, func(o *Options) { o.Host = h })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	changeHost(t, s, h)
	for _, c := range []string{"ITC=64", "AHBBRST=0", "ITC=8"} {
		if _, err := s.Apply([]regs.Change{f.change(t, c)}); err != nil {
			t.Fatal(err)
		}
	}
	h.WriteFile(maxSectors, "120")
	h.params[itcParam] = "0"
	if err := s.Settle(); err != nil {
		t.Fatal(err)
	}
	var touched []string
	for _, r := range s.Touched() {
		touched = append(touched, r.String())
	}
	if !slices.Equal(touched, []string{"SBUSCFG.AHBBRST"}) {
		t.Errorf("touched after settle %q, want AHBBRST only", touched)
	}
	e := mustEntry(t, f)
	if len(e.Fields) != 1 || e.Fields[0].Field != "AHBBRST" || len(e.Files) != 1 || e.Files[0].Path != scheduler || len(e.ModParams) != 0 || len(e.Sessions) != 1 {
		t.Errorf("journal after settle: %+v", e)
	}
	// Everything back: the session deregisters.
	h.WriteFile(scheduler, "mq-deadline")
	if _, err := s.Apply([]regs.Change{f.change(t, "AHBBRST=2")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Settle(); err != nil {
		t.Fatal(err)
	}
	if len(s.Touched()) != 0 {
		t.Errorf("touched %v after everything was put back", s.Touched())
	}
	if j, _ := Load(f.journal); len(j.Entries) != 0 {
		t.Errorf("journal after everything was put back: %+v", j.Entries)
	}
}

// Keep ends a long session leaving its values (as `citune set` would):
// the records stay for `citune restore`, the session deregisters, so the
// next sweep is not refused, and Halt no longer restores.
func TestKeep(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindTUI, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Keep(); err != nil {
		t.Fatal(err)
	}
	if err := s.Halt(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if f.field(t, "ITC") != 64 {
		t.Errorf("ITC = %d after Keep and Halt, want 64 kept", f.field(t, "ITC"))
	}
	e := mustEntry(t, f)
	if len(e.Fields) != 1 || len(e.Sessions) != 0 {
		t.Errorf("journal after Keep: %+v", e)
	}
	n, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatalf("a sweep after a kept TUI session: %v", err)
	}
	n.Close()
}

// Revert (the TUI's) restores only the fields asked for; the session
// still knows each other field's value at its first change.
func TestRevertAndStartValue(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindTUI, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []string{"ITC=64", "AHBBRST=0", "ITC=16"} {
		if _, err := s.Apply([]regs.Change{f.change(t, c)}); err != nil {
			t.Fatal(err)
		}
	}
	itc, burst := f.change(t, "ITC=0").Ref, f.change(t, "AHBBRST=0").Ref
	if got := s.Touched(); len(got) != 2 || got[0].String() != "USBCMD.ITC" || got[1].String() != "SBUSCFG.AHBBRST" {
		t.Errorf("Touched = %v, want ITC then AHBBRST (first changed first)", got)
	}
	if v, ok := s.StartValue(itc); !ok || v != 8 {
		t.Errorf("StartValue(ITC) = %d, %v; want 8", v, ok)
	}
	if v, ok := s.StartValue(regs.Ref{Reg: itc.Reg}); ok {
		t.Errorf("StartValue(USBCMD) = %d: the session changed fields, not the whole register", v)
	}
	rs, err := s.Revert([]regs.Ref{itc})
	if err != nil || len(rs) != 1 || rs[0].Name != "USBCMD.ITC" || !rs[0].Held {
		t.Fatalf("Revert = %+v, %v", rs, err)
	}
	if f.field(t, "ITC") != 8 || f.field(t, "AHBBRST") != 0 {
		t.Errorf("after revert ITC %d AHBBRST %d, want 8 and 0", f.field(t, "ITC"), f.field(t, "AHBBRST"))
	}
	if _, ok := s.StartValue(itc); ok {
		t.Error("ITC is still the session's change after its revert")
	}
	if v, ok := s.StartValue(burst); !ok || v != 2 {
		t.Errorf("StartValue(AHBBRST) = %d, %v; want 2", v, ok)
	}
	// Reverting a whole register reverts every field of it the session
	// changed.
	if _, err := s.Revert([]regs.Ref{{Reg: burst.Reg}}); err != nil || f.field(t, "AHBBRST") != 2 || len(s.Touched()) != 0 {
		t.Errorf("revert of SBUSCFG: %v, AHBBRST %d, touched %v", err, f.field(t, "AHBBRST"), s.Touched())
	}
}

// A simulated controller's registers are never journalled or locked;
// the files it changes on the machine are.
func TestSimSessionJournalsOnlyTheMachine(t *testing.T) {
	f := newFixture(t)
	f.id = Sim("usbh1")
	h := newHost()
	s, err := f.open(t, KindSweep, func(o *Options) { o.Host = h })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Journal() != "" || s.Target() != f.id || s.String() != "simulated usbh1" {
		t.Errorf("sim session: journal %q target %v string %q", s.Journal(), s.Target(), s)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a simulated register change made a journal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(f.journal), "locks")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a simulated session took a lock: %v", err)
	}
	if err := s.RecordFile(maxSectors, "120"); err != nil {
		t.Fatal(err)
	}
	if e := mustEntry(t, f); len(e.Files) != 1 || len(e.Fields) != 0 {
		t.Errorf("journal of a simulated sweep: %+v", e)
	}
	// A second simulated session on the same controller is not refused.
	s2, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatalf("second simulated session: %v", err)
	}
	s2.Close()
}

// Targets are named for people by their identity.
func TestTargetNames(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "regs.img")
	if err := os.WriteFile(img, make([]byte, 16), 0o644); err != nil {
		t.Fatal(err)
	}
	id, err := File(img)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{DevMem(0x2184200).String(), id.String(), Sim("usbh1").String()}
	want := []string{"/dev/mem 0x02184200", "image " + img, "simulated usbh1"}
	if !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if _, err := File(filepath.Join(dir, "none.img")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("File of a missing image: %v", err)
	}
	keys := map[string]bool{DevMem(1).Key(): true, id.Key(): true, Sim("a").Key(): true, Sim("b").Key(): true}
	if len(keys) != 4 {
		t.Errorf("keys not distinct: %v", keys)
	}
}

// FileHolds: a selector file holds the bracketed choice.
func TestFileHolds(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"120", "120\n", true},
		{"none", "mq-deadline [none]", true},
		{"none", "[mq-deadline] none", false},
		{"12", "120", false},
	} {
		if FileHolds(c.want, c.got) != c.ok {
			t.Errorf("FileHolds(%q, %q) = %v", c.want, c.got, !c.ok)
		}
	}
}

// Without a usable journal nothing is written: a change that could not
// be undone after a crash is not made.
func TestUnusableJournalWritesNothing(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The journal's place turns into something that cannot be read as a
	// file (here a directory).
	if err := os.Mkdir(f.journal, 0o755); err != nil {
		t.Fatal(err)
	}
	var writes []uint32
	s.o.Acc = &recAcc{Accessor: f.acc, w: &writes}
	_, err = s.Apply([]regs.Change{f.change(t, "ITC=64")})
	if !errors.Is(err, ErrStore) || !strings.Contains(err.Error(), "nothing written") {
		t.Errorf("apply with an unusable journal: %v, want ErrStore and \"nothing written\"", err)
	}
	if len(writes) != 0 || f.field(t, "ITC") != 8 {
		t.Errorf("wrote %v; ITC %d", writes, f.field(t, "ITC"))
	}
	if err := s.RecordFile(maxSectors, "120"); !errors.Is(err, ErrStore) {
		t.Errorf("recording a file with an unusable journal: %v", err)
	}
	if _, err := Load(f.journal); !errors.Is(err, ErrStore) {
		t.Errorf("Load of an unusable journal: %v", err)
	}
}

// A set of the value a field holds already stores nothing (only what
// was asked is written), is read back, and leaves no journal entry (the
// journal says what differs from before citune); a set that changes
// something keeps its requests for `citune verify`.
func TestSetOfCurrentValueWritesNothing(t *testing.T) {
	f := newFixture(t)
	var writes []uint32
	s, err := f.open(t, KindSet, func(o *Options) { o.Acc = &recAcc{Accessor: f.acc, w: &writes} })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rs, err := s.Apply([]regs.Change{f.change(t, "ITC=8")})
	if err != nil || len(rs) != 1 || !rs[0].Held() || len(writes) != 0 {
		t.Fatalf("apply of the current value: %+v, %v, writes %v", rs, err, writes)
	}
	if j, err := Load(f.journal); err != nil || len(j.Entries) != 0 {
		t.Errorf("journal after a set that changed nothing: %+v, %v", j, err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=16"), f.change(t, "AHBBRST=0")}); err != nil {
		t.Fatal(err)
	}
	// A later request for the same field replaces the earlier one.
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	if e := mustEntry(t, f); !slices.Equal(e.Changes, []string{"SBUSCFG.AHBBRST=0", "USBCMD.ITC=64"}) {
		t.Errorf("changes %q", e.Changes)
	}
}
