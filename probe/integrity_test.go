//go:build linux

package probe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// flipReader flips the byte at offset at whenever a read covers it, like
// a setting that corrupts a transfer.
type flipReader struct {
	preader
	at int64
}

func (f *flipReader) pread(b []byte, off int64) (int, error) {
	n, err := f.preader.pread(b, off)
	if f.at >= off && f.at < off+int64(n) {
		b[f.at-off] ^= 0x08
	}
	return n, err
}

// sweepLike measures a baseline and then a point as a sweep does: one
// warm-up and two timed runs each, every run compared with the series'
// first (Reference). corruptPoint makes every read of the point flip the
// byte at at. It returns which runs were found corrupt.
func sweepLike(t *testing.T, path string, v Verify, at int64) []bool {
	t.Helper()
	point := false
	p := &ReadProbe{Path: path, BS: 256 << 10, Size: -1, Verify: v, open: func(path string, buffered bool) (preader, error) {
		f, err := openRead(path, buffered)
		if err != nil || !point {
			return f, err
		}
		return &flipReader{preader: f, at: at}, nil
	}}
	var ref Reference
	var corrupt []bool
	n := 0
	for _, pt := range []bool{false, true} {
		point = pt
		for i := range 3 {
			ctx := context.Background()
			if i == 0 {
				ctx = WarmupContext(ctx)
			}
			res, err := Measure(ctx, p, Options{Repeat: 1})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Runs[0]
			n++
			ref.Check(&r, n)
			corrupt = append(corrupt, r.Corrupt)
		}
	}
	return corrupt
}

// The default mode catches a setting that corrupts every transfer: the
// point's warm-up run hashes every byte and differs from the baseline's,
// even where the flipped byte is outside the timed runs' sample; a byte
// inside the sample is caught in every run. Without a check nothing is.
func TestDefaultCatchesCorruptionInEveryRunOfAPoint(t *testing.T) {
	path, _ := randomFile(t, t.TempDir(), 2<<20)
	directOK(t, path)
	unsampled := int64(3*SampleStride + SampleBytes + 100)
	sampled := int64(5*SampleStride + 17)
	tests := map[string]struct {
		v    Verify
		at   int64
		want string // per run: baseline w, 1, 2, point w, 1, 2
	}{
		"default, unsampled byte": {VerifyWarmup, unsampled, "...X.."},
		"default, sampled byte":   {VerifyWarmup, sampled, "...XXX"},
		"full":                    {VerifyFull, unsampled, "...XXX"},
		"none":                    {VerifyNone, sampled, "......"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got strings.Builder
			for _, c := range sweepLike(t, path, tc.v, tc.at) {
				if c {
					got.WriteByte('X')
				} else {
					got.WriteByte('.')
				}
			}
			if got.String() != tc.want {
				t.Errorf("corrupt runs %s, want %s", got.String(), tc.want)
			}
		})
	}
}

// Full hashing catches a single byte that flips in one timed run; the
// default mode catches it only when the byte is in the sample.
func TestFullHashCatchesOneFlipInOneTimedRun(t *testing.T) {
	tests := map[string]struct {
		v       Verify
		at      int64
		corrupt bool
	}{
		"full, unsampled":    {VerifyFull, 2*SampleStride + SampleBytes + 1234, true},
		"default, unsampled": {VerifyWarmup, 2*SampleStride + SampleBytes + 1234, false},
		"default, sampled":   {VerifyWarmup, 3*SampleStride + 3, true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			path, _ := randomFile(t, t.TempDir(), 1<<20)
			directOK(t, path)
			runs := 0
			p := &ReadProbe{Path: path, BS: 64 << 10, Size: -1, Verify: tc.v, open: func(path string, buffered bool) (preader, error) {
				runs++
				f, err := openRead(path, buffered)
				if err != nil || runs != 3 {
					return f, err
				}
				return &flipReader{preader: f, at: tc.at}, nil
			}}
			res, err := Measure(context.Background(), p, Options{Warmup: 1, Repeat: 3})
			if got := errors.Is(err, ErrCorrupt); got != tc.corrupt {
				t.Fatalf("corrupt %v (err %v), want %v", got, err, tc.corrupt)
			}
			if tc.corrupt && (len(res.Runs) != 3 || !res.Runs[2].Corrupt || !strings.Contains(res.Runs[2].Detail, "block at byte offset")) {
				t.Errorf("runs %+v: want the third run (second timed) corrupt with its block named", res.Runs)
			}
			if !tc.corrupt && len(res.Runs) != 4 {
				t.Errorf("%d runs, want 4", len(res.Runs))
			}
		})
	}
}

// The sample is taken at offsets of the target, so that runs with other
// block sizes and start offsets sample the same bytes.
func TestSampleIndependentOfBlockSize(t *testing.T) {
	path, data := randomFile(t, t.TempDir(), 1<<20+3*512)
	directOK(t, path)
	for _, bs := range []int64{512, 4096, 20 << 10, 1 << 20} {
		for _, off := range []int64{0, 512, 64<<10 - 512, 64 << 10} {
			r, err := (&ReadProbe{Path: path, BS: bs, Offset: off, Size: -1}).Run(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := sampleOf(data[off:], off); r.Sample != want || r.Hash != "" || r.Integrity != "sample" {
				t.Errorf("bs %d offset %d: sample %s hash %q (%s), want sample %s and no hash", bs, off, r.Sample, r.Hash, r.Integrity, want)
			}
		}
	}
}

// fifoReader reads a FIFO that nobody writes, with an ordinary blocking
// system call, like osFile.pread on a device that stopped answering.
type fifoReader struct{ fd int }

func (f *fifoReader) pread(b []byte, off int64) (int, error) { return syscall.Read(f.fd, b) }
func (f *fifoReader) file() *os.File                         { return nil }
func (f *fifoReader) Close() error                           { return syscall.Close(f.fd) }

// A read stuck in the kernel stalls nothing: while it blocks, other
// goroutines run and a garbage collection (which stops the world)
// completes, and cancelling the context makes Run return. The test has
// no timer: if the read stalled the runtime, runtime.GC or Run would
// never return and the test binary's -timeout would end it.
func TestBlockedReadDoesNotStallTheProcess(t *testing.T) {
	dir := t.TempDir()
	path, _ := randomFile(t, dir, 1<<20)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	blocked := make(chan struct{})
	p := &ReadProbe{Path: path, BS: 4096, Size: -1, open: func(string, bool) (preader, error) {
		// Read-write, so that the open does not wait for a writer;
		// blocking, so that the read waits in the kernel.
		fd, err := syscall.Open(fifo, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		close(blocked)
		return &fifoReader{fd: fd}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	type out struct {
		r   Run
		err error
	}
	done := make(chan out)
	go func() {
		r, err := p.Run(ctx, nil)
		done <- out{r, err}
	}()
	<-blocked
	for range 3 {
		runtime.GC()
	}
	ran := make(chan int)
	go func() { ran <- 42 }()
	if <-ran != 42 {
		t.Fatal("another goroutine did not run")
	}
	cancel()
	o := <-done
	if !errors.Is(o.err, context.Canceled) || o.r.Err == "" {
		t.Errorf("Run returned %v (run error %q), want context.Canceled", o.err, o.r.Err)
	}
}

// packetFlipReader flips the byte at offset at of every 512-byte packet,
// like a setting that corrupts the same word of every USB packet.
type packetFlipReader struct {
	preader
	at int64
}

func (f *packetFlipReader) pread(b []byte, off int64) (int, error) {
	n, err := f.preader.pread(b, off)
	for i := int64(0); i < int64(n); i++ {
		if (off+i)%512 == f.at {
			b[i] ^= 0x01
		}
	}
	return n, err
}

// The sample walks through the cache lines of a packet, so that
// corruption of the same word of every packet in one timed run is caught
// by the default mode, wherever that word is.
func TestSampleCatchesTheSameWordOfEveryPacket(t *testing.T) {
	path, _ := randomFile(t, t.TempDir(), 9*SampleStride) // 9 samples: every line of a packet
	directOK(t, path)
	for _, at := range []int64{0, 100, 300, 511} {
		runs := 0
		p := &ReadProbe{Path: path, BS: 128 << 10, Size: -1, open: func(path string, buffered bool) (preader, error) {
			runs++
			f, err := openRead(path, buffered)
			if err != nil || runs != 3 {
				return f, err
			}
			return &packetFlipReader{preader: f, at: at}, nil
		}}
		res, err := Measure(context.Background(), p, Options{Warmup: 1, Repeat: 3})
		if !errors.Is(err, ErrCorrupt) || len(res.Runs) != 3 || !res.Runs[2].Corrupt {
			t.Errorf("byte %d of every packet: err %v, runs %d: want the third run corrupt", at, err, len(res.Runs))
		}
	}
}

// The io_uring read's wait does not stall the process either: a read of
// a FIFO that nobody writes waits in the kernel while garbage
// collections complete, and returns once the context is cancelled
// (reporting the read still in flight). No timer: a stall hangs the
// test until the test binary's -timeout.
func TestRingReadBlockedDoesNotStallTheProcess(t *testing.T) {
	rg, err := newRing()
	if err != nil {
		t.Skipf("no io_uring here: %v", err)
	}
	defer rg.Close()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	fd, err := syscall.Open(fifo, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	ctx, cancel := context.WithCancel(context.Background())
	type out struct {
		n        int
		inflight bool
		err      error
	}
	done := make(chan out)
	buf := make([]byte, 4096)
	go func() {
		n, inflight, err := rg.pread(ctx, fd, buf, -1)
		done <- out{n, inflight, err}
	}()
	for range 3 {
		runtime.GC()
	}
	cancel()
	o := <-done
	if !errors.Is(o.err, context.Canceled) || !o.inflight {
		t.Errorf("pread returned %d, in flight %v, %v: want context.Canceled with the read in flight", o.n, o.inflight, o.err)
	}
}

// Both read paths, io_uring and pread(2), read the same bytes.
func TestReadPathsAgree(t *testing.T) {
	path, data := randomFile(t, t.TempDir(), 2<<20+4096)
	directOK(t, path)
	for _, noRing := range []bool{false, true} {
		r, err := (&ReadProbe{Path: path, BS: 256 << 10, Size: -1, Verify: VerifyFull, NoRing: noRing}).Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hash != crcOf(data) || r.Bytes != int64(len(data)) {
			t.Errorf("no ring %v: %d bytes, hash %s, want %d, %s", noRing, r.Bytes, r.Hash, len(data), crcOf(data))
		}
	}
}
