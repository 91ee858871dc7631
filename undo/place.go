package undo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The journal's place is trusted the way ssh trusts its keys: the
// journal, its lock files and their folders must belong to the caller or
// root and be writable by nobody else, and citune creates them so
// (folders 0700, files 0600). A planted journal would make `citune
// restore` write what someone else chose, as root.

// ErrUntrusted is wrapped when the journal, a lock file or their folder
// fails that test: it is neither read nor written.
var ErrUntrusted = errors.New("the journal's place is not trusted")

// ErrNoPlace is wrapped when there is no private place for the journal.
var ErrNoPlace = errors.New("no private place for the journal")

// trustInfo refuses fi (of path) unless it passes the test.
func trustInfo(path string, fi os.FileInfo) error {
	fileUID, ok := ownerOf(fi)
	if !ok {
		return nil
	}
	what := "file"
	if fi.IsDir() {
		what = "folder"
	}
	if uid := uint32(os.Geteuid()); fileUID != uid && fileUID != 0 {
		return fmt.Errorf("%w: the %s %s belongs to uid %d, not to you (uid %d) or root: someone else could have planted it", ErrUntrusted, what, path, fileUID, uid)
	}
	if m := fi.Mode().Perm(); m&0o022 != 0 {
		return fmt.Errorf("%w: the %s %s is writable by its group or others (mode %#o): someone else could have planted it; `chmod go-w %s` if it is yours", ErrUntrusted, what, path, m, path)
	}
	return nil
}

// trusted checks the file or folder at path (following symlinks); a
// missing one is trusted (it will be created so).
func trusted(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	return trustInfo(path, fi)
}

// trustedFile checks an open file.
func trustedFile(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	return trustInfo(f.Name(), fi)
}

// privateDir creates dir (0700) as needed and checks it.
func privateDir(dir string) error {
	if err := trusted(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	return trusted(dir)
}

// openPrivate opens (creating, 0600) a lock or journal file in a trusted
// folder, never through a symlink, and checks it.
func openPrivate(path string, flag int) (*os.File, error) {
	if err := privateDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|oNoFollow, 0o600)
	if err != nil {
		return nil, fmt.Errorf("journal: %w: %w", ErrStore, err)
	}
	if err := trustedFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
