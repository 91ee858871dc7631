package probe

import (
	"context"
	"os"
	"syscall"
)

// preader is the part of a file the read probe uses: an open file read
// through io_uring, or pread where the ring is missing or fails.
type preader interface {
	pread(b []byte, off int64) (int, error)
	file() *os.File // nil for fakes
	Close() error
}

type osFile struct {
	f  *os.File
	fd int
	// ring, when set, makes the reads (see ring); ctx is the run's.
	ring *ring
	ctx  context.Context
	// inflight is set when a cancelled read is still going on in the
	// kernel: its buffer must not be freed or reused.
	inflight bool
}

// pread reads through the ring, else with an ordinary system call, never
// a raw one (ring says why). Its cost is small here: nothing else is
// runnable while the loop reads, so the monitor thread leaves a read
// alone for 10 ms before it looks (bench/probe-vs-dd.sh).
func (o *osFile) pread(b []byte, off int64) (int, error) {
	if o.ring != nil {
		n, inflight, err := o.ring.pread(o.ctx, o.fd, b, off)
		o.inflight = inflight
		if !ringFailed(err) {
			return n, err
		}
		// The ring itself failed (not the device): Linux 6.1 on ARM
		// cancels block-device reads it hands to its workers
		// (ECANCELED; seen in e2e/scenarios/04). Read with pread from
		// now on, in this process too.
		ringBroken.Store(true)
		o.ring.Close()
		o.ring = nil
	}
	for {
		n, err := sysPread(o.fd, b, off)
		if err == syscall.EINTR {
			continue
		}
		return max(n, 0), err
	}
}

// ringFailed tells errors of the ring itself from errors of the read:
// those the kernel gives for a request it would not or could not run.
// pread repeats a real error (EINVAL for a misaligned O_DIRECT read).
func ringFailed(err error) bool {
	switch err {
	case syscall.ECANCELED, syscall.EOPNOTSUPP, syscall.ENOSYS, syscall.EINVAL, syscall.EAGAIN:
		return true
	}
	return false
}

func (o *osFile) file() *os.File { return o.f }
func (o *osFile) Close() error {
	if o.ring != nil {
		o.ring.Close()
	}
	return o.f.Close()
}

func openRead(path string, buffered bool) (preader, error) {
	f, err := openDirect(path, os.O_RDONLY, buffered)
	if err != nil {
		return nil, err
	}
	return &osFile{f: f, fd: int(f.Fd())}, nil
}
