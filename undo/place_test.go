package undo

// The journal's place checked like ssh checks its keys.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// What citune creates, only the caller can read or write.
func TestJournalCreatedPrivate(t *testing.T) {
	f := newFixture(t)
	f.journal = filepath.Join(t.TempDir(), "state", "citune", "journal.json")
	s, err := f.open(t, KindSet, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Apply([]regs.Change{f.change(t, "ITC=64")}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(f.journal)
	for p, want := range map[string]os.FileMode{
		filepath.Dir(dir):           0o700 | os.ModeDir,
		dir:                         0o700 | os.ModeDir,
		filepath.Join(dir, "locks"): 0o700 | os.ModeDir,
		f.journal:                   0o600,
		f.journal + ".lock":         0o600,
		lockPath(f.journal, f.id):   0o600,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
}

// A journal folder others can write (a shared /tmp), or a journal that
// others can write, is neither read nor written: nothing is changed.
func TestJournalWritableByOthersRefused(t *testing.T) {
	for name, setup := range map[string]func(t *testing.T, journal string){
		"folder": func(t *testing.T, journal string) {
			if err := os.Chmod(filepath.Dir(journal), 0o1777); err != nil {
				t.Fatal(err)
			}
		},
		"file": func(t *testing.T, journal string) {
			planted := `{"version":2,"entries":[{"target":{"kind":"devmem","base":35144192},"profile":"imx6q","controller":"usbh1","fields":[{"register":"USBCMD","offset":320,"field":"RS","mask":1,"original":0,"written":1}]}]}`
			if err := os.WriteFile(journal, []byte(planted), 0o666); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(journal, 0o666); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			setup(t, f.journal)
			if _, err := Load(f.journal); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "writable by its group or others") {
				t.Errorf("Load: %v, want ErrUntrusted", err)
			}
			if _, err := f.open(t, KindSweep, nil); !errors.Is(err, ErrUntrusted) {
				t.Errorf("Open: %v, want ErrUntrusted", err)
			}
			before, _ := f.acc.Read32(0x140)
			s, err := f.open(t, KindSet, nil)
			if err == nil {
				_, err = s.Apply([]regs.Change{f.change(t, "ITC=64")})
				s.Close()
			}
			if !errors.Is(err, ErrUntrusted) {
				t.Errorf("set: %v, want ErrUntrusted", err)
			}
			if after, _ := f.acc.Read32(0x140); after != before {
				t.Errorf("USBCMD written: %#x -> %#x", before, after)
			}
		})
	}
}

// A journal or folder that belongs to another user is refused, even
// with a private mode (as root, which is who `citune restore` runs as on
// a board).
func TestJournalOfAnotherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	for _, which := range []string{"folder", "file"} {
		t.Run(which, func(t *testing.T) {
			f := newFixture(t)
			if err := os.WriteFile(f.journal, []byte(`{"version":2,"entries":[]}`), 0o600); err != nil {
				t.Fatal(err)
			}
			p := f.journal
			if which == "folder" {
				p = filepath.Dir(f.journal)
			}
			if err := os.Chown(p, 4242, 4242); err != nil {
				t.Skip(err)
			}
			_, err := Load(f.journal)
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "belongs to uid 4242") {
				t.Errorf("Load: %v, want ErrUntrusted naming uid 4242", err)
			}
			r, err := f.open(t, KindRestore, nil)
			if err == nil {
				_, err = r.RestoreAll(context.Background())
				r.Close()
			}
			if !errors.Is(err, ErrUntrusted) {
				t.Errorf("restore: %v, want ErrUntrusted", err)
			}
		})
	}
}

// A journal of an earlier citune (0644 in a 0755 folder, the caller's)
// is still read.
func TestOldJournalModesAccepted(t *testing.T) {
	f := newFixture(t)
	if err := os.Chmod(filepath.Dir(f.journal), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.journal, []byte(`{"version":2,"entries":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(f.journal); err != nil {
		t.Errorf("Load: %v", err)
	}
}
