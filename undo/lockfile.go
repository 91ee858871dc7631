package undo

import (
	"os"
	"path/filepath"
)

// Lock files do not pile up, one per target ever touched (issue 24): a
// lock file beside the journal (locks/KEY.lock) and a /dev/mem target's
// own (/run/citune/KEY.lock) are removed when they are released and
// hold nothing anyone needs.
//
// *Decision:* remove on release rather than one lock file per folder: a
// folder-wide lock would serialise sessions on different controllers
// (two sweeps on usbotg and usbh1 at once are legitimate) and the owner
// named in the file is per target. Removing a flock'ed file races with a
// contender that opened it before the unlink and then gets its lock on a
// file no path names any more, so every taker checks, once it holds the
// lock, that the path still names the file it locked (stillNamed), and
// otherwise opens the path again; the remover unlinks while it holds the
// lock, so nobody can take the new file's lock believing it is the old
// one's. A file that keeps a long session's records (its restore failed:
// the records are what a later `citune restore` recovers) stays, and so
// does an image file, which is its own lock. Where the system cannot
// remove an open file (Windows) the file stays as before.

// stillNamed reports whether path names f, the file whose lock is held.
func stillNamed(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Lstat(path)
	return err == nil && os.SameFile(fi, pi)
}

// removeHeld unlinks f's path while f's lock is held, when the path still
// names f and keep is false.
func removeHeld(f *os.File, keep bool) {
	if !keep && stillNamed(f, f.Name()) {
		os.Remove(f.Name())
	}
}

// holdsRecords reports whether a lock file beside the journal keeps a
// long session's records.
func holdsRecords(f *os.File) bool {
	h, ok := readHolderFile(f)
	return ok && h.Entry != nil && (len(h.Entry.Fields) > 0 || len(h.Entry.Files) > 0 || len(h.Entry.ModParams) > 0)
}

// lockDirFiles lists the lock files in the locks folder beside journal.
func lockDirFiles(journal string) []string {
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(journal), "locks", "*.lock"))
	return names
}
