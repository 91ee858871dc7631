package undo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// fakeHost is a machine's sysfs files and module parameters. A selector
// file ("[mq-deadline] none") moves its brackets when written; a stuck
// file ignores writes; RestoreParams records one reload per call.
type fakeHost struct {
	files    map[string]string
	params   map[string]string // module.param
	stuck    map[string]bool
	reloadEr error
	log      []string
}

func newHost() *fakeHost {
	return &fakeHost{
		files: map[string]string{
			"/sys/block/sda/queue/max_sectors_kb": "120",
			"/sys/block/sda/queue/scheduler":      "[mq-deadline] none",
		},
		params: map[string]string{"ehci_hcd.log2_irq_thresh": "0", "ehci_hcd.park": "3"},
		stuck:  map[string]bool{},
	}
}

func (h *fakeHost) ReadFile(p string) (string, error) {
	v, ok := h.files[p]
	if !ok {
		return "", fmt.Errorf("open %s: %w", p, os.ErrNotExist)
	}
	return v, nil
}

func (h *fakeHost) WriteFile(p, v string) error {
	cur, ok := h.files[p]
	if !ok {
		return fmt.Errorf("open %s: %w", p, os.ErrNotExist)
	}
	h.log = append(h.log, "write "+p+"="+v)
	if h.stuck[p] {
		return nil
	}
	if strings.Contains(cur, "[") {
		var out []string
		for _, c := range strings.Fields(strings.NewReplacer("[", "", "]", "").Replace(cur)) {
			if c == v {
				c = "[" + c + "]"
			}
			out = append(out, c)
		}
		v = strings.Join(out, " ")
	}
	h.files[p] = v
	return nil
}

func (h *fakeHost) ReadParam(mod, param string) (string, error) {
	v, ok := h.params[mod+"."+param]
	if !ok {
		return "", fmt.Errorf("%s.%s: %w", mod, param, os.ErrNotExist)
	}
	return v, nil
}

func (h *fakeHost) RestoreParams(_ context.Context, ps map[string]string) error {
	keys := slices.Sorted(maps.Keys(ps))
	var kv []string
	for _, k := range keys {
		kv = append(kv, k+"="+ps[k])
	}
	h.log = append(h.log, "reload "+strings.Join(kv, " "))
	if h.reloadEr != nil {
		return h.reloadEr
	}
	maps.Copy(h.params, ps)
	return nil
}

const (
	maxSectors = "/sys/block/sda/queue/max_sectors_kb"
	scheduler  = "/sys/block/sda/queue/scheduler"
	itcParam   = "ehci_hcd.log2_irq_thresh"
)

// change makes what a sweep makes on the machine: each original is
// recorded before the change.
func changeHost(t *testing.T, s *Session, h *fakeHost) {
	t.Helper()
	if err := s.RecordFile(maxSectors, "120"); err != nil {
		t.Fatal(err)
	}
	h.WriteFile(maxSectors, "512")
	if err := s.RecordModParam(itcParam, "0"); err != nil {
		t.Fatal(err)
	}
	h.RestoreParams(context.Background(), map[string]string{itcParam: "3"})
	if err := s.RecordFile(scheduler, "mq-deadline"); err != nil {
		t.Fatal(err)
	}
	h.WriteFile(scheduler, "none")
	h.log = nil
}

// A sweep's files and module parameters are journalled with the reload
// that puts them back, and its end restores them: parameters first (one
// reload: it resets the controller), then files newest first, then
// registers; the journal is left empty.
func TestRestoreFilesAndParams(t *testing.T) {
	f := newFixture(t)
	h := newHost()
	rl := &Reload{Root: "/", Modules: []string{"ci_hdrc_imx", "ehci_hcd"}, Wait: "/dev/sda"}
	s, err := f.open(t, KindSweep, func(o *Options) { o.Host, o.Reload = h, rl })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	changeHost(t, s, h)
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	// The same file changed again keeps its first original, and is now
	// the newest change.
	if err := s.RecordFile(maxSectors, "512"); err != nil {
		t.Fatal(err)
	}
	j, err := Load(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	e := j.Find(f.id.Key())
	if e == nil || len(e.Files) != 2 || e.Files[0].Original != "120" || len(e.ModParams) != 1 || e.ModParams[0].Original != "0" ||
		e.Reload == nil || !slices.Equal(e.Reload.Modules, rl.Modules) || len(e.Fields) != 1 || len(e.Sessions) != 1 {
		t.Fatalf("journal entry %+v", e)
	}

	rs, err := s.Restore(context.Background())
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	wantLog := []string{"reload " + itcParam + "=0", "write " + maxSectors + "=120", "write " + scheduler + "=mq-deadline"}
	if !slices.Equal(h.log, wantLog) {
		t.Errorf("host operations %q, want %q", h.log, wantLog)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.String())
		if !r.Held || !r.Wrote {
			t.Errorf("%+v not held or not written", r)
		}
	}
	if want := []string{itcParam + " = 0", maxSectors + " = 120", scheduler + " = mq-deadline", "USBCMD.ITC = 8"}; !slices.Equal(names, want) {
		t.Errorf("restored %q, want %q", names, want)
	}
	if h.files[maxSectors] != "120" || h.files[scheduler] != "[mq-deadline] none" || h.params[itcParam] != "0" || f.field(t, "ITC") != 8 {
		t.Errorf("after restore: files %v, params %v, ITC %d", h.files, h.params, f.field(t, "ITC"))
	}
	if j, _ := Load(f.journal); len(j.Entries) != 0 {
		t.Errorf("journal after a full restore: %+v", j.Entries)
	}
	// Nothing is left to do: a second restore changes nothing.
	h.log = nil
	if rs, err := s.Restore(context.Background()); err != nil || len(rs) != 0 || len(h.log) != 0 {
		t.Errorf("second restore: %v, %v, host %q", rs, err, h.log)
	}
}

// What cannot be put back stays in the journal (for `citune restore`)
// and the error names it: a file that does not take the value, a reload
// that fails, files or parameters with no host to restore them.
func TestRestoreFailuresKeepRecords(t *testing.T) {
	f := newFixture(t)
	h := newHost()
	s, err := f.open(t, KindSweep, func(o *Options) { o.Host = h })
	if err != nil {
		t.Fatal(err)
	}
	changeHost(t, s, h)
	h.stuck[maxSectors] = true
	h.reloadEr = errors.New("modprobe: ERROR: could not insert 'ehci_hcd'")
	_, err = s.Restore(context.Background())
	if err == nil || !strings.Contains(err.Error(), "could not insert") ||
		!strings.Contains(err.Error(), "some values did not return: "+maxSectors+": wrote 120, reads 512") {
		t.Errorf("restore error %v", err)
	}
	if h.files[scheduler] != "[mq-deadline] none" {
		t.Errorf("the scheduler, which could be restored, reads %q", h.files[scheduler])
	}
	e := mustEntry(t, f)
	if len(e.Files) != 1 || e.Files[0].Path != maxSectors || len(e.ModParams) != 1 || len(e.Sessions) != 1 {
		t.Errorf("journal after a failed restore: %+v", e)
	}
	s.Close()
	// Closed with changes left, the session stays registered: once its
	// process is gone, the next sweep sees it as interrupted.
	if e := mustEntry(t, f); len(e.Sessions) != 1 {
		t.Errorf("sessions after closing with changes left: %+v", e.Sessions)
	}

	g := newFixture(t)
	bare, err := g.open(t, KindSweep, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bare.Close()
	if err := bare.RecordFile(maxSectors, "120"); err != nil {
		t.Fatal(err)
	}
	if err := bare.RecordModParam(itcParam, "0"); err != nil {
		t.Fatal(err)
	}
	_, err = bare.Restore(context.Background())
	if err == nil || !strings.Contains(err.Error(), maxSectors+": no host to restore files") ||
		!strings.Contains(err.Error(), "module parameters to restore but no module loader") {
		t.Errorf("restore without a host: %v", err)
	}
	if e := mustEntry(t, g); len(e.Files) != 1 || len(e.ModParams) != 1 {
		t.Errorf("records dropped although nothing was restored: %+v", e)
	}
}

func mustEntry(t *testing.T, f *fixture) *Entry {
	t.Helper()
	j, err := Load(f.journal)
	if err != nil {
		t.Fatal(err)
	}
	e := j.Find(f.id.Key())
	if e == nil {
		t.Fatal("no journal entry")
	}
	return e
}

// A parameter that is at its value already costs no reload (a reload
// resets the controller), and says it was back already.
func TestParamAlreadyBackNoReload(t *testing.T) {
	f := newFixture(t)
	h := newHost()
	s, err := f.open(t, KindTUI, func(o *Options) { o.Host = h })
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RecordModParam("ehci_hcd.park", "3"); err != nil {
		t.Fatal(err)
	}
	// The reload with the new value failed: the parameter never changed.
	rs, err := s.Restore(context.Background())
	if err != nil || len(rs) != 1 || rs[0].Wrote || rs[0].String() != "ehci_hcd.park = 3 (already)" || len(h.log) != 0 {
		t.Errorf("restore %+v, %v, host %q", rs, err, h.log)
	}
}

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
