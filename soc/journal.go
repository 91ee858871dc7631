package soc

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/citune/citune/regs"
)

// The journal is citune's undo log. Before the first write of a run, the
// original value of everything about to change is recorded on disk
// (written to a temporary file, synced, renamed), so that `citune restore`
// can put it back even after the process was killed. Originals are kept
// from the first run that changed a thing; later runs only add to them.

// Journal holds one entry per target (controller window) that citune has
// changed and not yet restored.
type Journal struct {
	Version int     `json:"version"`
	Entries []Entry `json:"entries"`
}

// Entry is what citune changed on one target.
type Entry struct {
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	PID         int       `json:"pid"`
	Command     []string  `json:"command,omitempty"`
	Profile     string    `json:"profile"`
	ProfileFile string    `json:"profile_file,omitempty"` // set for --profile FILE
	Controller  string    `json:"controller"`
	Kind        string    `json:"kind"`
	Path        string    `json:"path,omitempty"`
	Base        uint64    `json:"base"`
	Registers   []JReg    `json:"registers,omitempty"`
	// Changes are the last requested REG.FIELD=VALUE changes, which
	// `citune verify` checks still hold.
	Changes   []string    `json:"changes,omitempty"`
	Files     []JFile     `json:"files,omitempty"`
	ModParams []JModParam `json:"modparams,omitempty"`
}

// JReg is one register's original and last written value.
type JReg struct {
	Name     string `json:"name"`
	Offset   uint32 `json:"offset"`
	Original uint32 `json:"original"`
	Written  uint32 `json:"written"`
}

// JFile is a sysfs/procfs file's original content.
type JFile struct {
	Path     string `json:"path"`
	Original string `json:"original"`
}

// JModParam is a kernel module parameter's original value.
type JModParam struct {
	Name     string `json:"name"` // module.param
	Original string `json:"original"`
}

// Key identifies the target of an entry.
func (e *Entry) Key() string {
	return fmt.Sprintf("%s|%s|%#x|%s", e.Kind, e.Path, e.Base, strings.ToLower(e.Controller))
}

// NewEntry starts an entry for target t.
func NewEntry(t *Target, command []string) Entry {
	e := Entry{Created: time.Now().UTC(), PID: os.Getpid(), Command: command, Profile: t.Profile.Name,
		Controller: t.Controller.Label, Kind: t.Kind, Path: t.Path, Base: t.Controller.Base}
	if !strings.HasPrefix(t.Profile.File, "embedded:") {
		e.ProfileFile = t.Profile.File
	}
	if e.Path != "" {
		if abs, err := filepath.Abs(e.Path); err == nil {
			e.Path = abs
		}
	}
	if e.ProfileFile != "" {
		if abs, err := filepath.Abs(e.ProfileFile); err == nil {
			e.ProfileFile = abs
		}
	}
	return e
}

// Find returns the entry with the same key, or nil.
func (j *Journal) Find(key string) *Entry {
	for i := range j.Entries {
		if j.Entries[i].Key() == key {
			return &j.Entries[i]
		}
	}
	return nil
}

// Upsert returns the entry for e's key, adding e if there is none.
func (j *Journal) Upsert(e Entry) *Entry {
	if x := j.Find(e.Key()); x != nil {
		x.Updated = time.Now().UTC()
		x.PID = e.PID
		x.Command = e.Command
		return x
	}
	j.Entries = append(j.Entries, e)
	return &j.Entries[len(j.Entries)-1]
}

// Remove drops the entry with key.
func (j *Journal) Remove(key string) {
	out := j.Entries[:0]
	for _, e := range j.Entries {
		if e.Key() != key {
			out = append(out, e)
		}
	}
	j.Entries = out
}

// RecordWrites records the originals of prepared writes (keeping any
// original recorded earlier) and the values about to be written.
func (e *Entry) RecordWrites(ws []regs.Write) {
	for _, w := range ws {
		found := false
		for i := range e.Registers {
			if e.Registers[i].Offset == w.Reg.Offset {
				e.Registers[i].Written = w.New
				found = true
			}
		}
		if !found {
			e.Registers = append(e.Registers, JReg{Name: w.Reg.Name, Offset: w.Reg.Offset, Original: w.Old, Written: w.New})
		}
	}
}

// RecordFile records a file's original content unless already recorded.
func (e *Entry) RecordFile(path, original string) {
	for _, f := range e.Files {
		if f.Path == path {
			return
		}
	}
	e.Files = append(e.Files, JFile{Path: path, Original: original})
}

// RecordModParam records a module parameter's original unless already
// recorded.
func (e *Entry) RecordModParam(name, original string) {
	for _, m := range e.ModParams {
		if m.Name == name {
			return
		}
	}
	e.ModParams = append(e.ModParams, JModParam{Name: name, Original: original})
}

// LoadJournal reads a journal; a missing file is an empty journal.
func LoadJournal(path string) (*Journal, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Journal{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var j Journal
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("journal %s: %w (the file is damaged; its original values are in it as text)", path, err)
	}
	if j.Version != 1 {
		return nil, fmt.Errorf("journal %s: version %d, this citune reads version 1", path, j.Version)
	}
	return &j, nil
}

// Save writes the journal durably (temporary file, fsync, rename, fsync of
// the directory). An empty journal removes the file.
func (j *Journal) Save(path string) error {
	if len(j.Entries) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("journal: %w", err)
		}
		return nil
	}
	j.Version = 1
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".journal-*")
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("journal: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// DefaultJournalPath is $CITUNE_JOURNAL, else /var/lib/citune/journal.json
// for root, else $XDG_STATE_HOME/citune/journal.json (~/.local/state).
func DefaultJournalPath(getenv func(string) string, uid int) string {
	if p := getenv("CITUNE_JOURNAL"); p != "" {
		return p
	}
	if uid == 0 {
		return "/var/lib/citune/journal.json"
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "citune", "journal.json")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "citune", "journal.json")
	}
	return filepath.Join(os.TempDir(), "citune-journal.json")
}

// RestoreRegisters writes the original value of every journalled
// register back (W1C, self-clearing and never-set bits stored as 0;
// write-once fields keep their current value) and reads each back. It
// returns the results; mismatches mean a value did not return to its
// original. Originals were read from the hardware, so they are written
// back as they were even where a field held a value citune would refuse
// from a user (a driver may have written it).
func RestoreRegisters(m *regs.Map, acc regs.Accessor, regsToRestore []JReg) ([]regs.Result, error) {
	var ws []regs.Write
	for _, jr := range regsToRestore {
		r := m.At(jr.Offset)
		if r == nil || !strings.EqualFold(r.Name, jr.Name) {
			return nil, fmt.Errorf("journal names %s at %#x, which the profile's map does not have", jr.Name, jr.Offset)
		}
		if r.ReadOnly {
			continue
		}
		cur, err := acc.Read32(r.Offset)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", r.Name, err)
		}
		v := jr.Original &^ r.ZeroOnWrite()
		for i := range r.Fields {
			if f := &r.Fields[i]; f.Access == regs.WriteOnce {
				v = f.Put(v, f.Get(cur))
			}
		}
		ws = append(ws, regs.Write{Reg: r, Old: cur, New: v, Changes: []regs.Change{{Ref: regs.Ref{Reg: r}, Value: v}}})
	}
	return regs.Commit(acc, ws)
}
