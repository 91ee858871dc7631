package undo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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
	// locks stands in for SystemLocks (/run/citune).
	locks string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	m := regs.ChipIdea()
	return &fixture{m: m, acc: &lockedAcc{s: sim.New(sim.Config{Map: m, Size: 0x200})},
		journal: filepath.Join(t.TempDir(), "journal.json"), id: DevMem(0x2184200), locks: t.TempDir()}
}

func (f *fixture) open(t *testing.T, k Kind, mod func(*Options)) (*Session, error) {
	t.Helper()
	o := Options{Journal: f.journal, Target: f.id, Profile: "imx6q", Controller: "usbh1", Owner: Self(k, []string{"citune", string(k)}),
		Acc: f.acc, Map: f.m, TargetLocks: f.locks}
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
	r, err := Open(Options{Journal: f.journal, Target: f.id, Owner: Self(KindRestore, nil), Acc: acc, Map: f.m, TargetLocks: f.locks})
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
