package undo

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// A claim says which journal holds a target's originals. It lives with
// the target (beside an image, or in the system-wide folder for
// /dev/mem), so a session under another journal meets it after its owner
// is gone: a set under journal B, which would take the values of a sweep
// killed under journal A for originals, is refused until A is restored.
// The flock on the target says who is running; the claim who still has
// changes on it.
//
// Decision: a claim only refuses; it is never obeyed. A planted claim can
// block a target (the user is told which journal it names and that
// --force goes past it), but nothing is ever written because of one.
type claim struct {
	Journal string `json:"journal"`
	Owner   Owner  `json:"owner"`
	Dev     uint64 `json:"dev,omitempty"`
	Ino     uint64 `json:"ino,omitempty"`
}

// maxClaim bounds what is read of a claim file.
const maxClaim = 64 << 10

// claimPath is where target id's claim lives ("": simulated).
func claimPath(id TargetID, dir string) string {
	switch id.Kind {
	case TargetFile:
		return id.Path + ".citune-claim"
	case TargetDevMem:
		return filepath.Join(cmp.Or(dir, SystemLocks), id.Key()+".claim")
	}
	return ""
}

func readClaim(p string) (claim, bool) {
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow|syscall.O_NONBLOCK, 0)
	if err != nil {
		return claim{}, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return claim{}, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxClaim))
	var c claim
	if err != nil || json.Unmarshal(b, &c) != nil || c.Journal == "" {
		return claim{}, false
	}
	return c, true
}

// ClaimError refuses a session because another journal still holds
// changes on the target.
type ClaimError struct {
	Target  TargetID
	Journal string
	Owner   Owner
}

func (e *ClaimError) Error() string {
	return fmt.Sprintf("%s holds changes of %s that were not undone, journalled in %s: undo them first (citune --journal %s restore), or --force goes ahead anyway (the values it finds become this journal's originals)",
		e.Target, e.Owner, e.Journal, e.Journal)
}

func (e *ClaimError) Unwrap() error { return ErrBusy }

// checkClaim refuses journal's session on id when another journal's
// claim is there and that journal still has an entry for id; a stale
// claim is removed.
func checkClaim(journal string, id TargetID, dir string) error {
	p := claimPath(id, dir)
	if p == "" {
		return nil
	}
	c, ok := readClaim(p)
	if !ok || SameFile(c.Journal, journal) || (c.Dev != 0 && (c.Dev != id.Dev || c.Ino != id.Ino)) {
		return nil
	}
	if j, err := Read(c.Journal); err == nil {
		if e := j.Find(id.Key()); e == nil || e.Empty() {
			os.Remove(p)
			return nil
		}
	} else if errors.Is(err, os.ErrNotExist) {
		os.Remove(p)
		return nil
	}
	return &ClaimError{Target: id, Journal: c.Journal, Owner: c.Owner}
}

// writeClaim records journal as the holder of id's originals. Where it
// cannot (an image in a folder this user cannot write) the session goes
// on: the target's flock still keeps two running sessions apart.
func writeClaim(journal string, id TargetID, dir string, o Owner) {
	p := claimPath(id, dir)
	if p == "" {
		return
	}
	if c, ok := readClaim(p); ok && SameFile(c.Journal, journal) && c.Owner.Same(o) {
		return
	}
	b, _ := json.Marshal(claim{Journal: journal, Owner: o, Dev: id.Dev, Ino: id.Ino})
	tmp := fmt.Sprintf("%s.%d.tmp", p, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o644)
	if err != nil {
		return
	}
	_, err = f.Write(append(b, '\n'))
	err = cmp.Or(err, f.Close())
	if err != nil || os.Rename(tmp, p) != nil {
		os.Remove(tmp)
	}
}

// dropClaim removes journal's claim on id once the journal has no entry
// for it.
func dropClaim(journal string, id TargetID, dir string) {
	p := claimPath(id, dir)
	if p == "" {
		return
	}
	c, ok := readClaim(p)
	if !ok || !SameFile(c.Journal, journal) {
		return
	}
	if j, err := Read(journal); err == nil {
		if e := j.Find(id.Key()); e != nil && !e.Empty() {
			return
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return
	}
	os.Remove(p)
}

// SameFile reports whether a and b name one file: the same path, or two
// names of one existing file.
func SameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
