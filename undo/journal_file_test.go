package undo

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		{"runtime", map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}, 1000, "/run/user/1000/citune/journal.json"},
	} {
		if got, err := DefaultPath(env(tc.env), tc.uid); got != tc.want || err != nil {
			t.Errorf("%s: %s, %v, want %s", tc.name, got, err, tc.want)
		}
	}
	// No private place: never /tmp.
	if got, err := DefaultPath(env(nil), 1000); got != "" || !errors.Is(err, ErrNoPlace) || !strings.Contains(err.Error(), "/tmp is never used") {
		t.Errorf("without HOME: %q, %v; want ErrNoPlace", got, err)
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
