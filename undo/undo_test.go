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
	"github.com/citune/citune/soc/sim"
)

// lockedAcc serialises a simulated controller for goroutines (the real
// window is one load or store per access; the simulator's map is not safe
// for concurrent use).
type lockedAcc struct {
	mu sync.Mutex
	s  *sim.Sim
}

func (a *lockedAcc) Read32(off uint32) (uint32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.s.Read32(off)
}

func (a *lockedAcc) Write32(off, v uint32) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.s.Write32(off, v)
}

type fixture struct {
	m       *regs.Map
	acc     *lockedAcc
	journal string
	id      TargetID
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	m := regs.ChipIdea()
	return &fixture{m: m, acc: &lockedAcc{s: sim.New(sim.Config{Map: m, Size: 0x200})},
		journal: filepath.Join(t.TempDir(), "journal.json"), id: DevMem(0x2184200)}
}

func (f *fixture) open(t *testing.T, k Kind, mod func(*Options)) (*Session, error) {
	t.Helper()
	o := Options{Journal: f.journal, Target: f.id, Profile: "imx6q", Controller: "usbh1", Owner: Self(k, []string{"citune", string(k)}),
		Acc: f.acc, Map: f.m}
	if mod != nil {
		mod(&o)
	}
	return Open(o)
}

func (f *fixture) change(t *testing.T, s string) regs.Change {
	t.Helper()
	c, err := f.m.ParseChange(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) field(t *testing.T, name string) uint32 {
	t.Helper()
	ref, err := f.m.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := f.acc.Read32(ref.Reg.Offset)
	if ref.Field == nil {
		return v
	}
	return ref.Field.Get(v)
}

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

func TestRestoreTouchesOnlyRecordedBits(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The driver runs the controller meanwhile and a status bit is set.
	usbcmd := f.m.Register("USBCMD")
	v, _ := f.acc.Read32(usbcmd.Offset)
	f.acc.Write32(usbcmd.Offset, usbcmd.Field("RS").Put(usbcmd.Field("ASE").Put(v, 1), 1))
	r, err := f.open(t, KindRestore, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.RestoreAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.field(t, "ITC") != 8 || f.field(t, "USBCMD.RS") != 1 || f.field(t, "ASE") != 1 {
		t.Errorf("after restore ITC=%d RS=%d ASE=%d, want 8 1 1", f.field(t, "ITC"), f.field(t, "USBCMD.RS"), f.field(t, "ASE"))
	}
}

func TestLiveStateRefused(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []string{"ASYNCLISTADDR=0x1000", "USBSTS=0x1ff", "ENDPTPRIME=1", "IAA=1", "PORTSC1.PR=1", "USBCMD.RS=0", "ASE=0"} {
		if _, err := s.Apply([]regs.Change{f.change(t, c)}); !errors.Is(err, ErrLive) {
			t.Errorf("%s: %v, want ErrLive", c, err)
		}
	}
	if _, err := os.Stat(f.journal); err == nil {
		t.Error("a refused change was journalled")
	}
	// A whole-register write that keeps the live fields is fine.
	v, _ := f.acc.Read32(f.m.Register("USBCMD").Offset)
	if _, err := s.Apply([]regs.Change{{Ref: regs.Ref{Reg: f.m.Register("USBCMD")}, Value: f.m.Register("USBCMD").Field("ITC").Put(v, 16)}}); err != nil {
		t.Errorf("USBCMD with only ITC changed: %v", err)
	}
	s.Close()
	a, err := f.open(t, KindSet, func(o *Options) { o.AllowLive = true })
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Apply([]regs.Change{f.change(t, "PORTSC1.PR=1")}); err != nil {
		t.Errorf("with AllowLive: %v", err)
	}
}

func TestSymlinkedImageIsOneTarget(t *testing.T) {
	dir := t.TempDir()
	img := filepath.Join(dir, "a.img")
	if err := os.WriteFile(img, make([]byte, 0x200), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "b.img")
	if err := os.Symlink(img, link); err != nil {
		t.Fatal(err)
	}
	a, err := File(img)
	if err != nil {
		t.Fatal(err)
	}
	b, err := File(link)
	if err != nil {
		t.Fatal(err)
	}
	if a.Key() != b.Key() {
		t.Errorf("symlink gives another key: %s vs %s", a.Key(), b.Key())
	}
	if DevMem(0x2184200).Key() == DevMem(0x2184000).Key() {
		t.Error("two bases, one key")
	}
}

func TestSessionRestoreReturnsToSessionStart(t *testing.T) {
	f := newFixture(t)
	// An earlier set changed ITC; a sweep then changes it again and ends.
	set, _ := f.open(t, KindSet, nil)
	set.Apply([]regs.Change{f.change(t, "ITC=16")})
	set.Close()
	sw, err := f.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"ITC=1", "ITC=64", "AHBBRST=0"} {
		if _, err := sw.Apply([]regs.Change{f.change(t, v)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sw.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	sw.Close()
	if f.field(t, "ITC") != 16 || f.field(t, "AHBBRST") != 2 {
		t.Errorf("after the sweep ITC=%d AHBBRST=%d, want the set's 16 and 2", f.field(t, "ITC"), f.field(t, "AHBBRST"))
	}
	j, _ := Load(f.journal)
	e := j.Find(f.id.Key())
	if e == nil || len(e.Fields) != 1 || e.Fields[0].Field != "ITC" || len(e.Sessions) != 0 {
		t.Fatalf("journal after the sweep: %+v", j.Entries)
	}
	if f.m.Register("USBCMD").Field("ITC").Get(e.Fields[0].Original) != 8 {
		t.Errorf("the set's original was lost: %+v", e.Fields[0])
	}
}

func TestHaltIsIdempotentAndConcurrent(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t, KindTUI, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Apply([]regs.Change{f.change(t, "ITC=64")})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); s.Halt() }()
	}
	wg.Wait()
	if f.field(t, "ITC") != 8 {
		t.Errorf("ITC after Halt = %d", f.field(t, "ITC"))
	}
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=1")}); err == nil {
		t.Error("a halted session wrote")
	}
	s.Close()
}

func TestConvertV1(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.json")
	os.WriteFile(p, []byte(`{"version":1,"entries":[{"pid":1,"command":["citune","set"],"profile":"imx6q","controller":"usbh1","kind":"devmem","base":35144192,
	"registers":[{"name":"USBCMD","offset":320,"original":524288,"written":4194304}]}]}`), 0o644)
	j, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.Entries) != 1 || j.Entries[0].Target.Key() != DevMem(0x2184200).Key() || len(j.Entries[0].Fields) != 1 {
		t.Fatalf("converted: %+v", j.Entries)
	}
	fr := j.Entries[0].Fields[0]
	if fr.Mask != 0x00480000 || fr.Original != 0x00080000 {
		t.Errorf("record %+v", fr)
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

func TestJournalDamagedOrFuture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.json")
	os.WriteFile(path, []byte("{\"version\": 2, \"entries\": [ {"), 0o644)
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged journal: %v", err)
	}
	os.WriteFile(path, []byte(`{"version": 7}`), 0o644)
	if _, err := Load(path); err == nil {
		t.Error("future version loaded")
	}
	// A failed update saves nothing.
	os.WriteFile(path, []byte(`{"version": 2, "entries": []}`), 0o644)
	err := Update(path, func(j *Journal) error {
		j.Entries = append(j.Entries, Entry{Target: DevMem(1), Fields: []FieldRec{{Mask: 1}}})
		return errors.New("no")
	})
	if err == nil {
		t.Fatal("update error lost")
	}
	if b, _ := os.ReadFile(path); string(b) != `{"version": 2, "entries": []}` {
		t.Errorf("failed update wrote %s", b)
	}
}

func TestDefaultPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name string
		env  map[string]string
		uid  int
		want string
	}{
		{"override", map[string]string{"CITUNE_JOURNAL": "/tmp/j.json"}, 0, "/tmp/j.json"},
		{"root", nil, 0, "/var/lib/citune/journal.json"},
		{"xdg", map[string]string{"XDG_STATE_HOME": "/s", "HOME": "/h"}, 1000, "/s/citune/journal.json"},
		{"home", map[string]string{"HOME": "/h"}, 1000, "/h/.local/state/citune/journal.json"},
	} {
		if got := DefaultPath(env(tc.env), tc.uid); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// Restoring originals that a driver wrote (values citune would refuse
// from a user) and registers with W1C and never-set bits in the way.
func TestRestoreNeverWritesW1COrRST(t *testing.T) {
	f := newFixture(t)
	s, _ := f.open(t, KindSet, nil)
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64"), f.change(t, "TXPBURST=16")}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	// A status bit is pending and IAA rings while citune restores.
	f.acc.s.Seed(0x144, 0x0d)
	v, _ := f.acc.Read32(0x140)
	f.acc.s.Seed(0x140, v|0x40)
	var writes []uint32
	acc := &recAcc{Accessor: f.acc, w: &writes}
	r, err := Open(Options{Journal: f.journal, Target: f.id, Owner: Self(KindRestore, nil), Acc: acc, Map: f.m})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.RestoreAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, off := range writes {
		if off == 0x144 {
			t.Error("restore wrote USBSTS")
		}
	}
	if got, _ := f.acc.Read32(0x144); got != 0x0d {
		t.Errorf("USBSTS = %#x, want the pending bits kept", got)
	}
	if got := f.field(t, "USBCMD.RST"); got != 0 {
		t.Error("RST set")
	}
}

type recAcc struct {
	regs.Accessor
	w *[]uint32
}

func (a *recAcc) Write32(off, v uint32) error {
	*a.w = append(*a.w, off)
	return a.Accessor.Write32(off, v)
}

// TXFILLTUNING.TXSCHHEALTH is a counter any write clears: restoring the
// register's knob reads it back as 0, and that is not a value that failed
// to return (nor one citune records).
func TestRestoreIgnoresWriteClearedCounter(t *testing.T) {
	f := newFixture(t)
	f.acc.s.Seed(0x164, 0x00001f08) // health counter at 31
	s, _ := f.open(t, KindSweep, nil)
	rs, err := s.Apply([]regs.Change{f.change(t, "TXSCHOH=4")})
	if err != nil || !rs[0].Held() {
		t.Fatalf("apply: %v %+v", err, rs)
	}
	j, _ := Load(f.journal)
	for _, fr := range j.Entries[0].Fields {
		if fr.Field != "TXSCHOH" {
			t.Errorf("recorded %s", fr.Name())
		}
	}
	f.acc.s.Seed(0x164, f.acc.s.Peek(0x164)|0x1f00)
	if _, err := s.Restore(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if v, _ := f.acc.Read32(0x164); v&0xff != 0x08 {
		t.Errorf("TXFILLTUNING after restore = %#08x", v)
	}
}

// Reading a journal whose directory does not exist creates nothing.
func TestLoadCreatesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	j, err := Load(filepath.Join(dir, "journal.json"))
	if err != nil || len(j.Entries) != 0 {
		t.Fatalf("Load: %v %+v", err, j)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load created %s: %v", dir, err)
	}
}
