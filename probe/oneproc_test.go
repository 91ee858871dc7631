package probe

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
)

// withProcs runs the test with GOMAXPROCS n (the machine may have one CPU).
// Runs that earlier tests left stuck in the kernel (on purpose) are not
// counted as in flight during it.
func withProcs(t *testing.T, n int) {
	t.Helper()
	prev := runtime.GOMAXPROCS(n)
	procs.Lock()
	busy0 := procs.busy
	procs.busy = 0
	procs.Unlock()
	t.Cleanup(func() {
		procs.Lock()
		procs.busy += busy0
		procs.Unlock()
		runtime.GOMAXPROCS(prev)
	})
}

// procsSeen is a read probe's progress callback that records GOMAXPROCS
// during its loop.
type procsSeen struct{ min, max int }

func (s *procsSeen) progress(done, total int64) {
	n := runtime.GOMAXPROCS(0)
	if s.min == 0 || n < s.min {
		s.min = n
	}
	s.max = max(s.max, n)
}

// A lone ring loop in the default sample mode runs on one processor and
// gives the others back when it ends; a full-hash run keeps them (its
// hasher needs one), and so does a pread run.
func TestReadLoopOneProc(t *testing.T) {
	withProcs(t, 3)
	path, _ := randomFile(t, t.TempDir(), 4<<20)
	directOK(t, path)
	if rg, err := newRing(); err != nil {
		t.Skip("no io_uring here")
	} else {
		rg.Close()
	}
	if ringBroken.Load() {
		t.Skip("the ring broke earlier in this process")
	}
	for _, c := range []struct {
		name string
		p    ReadProbe
		want int
	}{
		{"sample", ReadProbe{Path: path, BS: 64 << 10, Size: -1}, 1},
		{"no-hash", ReadProbe{Path: path, BS: 64 << 10, Size: -1, Verify: VerifyNone}, 1},
		{"full-hash", ReadProbe{Path: path, BS: 64 << 10, Size: -1, Verify: VerifyFull}, 3},
		{"pread", ReadProbe{Path: path, BS: 64 << 10, Size: -1, NoRing: true}, 3},
	} {
		var s procsSeen
		r, err := c.p.Run(context.Background(), s.progress)
		if err != nil || r.Bytes != 4<<20 {
			t.Fatalf("%s: %v, %d bytes", c.name, err, r.Bytes)
		}
		if s.min != c.want || s.max != c.want {
			t.Errorf("%s: GOMAXPROCS %d..%d during the loop, want %d", c.name, s.min, s.max, c.want)
		}
		if n := runtime.GOMAXPROCS(0); n != 3 {
			t.Fatalf("%s: GOMAXPROCS %d after the run, want 3 back", c.name, n)
		}
	}
}

// Runs in flight beside a loop keep (or give back) the processors.
func TestOneProcInFlight(t *testing.T) {
	withProcs(t, 4)
	release := oneProc(true)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("lone loop: GOMAXPROCS %d, want 1", n)
	}
	other := runsInFlight(2) // MeasureAll starting two probes
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("with two runs in flight: GOMAXPROCS %d, want 4 back", n)
	}
	second := oneProc(true)
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("a loop beside other runs lowered GOMAXPROCS to %d", n)
	}
	second()
	other()
	release()
	release() // twice is once
	if procs.busy != 0 || procs.prev != 0 {
		t.Fatalf("after every release: busy %d, prev %d", procs.busy, procs.prev)
	}
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("GOMAXPROCS %d at the end, want 4", n)
	}
}

// A second loop started on its own (another probe series in the same
// process) gets the processors back from the first, alone or not.
func TestOneProcTwoLoops(t *testing.T) {
	for _, alone := range []bool{false, true} {
		withProcs(t, 4)
		first := oneProc(true)
		second := oneProc(alone)
		if n := runtime.GOMAXPROCS(0); n != 4 {
			t.Errorf("second loop (alone %v) beside a lone one: GOMAXPROCS %d, want 4", alone, n)
		}
		first()
		second()
		if n := runtime.GOMAXPROCS(0); n != 4 || procs.busy != 0 || procs.prev != 0 {
			t.Fatalf("after both: GOMAXPROCS %d, busy %d, prev %d", n, procs.busy, procs.prev)
		}
	}
}

// seenProbe records GOMAXPROCS during its probe's loop.
type seenProbe struct {
	Probe
	s *procsSeen
}

func (p *seenProbe) Run(ctx context.Context, _ func(done, total int64)) (Run, error) {
	return p.Probe.Run(ctx, p.s.progress)
}

// Two read probes measured together both read on every processor.
func TestMeasureAllKeepsProcs(t *testing.T) {
	withProcs(t, 3)
	dir := t.TempDir()
	path, _ := randomFile(t, dir, 2<<20)
	directOK(t, path)
	var a, b procsSeen
	pa := &seenProbe{&ReadProbe{Path: path, BS: 64 << 10, Size: -1}, &a}
	pb := &seenProbe{&ReadProbe{Path: path, BS: 64 << 10, Size: -1}, &b}
	if _, err := MeasureAll(context.Background(), []Probe{pa, pb}, Options{Repeat: 2}); err != nil {
		t.Fatal(err)
	}
	if a.min != 3 || b.min != 3 {
		t.Errorf("GOMAXPROCS fell to %d and %d while two probes read", a.min, b.min)
	}
}

// The loop allocates nothing per block: the marks that the repeats are
// compared by have their room before the loop (appends that grow it
// allocate, and with enough of them the garbage collector starts in
// the middle of a run). Counting allocations does not tell: the
// runtime's own (new threads, channel waits) come and go.
func TestReadLoopMarksPreallocated(t *testing.T) {
	const blocks = 3001
	path, _ := randomFile(t, t.TempDir(), blocks*4096)
	directOK(t, path)
	for _, v := range []Verify{VerifyWarmup, VerifyFull} {
		p := &ReadProbe{Path: path, BS: 4 << 10, Size: -1, Verify: v}
		r, err := p.run(context.Background(), nil, new(atomic.Int64))
		if err != nil {
			t.Fatal(err)
		}
		marks := r.smarks
		if v == VerifyFull {
			marks = r.marks
		}
		if len(marks) != blocks || cap(marks) != blocks {
			t.Errorf("%s: %d marks in room for %d, want %d made before the loop", v, len(marks), cap(marks), blocks)
		}
	}
}
