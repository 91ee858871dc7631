package soc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc/sim"
)

func TestJournalKeepsFirstOriginals(t *testing.T) {
	m := regs.ChipIdea()
	usbcmd := m.Register("USBCMD")
	path := filepath.Join(t.TempDir(), "sub", "journal.json")
	e := Entry{Profile: "imx6q", Controller: "usbh1", Kind: KindFile, Path: "/x/regs.bin"}

	j, err := LoadJournal(path)
	if err != nil || len(j.Entries) != 0 {
		t.Fatalf("missing journal: %v, %v", j, err)
	}
	j.Upsert(e).RecordWrites([]regs.Write{{Reg: usbcmd, Old: 0x00080000, New: 0x00000000}})
	if err := j.Save(path); err != nil {
		t.Fatal(err)
	}
	j2, err := LoadJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j2.Upsert(e).RecordWrites([]regs.Write{{Reg: usbcmd, Old: 0x00000000, New: 0x00400000}})
	j2.Upsert(e).RecordFile("/sys/block/sda/queue/max_sectors_kb", "120")
	j2.Upsert(e).RecordFile("/sys/block/sda/queue/max_sectors_kb", "64")
	j2.Upsert(e).RecordModParam("ehci_hcd.log2_irq_thresh", "0")
	if err := j2.Save(path); err != nil {
		t.Fatal(err)
	}
	j3, _ := LoadJournal(path)
	if len(j3.Entries) != 1 {
		t.Fatalf("entries = %d", len(j3.Entries))
	}
	got := j3.Entries[0]
	if len(got.Registers) != 1 || got.Registers[0].Original != 0x00080000 || got.Registers[0].Written != 0x00400000 {
		t.Errorf("registers = %+v, want first original 0x00080000 and last written 0x00400000", got.Registers)
	}
	if len(got.Files) != 1 || got.Files[0].Original != "120" {
		t.Errorf("files = %+v", got.Files)
	}
	if len(got.ModParams) != 1 {
		t.Errorf("modparams = %+v", got.ModParams)
	}
	j3.Remove(got.Key())
	if err := j3.Save(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("empty journal not removed: %v", err)
	}
}

func TestJournalDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "journal.json")
	os.WriteFile(path, []byte("{\"version\": 1, \"entries\": [ {"), 0o644)
	if _, err := LoadJournal(path); err == nil {
		t.Error("damaged journal loaded")
	}
	os.WriteFile(path, []byte(`{"version": 7}`), 0o644)
	if _, err := LoadJournal(path); err == nil {
		t.Error("future version loaded")
	}
}

func TestDefaultJournalPath(t *testing.T) {
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
		if got := DefaultJournalPath(env(tc.env), tc.uid); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestRestoreRegistersNeverWritesW1COrRST(t *testing.T) {
	m := regs.ChipIdea()
	s := sim.New(sim.Config{Map: m, Size: 0x200})
	// originals as recorded: USBCMD with IAA and RST bits (as a racing
	// read could see them) and a BURSTSIZE value.
	s.Write32(0x160, 0x1010)
	s.Write32(0x144, 0) // USBSTS stays as is
	rs, err := RestoreRegisters(m, s, []JReg{
		{Name: "USBCMD", Offset: 0x140, Original: 0x00080043},
		{Name: "BURSTSIZE", Offset: 0x160, Original: 0x0808},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("results = %d", len(rs))
	}
	if rs[0].New != 0x00080001 {
		t.Errorf("USBCMD restored as %#x: RST/IAA must be stored as 0", rs[0].New)
	}
	if v, _ := s.Read32(0x160); v != 0x0808 {
		t.Errorf("BURSTSIZE = %#x", v)
	}
	if _, err := RestoreRegisters(m, s, []JReg{{Name: "USBSTS", Offset: 0x160}}); err == nil {
		t.Error("a journal naming the wrong register at an offset was accepted")
	}
}

func TestRestoreRegistersWritesIllegalOriginals(t *testing.T) {
	m := regs.ChipIdea()
	s := sim.New(sim.Config{Map: m, Size: 0x200})
	// a driver once left ITC=3 (not a legal value for a user); restore
	// must put it back as it was.
	rs, err := RestoreRegisters(m, s, []JReg{{Name: "USBCMD", Offset: 0x140, Original: 0x00030000}})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Read32(0x140); v != 0x00030000 || !rs[0].Held() {
		t.Errorf("USBCMD = %#x, held %v", v, rs[0].Held())
	}
}
