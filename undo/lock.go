package undo

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrBusy is wrapped when another citune process owns the target.
var ErrBusy = errors.New("target busy")

// BusyError names the process that owns a target.
type BusyError struct {
	Target TargetID
	Holder Owner
	// Elsewhere: the owner holds the target's own lock under another
	// journal (Holder has at most the pid the kernel lists for the lock).
	Elsewhere bool
}

func (e *BusyError) Error() string {
	if e.Elsewhere {
		who := "another citune process"
		if e.Holder.Kind != "" {
			who = e.Holder.String()
		} else if e.Holder.PID > 0 {
			who = fmt.Sprintf("another citune process (pid %d)", e.Holder.PID)
		}
		return fmt.Sprintf("%s is owned by %s, under another journal (it holds the lock on the target itself)", e.Target, who)
	}
	return fmt.Sprintf("%s is owned by %s", e.Target, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// lock is a held target lock: the file beside the journal (which says
// who holds it) and the lock that lives with the target (tf), which every
// journal's sessions meet.
type lock struct {
	f, tf        *os.File
	journal, dir string // with id, name the target's claim (claim.go)
	id           TargetID
}

// SystemLocks is the system-wide folder of /dev/mem targets' own locks.
const SystemLocks = "/run/citune"

// targetLockFile opens the lock that lives with target id: the image file
// itself (flock works for every user who can read it), or for /dev/mem a
// file keyed by the physical base in dir (named: it also holds its
// owner). Nil for targets without one (simulated).
func targetLockFile(id TargetID, dir string) (f *os.File, named bool, err error) {
	switch id.Kind {
	case TargetFile:
		f, err := os.Open(id.Path)
		if err != nil {
			return nil, false, fmt.Errorf("target lock: %w: %w", ErrStore, err)
		}
		fi, err := f.Stat()
		var dev, ino uint64
		ok := false
		if err == nil {
			dev, ino, ok = devIno(fi)
		}
		if err != nil || !ok || dev != id.Dev || ino != id.Ino {
			f.Close()
			return nil, false, fmt.Errorf("target lock: %s is not the file it was (replaced)", id.Path)
		}
		return f, false, nil
	case TargetDevMem:
		f, err := openPrivate(filepath.Join(cmp.Or(dir, SystemLocks), id.Key()+".lock"), os.O_RDWR|os.O_CREATE)
		if err != nil {
			return nil, false, fmt.Errorf("target lock: %w", err)
		}
		return f, true, nil
	}
	return nil, false, nil
}

// acquireTarget takes the target's own lock for o, by acquire's rules.
// An owner that does not say who it is (an image) is waited for up to
// holderWait by a short owner and refused at once by a long one.
func acquireTarget(id TargetID, dir string, o Owner, force bool) (*os.File, error) {
reopen:
	f, named, err := targetLockFile(id, dir)
	if f == nil {
		return nil, err
	}
	deadline := time.Now().Add(holderWait)
	for {
		err := flock(f, lockEX|lockNB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("target lock %s: %w: %w", f.Name(), ErrStore, err)
		}
		var busy *BusyError
		if h, ok := readHolder(f); named && ok && h.Alive() {
			if !o.Kind.Long() && !h.Kind.Long() {
				if err := flock(f, lockEX); err != nil {
					f.Close()
					return nil, fmt.Errorf("target lock %s: %w: %w", f.Name(), ErrStore, err)
				}
				break
			}
			busy = &BusyError{Target: id, Holder: h}
		} else if o.Kind.Long() || time.Now().After(deadline) {
			busy = &BusyError{Target: id, Elsewhere: true}
			if b, err := os.ReadFile("/proc/locks"); err == nil {
				busy.Holder = procOwner(flockHolder(string(b), id))
			}
		}
		if busy != nil {
			f.Close()
			if force && !o.Kind.Long() {
				return nil, nil
			}
			return nil, busy
		}
		time.Sleep(5 * time.Millisecond)
	}
	if named && !stillNamed(f, f.Name()) {
		// Its last owner removed it as it left (lockfile.go).
		flock(f, lockUN)
		f.Close()
		goto reopen
	}
	if named {
		if err := writeHolder(f, holderFile{Owner: o}); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// writeHolder replaces what the lock file f says with h.
func writeHolder(f *os.File, h holderFile) error {
	b, err := json.Marshal(h)
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		return fmt.Errorf("target lock %s: %w: %w", f.Name(), ErrStore, err)
	}
	return nil
}

func lockPath(journal string, id TargetID) string {
	return filepath.Join(filepath.Dir(journal), "locks", id.Key()+".lock")
}

// holderWait bounds the wait for a new lock holder to write who it is.
const holderWait = 2 * time.Second

// acquire takes the target lock for o (doc.go's rules); a forced short
// owner goes on without it (nil, nil).
func acquire(journal, targetLocks string, id TargetID, o Owner, force bool) (*lock, error) {
	p := lockPath(journal, id)
reopen:
	f, err := openPrivate(p, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("target lock: %w", err)
	}
	deadline := time.Now().Add(holderWait)
	for {
		err := flock(f, lockEX|lockNB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("target lock %s: %w: %w", p, ErrStore, err)
		}
		h, ok := readHolder(f)
		if !ok || !h.Alive() {
			// The holder has not written who it is yet: ask again.
			if time.Now().After(deadline) {
				f.Close()
				return nil, &BusyError{Target: id, Holder: Owner{Kind: "unknown"}}
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if o.Kind.Long() || h.Kind.Long() {
			f.Close()
			if force && !o.Kind.Long() {
				return nil, nil
			}
			return nil, &BusyError{Target: id, Holder: h}
		}
		// Another set or restore: wait for it.
		if err := flock(f, lockEX); err != nil {
			f.Close()
			return nil, fmt.Errorf("target lock %s: %w: %w", p, ErrStore, err)
		}
		break
	}
	if !stillNamed(f, p) {
		// Its last owner removed it as it left (lockfile.go).
		flock(f, lockUN)
		f.Close()
		goto reopen
	}
	prev, _ := readHolderFile(f)
	if err := writeHolder(f, holderFile{Owner: o}); err != nil {
		f.Close()
		return nil, err
	}
	// Then the lock that lives with the target, which another journal's
	// sessions hold.
	tf, err := acquireTarget(id, targetLocks, o, force)
	if err != nil || tf == nil { // refused, or forced past its owner
		flock(f, lockUN)
		f.Close()
		return nil, err
	}
	l := &lock{f: f, tf: tf, journal: journal, dir: targetLocks, id: id}
	if prev.Entry != nil && prev.Entry.Target.Key() == id.Key() && !prev.Owner.Alive() {
		// A long session that was killed left its originals here too:
		// the journal gets back whatever of them it lost.
		if err := recoverRecords(journal, prev); err != nil {
			l.release()
			return nil, err
		}
	}
	// Another journal's changes still on the target come first.
	if err := checkClaim(journal, id, targetLocks); err != nil {
		l.release()
		if force && !o.Kind.Long() {
			return nil, nil
		}
		return nil, err
	}
	writeClaim(journal, id, targetLocks, o)
	return l, nil
}

// holderFile is what a lock file beside the journal holds: its owner
// and, for a long session, a copy of its records from memory, so that a
// killed session's originals survive the journal being deleted under it.
type holderFile struct {
	Owner
	Entry *Entry `json:"entry,omitempty"`
}

func readHolderFile(f *os.File) (holderFile, bool) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, maxHolder))
	if err != nil {
		return holderFile{}, false
	}
	return parseHolder(b)
}

// parseHolder reads a lock file's text (its owner must have a pid).
func parseHolder(b []byte) (holderFile, bool) {
	var h holderFile
	if len(b) == 0 || json.Unmarshal(b, &h) != nil || h.PID <= 0 {
		return holderFile{}, false
	}
	return h, true
}

// maxHolder bounds what is read of a lock file.
const maxHolder = 4 << 20

// recoverRecords adds to the journal the records of a killed long
// session that its entry lacks, with the session registered (so it is
// an interrupted session).
func recoverRecords(journal string, h holderFile) error {
	return Update(journal, func(j *Journal) error {
		e := j.For(Entry{Target: h.Entry.Target, Profile: h.Entry.Profile, ProfileFile: h.Entry.ProfileFile,
			Controller: h.Entry.Controller, Created: h.Entry.Created, Updated: h.Entry.Updated})
		added := false
		for _, fr := range h.Entry.Fields {
			if !slices.ContainsFunc(e.Fields, func(x FieldRec) bool { return x.Offset == fr.Offset && x.Mask == fr.Mask }) {
				e.Fields = append(e.Fields, fr)
				added = true
			}
		}
		for _, fr := range h.Entry.Files {
			if !slices.ContainsFunc(e.Files, func(x FileRec) bool { return x.Path == fr.Path }) {
				e.Files = append(e.Files, fr)
				added = true
			}
		}
		for _, p := range h.Entry.ModParams {
			if !slices.ContainsFunc(e.ModParams, func(x ParamRec) bool { return x.Name == p.Name }) {
				e.ModParams = append(e.ModParams, p)
				added = true
			}
		}
		e.Reload = cmp.Or(e.Reload, h.Entry.Reload)
		if added && !slices.ContainsFunc(e.Sessions, h.Owner.Same) {
			e.Sessions = append(e.Sessions, h.Owner)
		}
		return nil
	})
}

// Recover gives the journal back the records that killed long sessions
// kept in their lock files beside it (the journal deleted under a sweep
// that was then killed), as acquire does for one target: `citune
// restore` calls it first. A lock file still held is left alone.
func Recover(journal string) error {
	dir := filepath.Join(filepath.Dir(journal), "locks")
	names := lockDirFiles(journal)
	if len(names) == 0 {
		return nil
	}
	if err := trusted(dir); err != nil {
		return err
	}
	var errs []error
	for _, p := range names {
		f, err := openPrivate(p, os.O_RDWR)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if flock(f, lockEX|lockNB) == nil && stillNamed(f, p) {
			h, ok := readHolderFile(f)
			keep := false
			if ok && h.Entry != nil && h.Entry.Target.Key()+".lock" == filepath.Base(p) && !h.Owner.Alive() {
				if err := recoverRecords(journal, h); err != nil {
					errs = append(errs, err)
					keep = true
				}
			}
			// Nobody holds it: what it kept is in the journal now.
			removeHeld(f, keep || ok && h.Owner.Alive())
			flock(f, lockUN)
		}
		f.Close()
	}
	return errors.Join(errs...)
}

// keep writes the owner and its records (nil: none) into the lock file.
func (l *lock) keep(o Owner, e *Entry) error {
	if l == nil || l.f == nil {
		return nil
	}
	return writeHolder(l.f, holderFile{Owner: o, Entry: e})
}

func flock(f *os.File, how int) error {
	for {
		err := sysFlock(f, how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func readHolder(f *os.File) (Owner, bool) {
	h, ok := readHolderFile(f)
	return h.Owner, ok
}

// Holder returns the live owner of target id, if any, without locking.
func Holder(journal string, id TargetID) (Owner, bool) {
	f, err := os.Open(lockPath(journal, id))
	if err != nil {
		return Owner{}, false
	}
	defer f.Close()
	if flock(f, lockSH|lockNB) == nil {
		flock(f, lockUN)
		return Owner{}, false
	}
	h, ok := readHolder(f)
	return h, ok && h.Alive()
}

// release drops the lock and removes its files unless they keep records
// (lockfile.go: takers check that the path still names what they locked).
func (l *lock) release() {
	if l == nil || l.f == nil {
		return
	}
	if l.journal != "" {
		dropClaim(l.journal, l.id, l.dir)
	}
	if l.tf != nil {
		removeHeld(l.tf, l.id.Kind != TargetDevMem)
		flock(l.tf, lockUN)
		l.tf.Close()
		l.tf = nil
	}
	removeHeld(l.f, holdsRecords(l.f))
	flock(l.f, lockUN)
	l.f.Close()
	l.f = nil
}

// procOwner describes the process pid from its command line, for an
// owner whose lock file says nothing (an image locked under another
// journal): the kind is its first argument that names one. Only the pid
// when that fails.
func procOwner(pid int) Owner {
	o := Owner{PID: pid}
	if pid <= 0 {
		return o
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return o
	}
	args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	for _, a := range args[1:] {
		if k := Kind(a); k == KindSet || k == KindSweep || k == KindTUI || k == KindRestore {
			o.Kind = k
			break
		}
	}
	if o.Kind != "" {
		o.Command = append([]string{filepath.Base(args[0])}, args[1:]...)
		o.Start, _ = procStart(pid)
	}
	return o
}

// flockHolder finds, in the text of /proc/locks, the pid holding a flock
// on the image file id (0 when none is listed). Lines read
// "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters' lines
// start with "->"; the device is the kernel's major:minor in hex.
func flockHolder(locks string, id TargetID) int {
	if id.Kind != TargetFile {
		return 0
	}
	major, minor := (id.Dev>>8)&0xfff|(id.Dev>>32)&^0xfff, id.Dev&0xff|(id.Dev>>12)&^0xff
	for _, line := range strings.Split(locks, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || f[1] != "FLOCK" || f[3] != "WRITE" {
			continue
		}
		dev := strings.Split(f[5], ":")
		if len(dev) != 3 {
			continue
		}
		ma, err1 := strconv.ParseUint(dev[0], 16, 32)
		mi, err2 := strconv.ParseUint(dev[1], 16, 32)
		ino, err3 := strconv.ParseUint(dev[2], 10, 64)
		pid, err4 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil || pid <= 0 {
			continue
		}
		if ma == major && mi == minor && ino == id.Ino {
			return pid
		}
	}
	return 0
}
