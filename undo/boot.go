package undo

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/citune/citune/bootargs"
)

// BootRec is the boot loader's store as citune found it: its kind and
// config (bootargs.Open), each variable's original (nil: not set), and
// what citune wrote last in which boot (boot_id), so that a sweep resumed
// after the reboot can tell arguments that did not come back from a boot
// that did not happen yet.
type BootRec struct {
	Kind     string             `json:"kind"`
	Config   string             `json:"config"`
	Root     string             `json:"root,omitempty"`
	Original map[string]*string `json:"original"`
	Written  map[string]*string `json:"written,omitempty"`
	// Files are the files citune wrote for the boot loader (a dt: sweep's
	// overlays): removed with the originals' restore.
	Files  []string  `json:"files,omitempty"`
	BootID string    `json:"boot_id,omitempty"`
	By     Owner     `json:"by"`
	Time   time.Time `json:"time"`
}

// RecordBoot records the store's originals before its first write (an
// existing record keeps its originals) and what is written now; the
// caller writes after it returns.
func (s *Session) RecordBoot(rec BootRec) (BootRec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := rec
	err := s.update(func(e *Entry) {
		if e.Boot != nil && e.Boot.Kind == rec.Kind && e.Boot.Config == rec.Config {
			// The first originals stay; new variables and files join them.
			orig := maps.Clone(e.Boot.Original)
			for n, v := range rec.Original {
				if _, ok := orig[n]; !ok {
					orig[n] = v
				}
			}
			files := slices.Clone(e.Boot.Files)
			for _, f := range rec.Files {
				if !slices.Contains(files, f) {
					files = append(files, f)
				}
			}
			out.Original, out.Files, out.By, out.Time = orig, files, e.Boot.By, e.Boot.Time
		} else {
			out.By, out.Time = s.o.Owner, time.Now().UTC()
		}
		e.Boot = &out
	})
	return out, err
}

// Boot returns the journal's boot record of the session's target.
func (s *Session) Boot() (*BootRec, error) {
	e, err := s.loadEntry()
	if e == nil {
		return nil, err
	}
	return e.Boot, nil
}

// DropBoot removes the boot record once the store holds its originals.
func (s *Session) DropBoot() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.update(func(e *Entry) { e.Boot = nil })
}

// restoreBoot writes the store's originals back.
func restoreBoot(b *BootRec) ([]Restored, error) {
	st, err := bootargs.Open(b.Kind, b.Config, b.Root)
	if err != nil {
		return nil, fmt.Errorf("boot loader: %w", err)
	}
	if err := st.Set(b.Original); err != nil {
		return nil, fmt.Errorf("restoring the boot arguments in %s: %w", st.Describe(), err)
	}
	root := cmp.Or(b.Root, "/")
	var out []Restored
	for _, f := range b.Files {
		// Only what citune names so: never any file a journal lists.
		if ok, _ := filepath.Match("citune-*.dtbo", filepath.Base(f)); !ok || !filepath.IsAbs(f) {
			continue
		}
		if err := os.Remove(f); err == nil {
			out = append(out, Restored{Name: "boot file " + f, Want: "(removed)", Got: "(removed)", Held: true, Wrote: true})
		}
	}
	for _, p := range bootargs.RemoveResume(root) {
		out = append(out, Restored{Name: "resume at boot " + p, Want: "(removed)", Got: "(removed)", Held: true, Wrote: true})
	}
	for n, v := range b.Original {
		got, ok, err := st.Get(n)
		held := err == nil && (v == nil && !ok || v != nil && ok && got == *v)
		w := "(unset)"
		if v != nil {
			w = *v
		}
		out = append(out, Restored{Name: st.Kind() + " " + n, Want: w, Got: got, Held: held, Wrote: true})
	}
	return out, nil
}
