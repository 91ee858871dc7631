package undo

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Version is the journal format this package writes. Version 1 (whole
// registers with original and last written value) is read and converted.
const Version = 2

// ErrStore is wrapped when the journal or a lock file cannot be read or
// written: nothing is changed, as without a journal a change could not be
// undone after a crash.
var ErrStore = errors.New("the journal's place is not usable")

// Journal holds one entry per target citune has changed and not restored.
type Journal struct {
	Version int `json:"version"`
	// Seq counts the saves of the file: a session that sees it go back
	// knows the file was replaced.
	Seq     uint64  `json:"seq,omitempty"`
	Entries []Entry `json:"entries"`
}

// Entry is what citune changed on one target.
type Entry struct {
	Target TargetID `json:"target"`
	// Profile (or ProfileFile) and Controller are the labels the first
	// change was made with: restore loads the register map from them.
	Profile     string    `json:"profile"`
	ProfileFile string    `json:"profile_file,omitempty"`
	Controller  string    `json:"controller"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	// Sessions are the long sessions that own the target now; one whose
	// process is gone was interrupted.
	Sessions  []Owner    `json:"sessions,omitempty"`
	Fields    []FieldRec `json:"fields,omitempty"`
	Files     []FileRec  `json:"files,omitempty"`
	ModParams []ParamRec `json:"modparams,omitempty"`
	Boot      *BootRec   `json:"boot,omitempty"`   // as citune found it; nil: untouched
	Reload    *Reload    `json:"reload,omitempty"` // to put module parameters back
	// Changes are the last REG.FIELD=VALUE requests of `citune set`,
	// which `citune verify` checks.
	Changes []string `json:"changes,omitempty"`
}

// FieldRec is the original of one field (Field "": undescribed bits).
type FieldRec struct {
	Register string `json:"register"`
	Offset   uint32 `json:"offset"`
	Field    string `json:"field,omitempty"`
	Mask     uint32 `json:"mask"`
	// Original and Written are raw register bits under Mask.
	Original uint32    `json:"original"`
	Written  uint32    `json:"written"`
	By       Owner     `json:"by"`
	Time     time.Time `json:"time"`
}

// Name is "REG.FIELD", or "REG[mask]" for undescribed bits.
func (f FieldRec) Name() string {
	if f.Field != "" {
		return f.Register + "." + f.Field
	}
	return fmt.Sprintf("%s[%#08x]", f.Register, f.Mask)
}

// FileRec is a sysfs/procfs file's original content.
type FileRec struct {
	Path     string    `json:"path"`
	Original string    `json:"original"`
	By       Owner     `json:"by"`
	Time     time.Time `json:"time"`
}

// ParamRec is a kernel module parameter's original value.
type ParamRec struct {
	Name     string    `json:"name"` // module.param
	Original string    `json:"original"`
	By       Owner     `json:"by"`
	Time     time.Time `json:"time"`
}

// Reload says how the module stack is reloaded: the modules top first,
// the path that must appear again, the commands, and the root of
// /sys/module and /proc/modules.
type Reload struct {
	Root     string        `json:"root,omitempty"`
	Modules  []string      `json:"modules"`
	Wait     string        `json:"wait,omitempty"`
	Timeout  time.Duration `json:"timeout,omitempty"`
	Modprobe string        `json:"modprobe,omitempty"`
	Rmmod    string        `json:"rmmod,omitempty"`
}

// Empty reports whether the entry records nothing and no session owns it.
func (e *Entry) Empty() bool {
	return len(e.Fields) == 0 && len(e.Files) == 0 && len(e.ModParams) == 0 && len(e.Sessions) == 0 && e.Boot == nil
}

// Interrupted lists the registered sessions whose process is gone.
func (e *Entry) Interrupted() []Owner {
	var out []Owner
	for _, o := range e.Sessions {
		if !o.Alive() {
			out = append(out, o)
		}
	}
	return out
}

// Find returns the entry of target key k, or nil.
func (j *Journal) Find(k string) *Entry {
	if i := slices.IndexFunc(j.Entries, func(e Entry) bool { return e.Target.Key() == k }); i >= 0 {
		return &j.Entries[i]
	}
	return nil
}

// For returns the entry for e's target, adding e when there is none.
func (j *Journal) For(e Entry) *Entry {
	if x := j.Find(e.Target.Key()); x != nil {
		return x
	}
	j.Entries = append(j.Entries, e)
	return &j.Entries[len(j.Entries)-1]
}

// Load reads the journal at path (missing: empty) under a shared lock.
func Load(path string) (*Journal, error) {
	if path == "" {
		return nil, fmt.Errorf("journal: %w", ErrNoPlace)
	}
	if _, err := os.Stat(filepath.Dir(path)); errors.Is(err, os.ErrNotExist) {
		return &Journal{Version: Version}, nil // a read creates nothing
	}
	unlock, err := lockFile(path+".lock", lockSH)
	if err != nil {
		return nil, err
	}
	defer unlock()
	return Read(path)
}

// Update runs fn on the journal at path under its exclusive lock and
// saves the result (nothing when fn fails): no update is lost.
func Update(path string, fn func(*Journal) error) error {
	unlock, err := lockFile(path+".lock", lockEX)
	if err != nil {
		return err
	}
	defer unlock()
	j, err := Read(path)
	if err != nil {
		return err
	}
	if err := fn(j); err != nil {
		return err
	}
	return j.save(path)
}

// errNoFile marks a journal that does not exist (an empty journal).
var errNoFile = errors.New("no journal file")

// Read reads the journal at path (missing: empty) without locking or
// writing anything (a journal whose place cannot be written, given to
// `restore --from`; Load and Update take the lock).
func Read(path string) (*Journal, error) {
	j, err := loadFile(path)
	if errors.Is(err, errNoFile) {
		return &Journal{Version: Version}, nil
	}
	return j, err
}

// loadFile reads the journal at path; a missing file is errNoFile.
func loadFile(path string) (*Journal, error) {
	// Non-blocking: a FIFO there must not hang the open (it is refused).
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoFile
	}
	if err != nil {
		return nil, fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	defer f.Close()
	if err := trustedFile(f); err != nil {
		return nil, err
	}
	// Its folder too, and the real one behind a symbolic link: a trusted
	// file in a folder someone else controls can be swapped under us.
	if err := trusted(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(path); err == nil && filepath.Dir(real) != filepath.Dir(path) {
		if err := trusted(filepath.Dir(real)); err != nil {
			return nil, err
		}
	}
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("journal: %w: %s is not a regular file (%v)", ErrStore, path, fi.Mode().Type())
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	return parseJournal(path, b)
}

// parseJournal reads a journal's text (path names it in errors).
func parseJournal(path string, b []byte) (*Journal, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("journal %s is empty (truncated: the originals it held are lost)", path)
	}
	var head struct{ Version int }
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("journal %s: %w (the file is damaged; its original values are in it as text)", path, err)
	}
	switch head.Version {
	case 1:
		return convertV1(path, b)
	case Version:
	default:
		return nil, fmt.Errorf("journal %s: version %d, this citune reads versions 1 and %d", path, head.Version, Version)
	}
	var j Journal
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("journal %s: %w (the file is damaged; its original values are in it as text)", path, err)
	}
	return &j, nil
}

// save writes the journal durably, without its empty entries: the fixed
// temporary file, fsync, rename, fsync of the directory. An empty journal
// removes the file.
func (j *Journal) save(path string) error {
	j.Entries = slices.DeleteFunc(j.Entries, func(e Entry) bool { return e.Empty() })
	tmp := path + ".tmp"
	if len(j.Entries) == 0 {
		os.Remove(tmp)
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("journal: %w: %w", ErrStore, err)
		}
		return nil
	}
	j.Version = Version
	j.Seq++
	b, err := json.MarshalIndent(j, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	// O_NOFOLLOW: the temporary file is never written through a symlink.
	f, err := openPrivate(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	err = cmp.Or(err, f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// lockFile takes a flock of kind how on path and returns its release.
func lockFile(path string, how int) (func(), error) {
	f, err := openPrivate(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	if err := flock(f, how); err != nil {
		f.Close()
		return nil, fmt.Errorf("journal lock %s: %w: %w", path, ErrStore, err)
	}
	return func() {
		sysFlock(f, lockUN)
		f.Close()
	}, nil
}

// v1 is the version-1 journal: whole registers.
type v1 struct {
	Entries []struct {
		Created     time.Time `json:"created"`
		PID         int       `json:"pid"`
		Command     []string  `json:"command"`
		Profile     string    `json:"profile"`
		ProfileFile string    `json:"profile_file"`
		Controller  string    `json:"controller"`
		Kind        string    `json:"kind"`
		Path        string    `json:"path"`
		Base        uint64    `json:"base"`
		Registers   []struct {
			Name     string `json:"name"`
			Offset   uint32 `json:"offset"`
			Original uint32 `json:"original"`
			Written  uint32 `json:"written"`
		} `json:"registers"`
		Changes []string `json:"changes"`
		Files   []struct {
			Path     string `json:"path"`
			Original string `json:"original"`
		} `json:"files"`
		ModParams []struct {
			Name     string `json:"name"`
			Original string `json:"original"`
		} `json:"modparams"`
	} `json:"entries"`
}

// convertV1 reads a version-1 journal. A register's changed bits (its
// original and last written value differ) become one record (the exact
// fields are not known without the map).
func convertV1(path string, b []byte) (*Journal, error) {
	var old v1
	if err := json.Unmarshal(b, &old); err != nil {
		return nil, fmt.Errorf("journal %s (version 1): %w", path, err)
	}
	j := &Journal{Version: Version}
	for _, e := range old.Entries {
		by := Owner{Kind: KindSet, PID: e.PID, Command: e.Command, Since: e.Created}
		if strings.Contains(strings.Join(e.Command, " "), " sweep") {
			by.Kind = KindSweep
		}
		n := Entry{Profile: e.Profile, ProfileFile: e.ProfileFile, Controller: e.Controller, Created: e.Created, Updated: e.Created, Changes: e.Changes}
		switch e.Kind {
		case TargetFile:
			id, err := File(e.Path)
			if err != nil {
				id = TargetID{Kind: TargetFile, Path: e.Path}
			}
			n.Target = id
		default:
			n.Target = DevMem(e.Base)
		}
		for _, r := range e.Registers {
			if m := r.Original ^ r.Written; m != 0 {
				n.Fields = append(n.Fields, FieldRec{Register: r.Name, Offset: r.Offset, Mask: m, Original: r.Original & m, Written: r.Written & m, By: by, Time: e.Created})
			}
		}
		for _, f := range e.Files {
			n.Files = append(n.Files, FileRec{Path: f.Path, Original: f.Original, By: by, Time: e.Created})
		}
		for _, p := range e.ModParams {
			n.ModParams = append(n.ModParams, ParamRec{Name: p.Name, Original: p.Original, By: by, Time: e.Created})
		}
		j.Entries = append(j.Entries, n)
	}
	return j, nil
}

// DefaultPath is $CITUNE_JOURNAL, else /var/lib/citune/journal.json for
// root, else $XDG_STATE_HOME/citune/journal.json, ~/.local/state, or
// $XDG_RUNTIME_DIR/citune; never a shared folder such as /tmp.
func DefaultPath(getenv func(string) string, uid int) (string, error) {
	if p := getenv("CITUNE_JOURNAL"); p != "" {
		return p, nil
	}
	if uid == 0 {
		return "/var/lib/citune/journal.json", nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "citune", "journal.json"), nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".local", "state", "citune", "journal.json"), nil
	}
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "citune", "journal.json"), nil
	}
	return "", fmt.Errorf("%w: $HOME, $XDG_STATE_HOME and $XDG_RUNTIME_DIR are unset (a shared folder such as /tmp is never used: anyone could plant a journal there or block it)", ErrNoPlace)
}
