package undo

import (
	"os"
	"path/filepath"
)

// Lock files do not pile up, one per target ever touched (issue 24): a
// lock file beside the journal (locks/KEY.lock) and a /dev/mem target's
// own (/run/citune/KEY.lock) are removed on release when they hold
// nothing anyone needs.
//
// *Decision:* remove on release rather than one lock file per folder,
// which would serialise sessions on different controllers (two sweeps on
// usbotg and usbh1 at once are legitimate). Removing a flock'ed file
// races with a contender that opened it before the unlink, so every
// taker checks, once it holds the lock, that the path still names the
// file it locked (stillNamed), and otherwise opens the path again; the
// remover unlinks while it holds the lock. A file that keeps a long
// session's records (for a later `citune restore`) stays, and so does an
// image file, which is its own lock. Where the system cannot remove an
// open file (Windows) the file stays.

// stillNamed reports whether path names f, the file whose lock is held.
func stillNamed(f *os.File, path string) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	pi, err := os.Lstat(path)
	return err == nil && os.SameFile(fi, pi)
}

// removeHeld unlinks f's path while f's lock is held, unless keep.
func removeHeld(f *os.File, keep bool) {
	if !keep && stillNamed(f, f.Name()) {
		os.Remove(f.Name())
	}
}

// holdsRecords reports whether a lock file keeps a long session's records.
func holdsRecords(f *os.File) bool {
	h, ok := readHolderFile(f)
	return ok && h.Entry != nil && (len(h.Entry.Fields) > 0 || len(h.Entry.Files) > 0 || len(h.Entry.ModParams) > 0)
}

// lockDirFiles lists the lock files beside journal.
func lockDirFiles(journal string) []string {
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(journal), "locks", "*.lock"))
	return names
}
