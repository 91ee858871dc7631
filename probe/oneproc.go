package probe

import (
	"runtime"
	"sync"
)

// procs counts the probe runs in flight (read loops, and MeasureAll's
// runs when it starts several at once).
var procs struct {
	sync.Mutex
	busy int
	prev int // GOMAXPROCS before oneProc lowered it; 0: not lowered
}

// oneProc lowers GOMAXPROCS to 1 for a read loop when alone (it reads
// through the ring and nothing hashes beside it) and no other probe run
// is in flight; release (idempotent) restores it.
//
// Decision: one processor during a lone ring loop. The loop yields every
// yieldEvery; with idle processors every yield wakes an idle thread that
// spins, polls the network and sleeps again: ~125 cross-CPU wake-ups a
// second that dd does not pay (a third of the probe's context switches
// beyond dd's at 1 MiB, `strace -f -c`). On one processor a yield is a
// plain reschedule, and other goroutines (the TUI, signal handling) still
// run within 10 ms (waitSlice). Not for pread: there an idle processor
// keeps the monitor thread from taking the processor away during each
// read. Not while other runs are in flight (--also probes, a hasher):
// they need processors of their own; a run left stuck after a cancel
// stays counted. Not a locked OS thread: every reschedule of a locked
// goroutine is two thread hand-offs. Not GC settings: the loop allocates
// nothing, so no collection starts during a run (GODEBUG=gctrace=1).
func oneProc(alone bool) (release func()) {
	procs.Lock()
	procs.busy++
	switch {
	case procs.busy > 1:
		restoreProcs() // this loop needs the processors too
	case alone && procs.prev == 0:
		if n := runtime.GOMAXPROCS(0); n > 1 {
			procs.prev = runtime.GOMAXPROCS(1)
		}
	}
	procs.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			procs.Lock()
			procs.busy--
			restoreProcs()
			procs.Unlock()
		})
	}
}

// runsInFlight counts n probe runs as in flight until release.
func runsInFlight(n int) (release func()) {
	procs.Lock()
	procs.busy += n
	if procs.busy > 1 {
		restoreProcs()
	}
	procs.Unlock()
	return func() {
		procs.Lock()
		procs.busy -= n
		procs.Unlock()
	}
}

// giveBackProcs restores GOMAXPROCS if oneProc lowered it.
func giveBackProcs() {
	procs.Lock()
	restoreProcs()
	procs.Unlock()
}

// restoreProcs is giveBackProcs with procs locked.
func restoreProcs() {
	if procs.prev == 0 {
		return
	}
	runtime.GOMAXPROCS(procs.prev)
	procs.prev = 0
}
