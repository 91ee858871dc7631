package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/citune/citune/units"
)

// DefaultReadSize is what the read probe reads without a size or duration.
const DefaultReadSize = 256 << 20

// yieldEvery is how often the read loop yields (see run).
const yieldEvery = 8 * time.Millisecond

// maxMarks bounds the per-block hashes kept for comparing repeats.
const maxMarks = 1 << 20

// ReadProbe reads sequentially from a block device or a file with the
// I/O pattern of `dd iflag=direct`: one pread of BS bytes after the other
// into one aligned buffer, O_DIRECT unless Buffered.
//
// Integrity (Verify): a run either hashes every byte (CRC-32 IEEE, as
// `crc32 FILE` or zlib.crc32 print it; hasher) in a second goroutine on
// a second buffer, or checks the sample (SampleStride; sampler) inline.
// Both keep their running CRC at every block boundary (Run.marks and
// Run.smarks), so that repeats can be compared and the first block that
// differs named.
type ReadProbe struct {
	Path     string
	BS       int64         // block size, a multiple of the logical block size
	Size     int64         // bytes to read; 0: DefaultReadSize or to the end; -1: to the end
	Dur      time.Duration // read for this long instead (wrapping round at the end)
	Offset   int64         // where to start
	Buffered bool          // through the page cache, dropped before each run (root)
	// ExpectHash is the hash the data must have ("crc32:1a2b3c4d"); it
	// makes every run hash every byte.
	ExpectHash string
	// Verify says which runs hash every byte (default VerifyWarmup).
	Verify Verify
	// NoRing reads with pread(2) even where io_uring is available (ring).
	NoRing     bool
	SmallPages bool // no transparent huge pages (newAlignedBuf), as on a board

	procRoot string
	// open opens the target; tests replace it to inject faults.
	open func(path string, buffered bool) (preader, error)
}

// Verify selects the read probe's integrity check.
type Verify string

const (
	// VerifyWarmup (the default, also "") hashes every byte of warm-up
	// runs (WarmupContext) and checks the sample of timed runs, so that
	// the timed runs' rate and CPU are the system's, not the hash's.
	VerifyWarmup Verify = "warmup"
	// VerifyFull hashes every byte of every run (--full-hash).
	VerifyFull Verify = "full"
	// VerifyNone checks nothing (--no-hash).
	VerifyNone Verify = "none"
)

// The sample check: SampleBytes (one cache line) at every SampleStride
// of the target's byte offsets (not blocks: runs with other block sizes
// sample the same bytes), about 1/4000 of the data.
// Decision: what costs is not the CRC but fetching data that DMA has
// just written, one cache miss per line; 256 bytes in every 16 KiB cost
// a third of dd's whole CPU time over a fast disk (bench/probe-vs-dd.sh),
// 64 in every 64 KiB still 2 % of the process's CPU. The stride is 64
// bytes more than 256 KiB, so that the sample walks through every cache
// line of a 512-byte USB packet and of a 4 KiB page in turn: a setting
// that corrupts the same word of every packet or page is caught within a
// few MiB; a single flipped byte only by full hashing (VerifyFull).
const (
	SampleStride = 256<<10 + 64
	SampleBytes  = 64
)

type warmupKey struct{}

// WarmupContext marks ctx for a warm-up run (Measure's, the sweep's): a
// read probe in the default mode hashes every byte of it.
func WarmupContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, warmupKey{}, true)
}

// IsWarmup reports whether ctx was marked by WarmupContext.
func IsWarmup(ctx context.Context) bool {
	w, _ := ctx.Value(warmupKey{}).(bool)
	return w
}

func (p *ReadProbe) verify() Verify {
	return cmp.Or(p.Verify, VerifyWarmup)
}

// ringBroken is set once the ring failed in a way pread does not.
var ringBroken atomic.Bool

// Name implements Probe.
func (p *ReadProbe) Name() string {
	var b strings.Builder
	fmt.Fprintf(&b, "read %s bs=%s", p.Path, units.Size(p.BS))
	switch {
	case p.Dur > 0:
		fmt.Fprintf(&b, " duration=%s", p.Dur)
	case p.Size > 0:
		fmt.Fprintf(&b, " size=%s", units.Size(p.Size))
	case p.Size < 0:
		b.WriteString(" size=all")
	}
	b.WriteString(nameFlags(p.Offset, p.Buffered, p.SmallPages))
	switch p.verify() {
	case VerifyNone:
		b.WriteString(" no-hash")
	case VerifyFull:
		b.WriteString(" full-hash")
	}
	return b.String()
}

// plan decides the byte range [start, end) of one pass.
func (p *ReadProbe) plan(t target) (start, end int64, err error) {
	if p.Offset >= t.size && t.size > 0 {
		return 0, 0, usagef("--offset %d is at or past the end of %s (%s)", p.Offset, p.Path, units.Size(t.size))
	}
	avail := t.size - p.Offset
	switch {
	case p.Size > 0 && p.Size > avail:
		return 0, 0, usagef("--size %s from offset %d goes past the end of %s (%s)", units.Size(p.Size), p.Offset, p.Path, units.Size(t.size))
	case p.Size > 0:
		return p.Offset, p.Offset + p.Size, nil
	case p.Size == 0 && p.Dur == 0 && avail > DefaultReadSize:
		return p.Offset, p.Offset + DefaultReadSize, nil
	}
	return p.Offset, t.size, nil
}

// Run implements Probe. The reading happens in a goroutine of its own,
// so that Run returns at once when ctx is cancelled (the package's
// cancellation contract); that goroutine cleans up after itself.
func (p *ReadProbe) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	type out struct {
		r   Run
		err error
	}
	ch := make(chan out, 1)
	var done atomic.Int64
	go func() {
		r, err := p.run(ctx, progress, &done)
		ch <- out{r, err}
	}()
	select {
	case o := <-ch:
		return o.r, o.err
	case <-ctx.Done():
	}
	select {
	case o := <-ch:
		return o.r, o.err
	default:
	}
	n := done.Load()
	r := Run{Bytes: n}
	r.Err = fmt.Sprintf("read %s stopped after %s: %v (a read was still in the kernel; it was left to finish on its own)", p.Path, units.Size(n), context.Cause(ctx))
	return r, fmt.Errorf("read %s stopped after %s: %w", p.Path, units.Size(n), ctx.Err())
}

// readTarget is the opened target: of is f as an *osFile (nil for test
// doubles), [start, end) the range of one pass.
type readTarget struct {
	t          target
	f          preader
	of         *osFile
	start, end int64
}

// openTarget opens, checks and plans the target, with the ring where it
// can; on error it closes what it opened.
func (p *ReadProbe) openTarget(ctx context.Context) (rt readTarget, err error) {
	t, err := statTarget(p.Path)
	if err != nil {
		return rt, err
	}
	open := p.open
	if open == nil {
		open = openRead
	}
	f, err := open(p.Path, p.Buffered)
	if err != nil {
		return rt, err
	}
	defer func() {
		if err != nil {
			f.Close()
		}
	}()
	if of := f.file(); of != nil {
		if err := t.geometry(of); err != nil {
			return rt, err
		}
	}
	if err := t.checkAlign(p.BS, p.Offset); err != nil {
		return rt, err
	}
	of, _ := f.(*osFile)
	if of != nil && !p.NoRing && !ringBroken.Load() {
		if rg, err := newRing(); err == nil {
			of.ring, of.ctx = rg, ctx
		}
	}
	start, end, err := p.plan(t)
	if err != nil {
		return rt, err
	}
	if end <= start {
		return rt, fmt.Errorf("%s is empty from offset %d: nothing to read", p.Path, p.Offset)
	}
	if p.Buffered {
		if err := dropCaches(p.procRoot); err != nil {
			return rt, err
		}
	}
	return readTarget{t: t, f: f, of: of, start: start, end: end}, nil
}

// allocBufs allocates n aligned buffers of bs bytes, all or none.
func allocBufs(n int, bs int64, huge bool) ([]*alignedBuf, error) {
	var bufs []*alignedBuf
	for range n {
		b, err := newAlignedBuf(int(bs), huge)
		if err != nil {
			for _, b := range bufs {
				b.free()
			}
			return nil, err
		}
		bufs = append(bufs, b)
	}
	return bufs, nil
}

// finishRead waits for the hasher and fills in r's amount, time and
// integrity results.
func finishRead(r *Run, h *hasher, smp *sampler, done int64, t0 time.Time, full, sample bool) {
	crc, marks, cpu := h.wait()
	r.fill(done, time.Since(t0), crc)
	r.marks = marks
	r.IntegrityCPU = (cpu + smp.cpu).Seconds()
	if !full {
		r.Hash, r.marks = "", nil
	}
	switch {
	case full:
		r.Integrity = string(VerifyFull)
	case sample:
		r.Integrity = "sample"
	}
	if sample {
		r.Sample = fmt.Sprintf("crc32:%08x", smp.crc)
		r.smarks = smp.marks
	}
}

// checkExpected marks r corrupt when an untimed pass misses --expect-hash.
func (p *ReadProbe) checkExpected(r *Run, start, done int64) {
	if p.ExpectHash == "" || p.Dur != 0 {
		return
	}
	if want := normHash(p.ExpectHash); want != r.Hash {
		r.Corrupt = true
		r.Detail = fmt.Sprintf("the %s read from offset %d to %d hash to %s, expected %s", units.Size(done), start, start+done, r.Hash, want)
	}
}

// readBuffers decides what is checked and allocates the buffers and the
// hasher; release frees the buffers unless a cancelled read still
// writes into one.
func (p *ReadProbe) readBuffers(ctx context.Context, of *osFile, marks int) (h *hasher, full, sample bool, release func(), err error) {
	mode := p.verify()
	full = mode == VerifyFull || p.ExpectHash != "" || (mode == VerifyWarmup && IsWarmup(ctx))
	sample = mode != VerifyNone
	// Full hashing: two buffers, one read into while the other is hashed,
	// so that the device sees the same back-to-back reads as from dd.
	nbuf := 1
	if full {
		nbuf = 2
	}
	bufs, err := allocBufs(nbuf, p.BS, !p.SmallPages)
	if err != nil {
		return nil, false, false, nil, err
	}
	release = func() {
		if of != nil && of.inflight {
			return
		}
		for _, b := range bufs {
			b.free()
		}
	}
	return newHasher(bufs, full, marks), full, sample, release, nil
}

// run reads block after block in one loop, kept in this one function so
// that a block costs no call or allocation beyond the read itself.
func (p *ReadProbe) run(ctx context.Context, progress func(done, total int64), doneBytes *atomic.Int64) (Run, error) {
	rt, err := p.openTarget(ctx)
	if err != nil {
		return Run{}, err
	}
	t, f, of, start, end := rt.t, rt.f, rt.of, rt.start, rt.end
	defer f.Close()
	// An allocation-free loop never starts the garbage collector.
	nm := int(min((end-start+p.BS-1)/p.BS, maxMarks))
	h, full, sample, release, err := p.readBuffers(ctx, of, nm)
	if err != nil {
		return Run{}, err
	}
	defer release()
	smp := sampler{}
	if sample {
		smp.marks = make([]uint32, 0, nm)
	}
	r := Run{markSize: p.BS, markBase: start}
	total := end - start // what progress reports; none for a timed run
	if p.Dur > 0 {
		r.markSpan, total = end-start, 0
	}
	solo := oneProc(!full && of != nil && of.ring != nil)
	defer solo()
	var done int64
	off := start
	t0 := time.Now()
	lastYield := t0
	var deadline time.Time
	if p.Dur > 0 {
		deadline = t0.Add(p.Dur)
	}
	for {
		if err := ctx.Err(); err != nil {
			finishRead(&r, h, &smp, done, t0, full, sample)
			return r, fmt.Errorf("read %s stopped after %s: %w", p.Path, units.Size(done), err)
		}
		if off >= end {
			if p.Dur == 0 {
				break
			}
			off = start // wrap round for a timed run
		}
		want := min(p.BS, end-off)
		n := min((want+t.lbs-1)/t.lbs*t.lbs, p.BS) // O_DIRECT needs whole blocks
		b := h.next()
		// Yield now and then: a goroutine that only makes system calls
		// is never rescheduled, and once it has run 10 ms on the same
		// tick the monitor thread takes it off: from pread, its processor
		// in every read; from the ring's raw waits, by a preemption
		// signal (EINTR). A yield every few milliseconds starts a new
		// tick for one reschedule (on one processor, no wake-up at all);
		// yielding at every read would cost a wake-up of its own
		// (bench/probe-vs-dd.sh).
		if now := time.Now(); now.Sub(lastYield) >= yieldEvery {
			if of != nil && of.ring == nil {
				giveBackProcs() // the ring broke: pread wants idle processors
			}
			runtime.Gosched()
			lastYield = now
		}
		m, err := f.pread(b[:n], off)
		if err != nil {
			h.put(b, 0)
			finishRead(&r, h, &smp, done, t0, full, sample)
			r.Err = explainIO("read", p.Path, off, done, int(n), err, !p.Buffered, t.lbs).Error()
			return r, errors.New(r.Err)
		}
		if m == 0 {
			h.put(b, 0)
			break // end of file
		}
		use := min(int64(m), want)
		if sample {
			smp.add(b[:use], off)
		}
		h.put(b, use)
		done += use
		off += use
		doneBytes.Store(done)
		if progress != nil && ctx.Err() == nil {
			progress(done, total)
		}
		if p.Dur > 0 && !time.Now().Before(deadline) {
			break
		}
		if int64(m) < n { // short read: end of file
			if p.Dur == 0 {
				break
			}
			end = off
		}
	}
	finishRead(&r, h, &smp, done, t0, full, sample)
	p.checkExpected(&r, start, done)
	return r, nil
}

func (r *Run) fill(done int64, el time.Duration, crc uint32) {
	r.Bytes, r.Elapsed = done, el
	if el > 0 {
		r.Rate = float64(done) / el.Seconds()
	}
	r.Hash = fmt.Sprintf("crc32:%08x", crc)
}

// dropCaches is `sync; echo 3 > /proc/sys/vm/drop_caches`.
func dropCaches(procRoot string) error {
	sysSync()
	path := filepath.Join(procRootOr(procRoot), "sys/vm/drop_caches")
	if err := os.WriteFile(path, []byte("3\n"), 0o200); err != nil {
		return fmt.Errorf("buffered reads: dropping the page cache before the run needs root (writing %s: %w)", path, err)
	}
	return nil
}

func procRootOr(s string) string {
	return cmp.Or(s, "/proc")
}
