package tui

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/citune/citune/undo"
)

// The journal deleted under a TUI session: the next change is refused,
// the session stops by itself, restores from the originals it keeps in
// memory and says why.
func TestJournalLostStopsSession(t *testing.T) {
	dir := t.TempDir()
	journal := filepath.Join(dir, "journal.json")
	img := filepath.Join(dir, "regs.bin")
	if err := os.WriteFile(img, make([]byte, 0x200), 0o600); err != nil {
		t.Fatal(err)
	}
	id, err := undo.File(img) // a journalled target, reached through the simulator
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, false, func(c *Config) {
		u, err := undo.Open(undo.Options{Journal: journal, Target: id, Owner: undo.Self(undo.KindTUI, nil),
			Acc: c.Target.Accessor(), Map: c.Target.Profile.Map})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { u.Close() })
		c.Undo = testUndo{u}
	})
	itc, burst := e.startField("USBCMD.ITC"), e.startField("SBUSCFG.AHBBRST")
	e.setEdit("USBCMD.ITC", 0)
	if e.field("USBCMD.ITC") != 0 {
		t.Fatal("ITC not written")
	}
	if err := os.Remove(journal); err != nil {
		t.Fatal(err)
	}
	e.setEdit("SBUSCFG.AHBBRST", 3)
	out := e.m.Outcome()
	if !e.quit || !errors.Is(out.Stopped, undo.ErrJournalChanged) || !out.Restored || out.Err != nil {
		t.Fatalf("after the journal vanished: quit %v, outcome %+v", e.quit, out)
	}
	if e.field("USBCMD.ITC") != itc || e.field("SBUSCFG.AHBBRST") != burst {
		t.Errorf("ITC %d AHBBRST %d, want %d and %d", e.field("USBCMD.ITC"), e.field("SBUSCFG.AHBBRST"), itc, burst)
	}
}
