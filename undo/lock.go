package undo

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// ErrBusy is wrapped when another citune process owns the target.
var ErrBusy = errors.New("target busy")

// BusyError names the process that owns a target.
type BusyError struct {
	Target TargetID
	Holder Owner
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s is owned by %s", e.Target, e.Holder)
}

func (e *BusyError) Unwrap() error { return ErrBusy }

// lock is a held target lock.
type lock struct {
	f *os.File
}

// lockPath is the lock file of target id beside the journal.
func lockPath(journal string, id TargetID) string {
	return filepath.Join(filepath.Dir(journal), "locks", id.Key()+".lock")
}

// holderWait bounds how long a contender waits for a lock holder that has
// just taken the lock to write its identity into it.
const holderWait = 2 * time.Second

// acquire takes the target lock for o. A long owner (sweep, TUI) is
// refused at once when anyone holds it; a short owner (set, restore)
// waits for another short owner and is refused by a long one unless
// force, in which case it goes on without the lock (nil, nil).
func acquire(journal string, id TargetID, o Owner, force bool) (*lock, error) {
	p := lockPath(journal, id)
	f, err := openPrivate(p, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, fmt.Errorf("target lock: %w", err)
	}
	deadline := time.Now().Add(holderWait)
	for {
		err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("target lock %s: %w: %w", p, ErrStore, err)
		}
		h, ok := readHolder(f)
		if !ok || !h.Alive() {
			// The holder has the lock but has not written who it is yet
			// (what the file says is its predecessor's): ask again.
			if time.Now().After(deadline) {
				f.Close()
				return nil, &BusyError{Target: id, Holder: Owner{Kind: "unknown"}}
			}
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if o.Kind.Long() || h.Kind.Long() {
			if force && !o.Kind.Long() {
				f.Close()
				return nil, nil
			}
			f.Close()
			return nil, &BusyError{Target: id, Holder: h}
		}
		// Another set or restore: they are short; wait for it.
		if err := flock(f, syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("target lock %s: %w: %w", p, ErrStore, err)
		}
		break
	}
	b, err := json.Marshal(o)
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("target lock %s: %w: %w", p, ErrStore, err)
	}
	return &lock{f: f}, nil
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

func readHolder(f *os.File) (Owner, bool) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err != nil || len(b) == 0 {
		return Owner{}, false
	}
	var o Owner
	if json.Unmarshal(b, &o) != nil || o.PID == 0 {
		return Owner{}, false
	}
	return o, true
}

// Holder returns the live owner of target id, if any, without taking the
// lock.
func Holder(journal string, id TargetID) (Owner, bool) {
	f, err := os.Open(lockPath(journal, id))
	if err != nil {
		return Owner{}, false
	}
	defer f.Close()
	if flock(f, syscall.LOCK_SH|syscall.LOCK_NB) == nil {
		flock(f, syscall.LOCK_UN)
		return Owner{}, false
	}
	h, ok := readHolder(f)
	return h, ok && h.Alive()
}

// release drops the lock (the file stays: removing it would let two
// processes lock two different files of one name).
func (l *lock) release() {
	if l == nil || l.f == nil {
		return
	}
	flock(l.f, syscall.LOCK_UN)
	l.f.Close()
	l.f = nil
}
