package undo

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Lock files do not pile up one per target ever touched: each is gone
// once its session is released, beside the journal and in the targets'
// own folder alike.
func TestLockFilesDoNotPileUp(t *testing.T) {
	journal, locks := filepath.Join(t.TempDir(), "journal.json"), t.TempDir()
	for i := range 20 {
		id := DevMem(0x2184000 + uint64(i)*0x200)
		l, err := acquire(journal, locks, id, Self(KindSet, []string{"citune", "set"}), false)
		if err != nil || l == nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(lockPath(journal, id)); err != nil {
			t.Fatalf("no lock file while held: %v", err)
		}
		l.release()
	}
	for _, d := range []string{filepath.Join(filepath.Dir(journal), "locks"), locks} {
		if names, _ := filepath.Glob(filepath.Join(d, "*")); len(names) > 0 {
			t.Errorf("%s keeps %d files: %q", d, len(names), names)
		}
	}
}

// Removing a lock file as it is released keeps the lock a lock: takers
// that opened the file before it was removed find it is no longer the
// path's and take the new one, so two owners never hold one target.
func TestRemovedLockStillExcludes(t *testing.T) {
	journal, locks := filepath.Join(t.TempDir(), "journal.json"), t.TempDir()
	id := DevMem(0x2184200)
	var in, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 40 {
				l, err := acquire(journal, locks, id, Self(KindSet, []string{"citune", "set"}), false)
				if err != nil || l == nil {
					t.Error(err)
					return
				}
				if n := in.Add(1); n > 1 {
					most.Store(n)
				}
				time.Sleep(200 * time.Microsecond)
				in.Add(-1)
				l.release()
			}
		}()
	}
	wg.Wait()
	if most.Load() > 1 {
		t.Errorf("%d owners of one target at once", most.Load())
	}
}
