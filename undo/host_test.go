package undo

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
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
