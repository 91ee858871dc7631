package undo

// The journal's place checked like ssh checks its keys.

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

// RestoreAll writes back only what set would: a journal entry recording
// live state (the run bit, a list address) is refused without AllowLive,
// a write-1-to-clear bit and a file outside /sys and /proc never; the
// refused records stay in the journal, named.
func TestRestoreAllWritesOnlyWhatSetWould(t *testing.T) {
	f := newFixture(t)
	h := newHost()
	cmd, _ := f.acc.Read32(0x140)
	err := Update(f.journal, func(j *Journal) error {
		j.Entries = []Entry{{Target: f.id, Profile: "imx6q", Controller: "usbh1",
			Fields: []FieldRec{
				{Register: "USBCMD", Offset: 0x140, Field: "RS", Mask: 1, Original: cmd&1 ^ 1},
				{Register: "USBSTS", Offset: 0x144, Field: "PCI", Mask: 4, Original: 4},
				{Register: "USBCMD", Offset: 0x140, Field: "ITC", Mask: 0xff << 16, Original: 1 << 16},
			},
			Files: []FileRec{{Path: "/etc/shadow", Original: "root::0:0"}}}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		var writes []uint32
		r, err := f.open(t, KindRestore, func(o *Options) { o.AllowLive, o.Host = allow, h; o.Acc = &recAcc{Accessor: f.acc, w: &writes} })
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.RestoreAll(context.Background())
		r.Close()
		var re *RefusedError
		if !errors.As(err, &re) || !errors.Is(err, ErrRefused) {
			t.Fatalf("allow-live %v: %v, want RefusedError", allow, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "USBSTS.PCI is W1C") || !strings.Contains(msg, "/etc/shadow: not a /sys or /proc file") ||
			strings.Contains(msg, "USBCMD.RS: live state") == allow {
			t.Errorf("allow-live %v: %v", allow, msg)
		}
		if _, ok := h.files["/etc/shadow"]; ok {
			t.Error("wrote /etc/shadow")
		}
		if sts, _ := f.acc.Read32(0x144); sts&4 != 0 {
			t.Errorf("USBSTS %#x", sts)
		}
		if f.field(t, "ITC") != 1 {
			t.Errorf("allow-live %v: ITC %d, want 1 (a knob is restored)", allow, f.field(t, "ITC"))
		}
		v, _ := f.acc.Read32(0x140)
		if allow != (v&1 != cmd&1) {
			t.Errorf("allow-live %v: USBCMD %#x (RS was %d)", allow, v, cmd&1)
		}
		e := mustEntry(t, f)
		if len(e.Files) != 1 || !slices.ContainsFunc(e.Fields, func(fr FieldRec) bool { return fr.Field == "PCI" }) {
			t.Errorf("refused records not kept: %+v", e)
		}
	}
}
