package probe

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// ring is a minimal io_uring (Linux 5.6 and later) for the read probe:
// one read at a time, submitted and waited for with one raw
// io_uring_enter, the same single system call per read as dd's read(2).
//
// Decision: why io_uring. A raw pread (one the Go scheduler is not told
// about) is cheap, but a read stuck in the kernel keeps its processor and
// holds up every stop-the-world of the garbage collector, and with it the
// whole process and its signal handling (Ctrl-C could not restore). An
// ordinary pread is safe, but the runtime takes the processor away from
// a goroutine making back-to-back system calls: thread wake-ups in every
// read. io_uring_enter's wait can be bounded (waitSlice, Linux 5.11):
// the loop comes back to Go code every few milliseconds, so nothing
// stalls and no scheduler bookkeeping is paid per read. Where io_uring
// is missing (old kernels, kernel.io_uring_disabled, seccomp) the probe
// falls back to the ordinary pread.
type ring struct {
	fd      int
	sqRing  []byte
	cqRing  []byte
	sqes    []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqArray *uint32
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    unsafe.Pointer
	single  bool
	// arg bounds every wait (IORING_ENTER_EXT_ARG): see enter.
	arg getEventsArg
	ts  kernelTimespec
}

type getEventsArg struct {
	sigmask   uint64
	sigmaskSz uint32
	pad       uint32
	ts        uint64
}

type kernelTimespec struct{ sec, nsec int64 }

// waitSlice bounds one wait in the kernel: the longest the read loop
// keeps its processor without passing through Go code. A shorter read
// costs one system call, like dd's; a 30 ms read over USB a few.
const waitSlice = 10_000_000 // ns

const (
	sysIOUringSetup = 425 // the same number on every architecture
	sysIOUringEnter = 426

	ioringOpRead        = 22
	ioringEnterGetevts  = 1
	ioringEnterExtArg   = 1 << 3
	ioringFeatSingleMap = 1
	ioringFeatExtArg    = 1 << 8
	ioringOffSQRing     = 0
	ioringOffCQRing     = 0x8000000
	ioringOffSQEs       = 0x10000000
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

// errNoRing is returned when io_uring cannot be used here.
var errNoRing = errors.New("io_uring is not available")

// newRing sets up a ring of two entries, or returns errNoRing.
func newRing() (*ring, error) {
	var p uringParams
	fd, _, e := syscall.Syscall(sysIOUringSetup, 2, uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, errNoRing
	}
	r := &ring{fd: int(fd), single: p.features&ioringFeatSingleMap != 0}
	fail := func() (*ring, error) { r.Close(); return nil, errNoRing }
	if p.features&ioringFeatExtArg == 0 {
		return fail() // before Linux 5.11: no bounded wait
	}
	r.ts = kernelTimespec{nsec: waitSlice}
	r.arg.ts = uint64(uintptr(unsafe.Pointer(&r.ts)))
	sqSize := int(p.sqOff.array + p.sqEntries*4)
	cqSize := int(p.cqOff.cqes + p.cqEntries*16)
	if r.single {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sqRing, err = syscall.Mmap(r.fd, ioringOffSQRing, sqSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		return fail()
	}
	if r.single {
		r.cqRing = r.sqRing
	} else if r.cqRing, err = syscall.Mmap(r.fd, ioringOffCQRing, cqSize, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		return fail()
	}
	if r.sqes, err = syscall.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*64, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED|syscall.MAP_POPULATE); err != nil {
		return fail()
	}
	u32 := func(b []byte, off uint32) *uint32 { return (*uint32)(unsafe.Pointer(&b[off])) }
	r.sqHead, r.sqTail = u32(r.sqRing, p.sqOff.head), u32(r.sqRing, p.sqOff.tail)
	r.sqMask = *u32(r.sqRing, p.sqOff.ringMask)
	r.sqArray = u32(r.sqRing, p.sqOff.array)
	r.cqHead, r.cqTail = u32(r.cqRing, p.cqOff.head), u32(r.cqRing, p.cqOff.tail)
	r.cqMask = *u32(r.cqRing, p.cqOff.ringMask)
	r.cqes = unsafe.Pointer(&r.cqRing[p.cqOff.cqes])
	return r, nil
}

// Close releases the ring. The kernel finishes or cancels a request
// still in flight by itself.
func (r *ring) Close() error {
	if r.sqes != nil {
		syscall.Munmap(r.sqes)
	}
	if r.cqRing != nil && !r.single {
		syscall.Munmap(r.cqRing)
	}
	if r.sqRing != nil {
		syscall.Munmap(r.sqRing)
	}
	r.sqes, r.cqRing, r.sqRing = nil, nil, nil
	return syscall.Close(r.fd)
}

// enter is io_uring_enter as a raw system call: the runtime is not told,
// which is safe because the wait ends after waitSlice at the latest (see
// ring), and the loop then passes a safe point.
func (r *ring) enter(submit, wait uint32) syscall.Errno {
	_, _, e := syscall.RawSyscall6(sysIOUringEnter, uintptr(r.fd), uintptr(submit), uintptr(wait), ioringEnterGetevts|ioringEnterExtArg,
		uintptr(unsafe.Pointer(&r.arg)), unsafe.Sizeof(r.arg))
	return e
}

// safePoint is a call the runtime can stop the goroutine at: not a leaf,
// so it has the stack check where a pending preemption request is
// honoured.
//
//go:noinline
func safePoint() { safePointLeaf() }

//go:noinline
func safePointLeaf() {}

// pread reads len(b) bytes at off of fd through the ring. When ctx is
// cancelled while the read is in flight it returns ctx's error with
// inflight set: the read goes on into b, which must not be reused.
func (r *ring) pread(ctx context.Context, fd int, b []byte, off int64) (n int, inflight bool, err error) {
	tail := atomic.LoadUint32(r.sqTail)
	idx := tail & r.sqMask
	sqe := r.sqes[idx*64 : idx*64+64 : idx*64+64]
	clear(sqe)
	sqe[0] = ioringOpRead
	*(*int32)(unsafe.Pointer(&sqe[4])) = int32(fd)
	*(*uint64)(unsafe.Pointer(&sqe[8])) = uint64(off)
	*(*uint64)(unsafe.Pointer(&sqe[16])) = uint64(uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	*(*uint32)(unsafe.Pointer(&sqe[24])) = uint32(len(b))
	*(*uint32)(unsafe.Add(unsafe.Pointer(r.sqArray), 4*uintptr(idx))) = idx
	atomic.StoreUint32(r.sqTail, tail+1)
	submit := uint32(1)
	waited := false // a wait ended without the read: look at ctx
	for {
		head := atomic.LoadUint32(r.cqHead)
		if head != atomic.LoadUint32(r.cqTail) {
			cqe := unsafe.Add(r.cqes, uintptr(head&r.cqMask)*16)
			res := *(*int32)(unsafe.Add(cqe, 8))
			atomic.StoreUint32(r.cqHead, head+1)
			if res < 0 {
				return 0, false, syscall.Errno(-res)
			}
			return int(res), false, nil
		}
		if submit > 0 && atomic.LoadUint32(r.sqHead) == tail+1 {
			submit = 0 // the kernel took it
		}
		if waited && submit == 0 {
			if err := ctx.Err(); err != nil {
				return 0, true, err
			}
		}
		e := r.enter(submit, 1)
		waited = e == syscall.ETIME || e == syscall.EINTR
		safePoint() // where the runtime may stop this goroutine
		switch e {
		case 0, syscall.ETIME, syscall.EINTR, syscall.EAGAIN, syscall.EBUSY:
		default:
			if submit > 0 {
				return 0, false, e
			}
		}
	}
}
