package undo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/citune/citune/regs"
)

func TestParallelSetsLoseNothing(t *testing.T) {
	f := newFixture(t)
	changes := []string{"ITC=64", "AHBBRST=0", "TXPBURST=16", "RXPBURST=16", "SDIS=1", "TXSCHOH=4"}
	before := map[string]uint32{}
	for _, c := range changes {
		name, _, _ := strings.Cut(c, "=")
		before[name] = f.field(t, name)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(changes))
	for _, c := range changes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := f.open(t, KindSet, nil)
			if err != nil {
				errs <- err
				return
			}
			defer s.Close()
			if _, err := s.Apply([]regs.Change{f.change(t, c)}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	j, err := Load(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	e := j.Find(f.id.Key())
	if e == nil {
		t.Fatal("no journal entry")
	}
	for _, c := range changes {
		name, val, _ := strings.Cut(c, "=")
		if got := fmt.Sprint(f.field(t, name)); got != val {
			t.Errorf("%s reads %s, want %s", name, got, val)
		}
		found := false
		for _, fr := range e.Fields {
			if strings.EqualFold(fr.Field, name) {
				found = true
				ref, _ := f.m.Lookup(name)
				if ref.Field.Get(fr.Original) != before[name] {
					t.Errorf("%s original %d, want %d", name, ref.Field.Get(fr.Original), before[name])
				}
			}
		}
		if !found && before[name] != 0 || !found && val != "0" {
			if !found {
				t.Errorf("no original of %s in the journal", name)
			}
		}
	}
	if len(e.Changes) != len(changes) {
		t.Errorf("journal requests %v, want all %d", e.Changes, len(changes))
	}
	// Restore puts every field back.
	r, err := f.open(t, KindRestore, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RestoreAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.Close()
	for name, v := range before {
		if got := f.field(t, name); got != v {
			t.Errorf("after restore %s = %d, want %d", name, got, v)
		}
	}
	if _, err := os.Stat(f.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal still there after a full restore: %v", err)
	}
	assertNoTemp(t, filepath.Dir(f.journal))
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") || strings.HasPrefix(e.Name(), ".journal") {
			t.Errorf("stray temporary file %s", e.Name())
		}
	}
}

func TestSecondLongSessionRefusedNamingOwner(t *testing.T) {
	f := newFixture(t)
	s1, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s1.Close()
	for _, k := range []Kind{KindSweep, KindTUI, KindSet, KindRestore} {
		_, err := f.open(t, k, nil)
		var be *BusyError
		if !errors.As(err, &be) {
			t.Fatalf("%s during a sweep: %v, want busy", k, err)
		}
		if be.Holder.PID != os.Getpid() || be.Holder.Kind != KindSweep || !strings.Contains(err.Error(), "citune sweep (pid ") {
			t.Errorf("%s: busy error does not name the sweep: %v", k, err)
		}
	}
	// Forced, a set goes on (with a warning); a sweep never.
	s2, err := f.open(t, KindSet, func(o *Options) { o.Force = true })
	if err != nil {
		t.Fatal(err)
	}
	if len(s2.Warnings()) == 0 {
		t.Error("forced set gave no warning")
	}
	s2.Close()
	if _, err := f.open(t, KindSweep, func(o *Options) { o.Force = true }); !errors.Is(err, ErrBusy) {
		t.Errorf("forced sweep during a sweep: %v", err)
	}
	s1.Close()
	s3, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatalf("after the first sweep ended: %v", err)
	}
	s3.Close()
}

// deadOwner is the owner identity of a process that has exited.
func deadOwner(t *testing.T, k Kind) Owner {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true:", err)
	}
	o := Self(k, []string{"citune", string(k)})
	o.PID = cmd.Process.Pid
	return o
}

func TestInterruptedSessionBlocksNewSweepUntilRestoreOrAdopt(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSweep, func(o *Options) { o.Owner = deadOwner(t, KindSweep) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	s.lk.release() // killed: the kernel drops the lock; the registration stays
	_, err = f.open(t, KindSweep, nil)
	var ie *InterruptedError
	if !errors.As(err, &ie) || ie.Owners[0].PID != s.o.Owner.PID {
		t.Fatalf("new sweep over a killed one: %v", err)
	}
	// A resumed sweep adopts the records: its restore returns to the
	// original, not to the killed sweep's value.
	a, err := f.open(t, KindSweep, func(o *Options) { o.Adopt = true })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Apply([]regs.Change{f.change(t, "ITC=16")}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.Close()
	if got := f.field(t, "ITC"); got != 8 {
		t.Errorf("ITC after the adopted restore = %d, want the original 8", got)
	}
	if j, _ := Load(f.journal); len(j.Entries) != 0 {
		t.Errorf("journal after a full restore: %+v", j.Entries)
	}
}

func TestParseStat(t *testing.T) {
	st, err := parseStat("123 (a b) c)) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 424242 20 21")
	if err != nil || st != 424242 {
		t.Errorf("parseStat = %d, %v", st, err)
	}
	if _, err := parseStat("garbage"); err == nil {
		t.Error("garbage parsed")
	}
	me := Self(KindSet, nil)
	if !me.Alive() || me.Start == 0 {
		t.Errorf("this process is not alive: %+v", me)
	}
	other := me
	other.Start++
	if other.Alive() {
		t.Error("a reused pid with another start time counts as alive")
	}
}
