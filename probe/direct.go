package probe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/citune/citune/units"
)

// The O_DIRECT plumbing shared by the read and write probes.

// sectorSize is the alignment every O_DIRECT transfer must have at least.
const sectorSize = 512

const (
	blkSSZGet    = 0x1268 // BLKSSZGET (<linux/fs.h>): logical block size (int)
	madvHugepage = 14     // MADV_HUGEPAGE (<linux/mman.h>), on every architecture
)

// alignedBuf is a page-aligned buffer from an anonymous mapping, as
// O_DIRECT needs. base is the whole mapping, which free unmaps.
type alignedBuf struct {
	b    []byte
	base []byte
	huge bool // backed by transparent huge pages (asked for; see newAlignedBuf)
}

// hugeMin is the smallest buffer put on huge pages: below it the huge
// page's own zeroing costs more than it saves.
const hugeMin = 256 << 10

// hugePageSize is the kernel's transparent huge page size, or 0 where it
// has none (32-bit ARM without LPAE, which is every i.MX6 and Vybrid
// kernel in practice, or a kernel built without THP).
var hugePageSize = sync.OnceValue(func() int {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n <= os.Getpagesize() || n&(n-1) != 0 {
		return 0
	}
	return n
})

// newAlignedBuf maps an n-byte buffer and faults every page of it in
// before the timed transfers. With huge, where the kernel has
// transparent huge pages, it starts on a huge page and is MADV_HUGEPAGE.
//
// Decision: huge pages by default. For every O_DIRECT transfer the kernel
// pins the user buffer page by page: 256 page references per read of a
// 1 MiB buffer, most of the CPU `dd iflag=direct` spends
// (bench/probe-vs-dd.sh). On one huge page it is one folio, and the
// probe's own CPU, which competes with the interrupt handling it
// measures, falls to about half of dd's. The device sees the same
// transfers. Boards have no huge pages (hugePageSize): ordinary pages.
func newAlignedBuf(n int, huge bool) (*alignedBuf, error) {
	pg := os.Getpagesize()
	size := (n + pg - 1) / pg * pg
	hp := hugePageSize()
	huge = huge && hp > 0 && n >= hugeMin
	mapSize := size
	if huge {
		size = (n + hp - 1) / hp * hp
		mapSize = size + hp // room to align the start
	}
	base, err := mmapAnon(mapSize)
	if err != nil {
		return nil, fmt.Errorf("probe: allocating a %d-byte aligned buffer: %w", n, err)
	}
	b := base
	if huge {
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(base)))
		skip := int((uintptr(hp) - addr%uintptr(hp)) % uintptr(hp))
		b = base[skip : skip+size : skip+size]
		// A kernel that refuses (THP "never", or a sandbox) leaves
		// ordinary pages: the buffer works the same, only costlier.
		huge = madviseHuge(b)
	}
	for i := 0; i < size; i += pg {
		b[i] = 0 // fault in now, outside the timed transfers
	}
	return &alignedBuf{b: b[:n:n], base: base, huge: huge}, nil
}

func (a *alignedBuf) free() {
	if a != nil && a.base != nil {
		munmap(a.base)
		a.b, a.base = nil, nil
	}
}

// target describes what a path names.
type target struct {
	path  string
	block bool  // a block device
	size  int64 // bytes (file size or device size)
	lbs   int64 // logical block size (block devices), else sectorSize
}

// statTarget looks at path without opening it for I/O.
func statTarget(path string) (target, error) {
	st, err := os.Stat(path)
	if err != nil {
		return target{}, explainOpen(path, err, false)
	}
	t := target{path: path, size: st.Size(), lbs: sectorSize}
	switch {
	case st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0:
		t.block = true
	case st.Mode().IsRegular():
	case st.IsDir():
		return t, fmt.Errorf("%s is a directory: give a file or a block device", path)
	default:
		return t, fmt.Errorf("%s is neither a regular file nor a block device", path)
	}
	return t, nil
}

// geometry fills in size and logical block size of an open block device.
func (t *target) geometry(f *os.File) error {
	if !t.block {
		return nil
	}
	end, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("%s: finding the device size: %w", t.path, err)
	}
	t.size = end
	if lbs := blockSize(f); lbs > 0 {
		t.lbs = lbs
	}
	return nil
}

// checkAlign refuses a block size or offset that O_DIRECT cannot use.
func (t *target) checkAlign(bs, offset int64) error {
	if bs%t.lbs != 0 {
		return usagef("--bs %s is not a multiple of %s's logical block size (%d bytes): O_DIRECT needs aligned transfers", units.Size(bs), t.path, t.lbs)
	}
	if offset%t.lbs != 0 {
		return usagef("--offset %d is not a multiple of %s's logical block size (%d bytes): O_DIRECT needs aligned transfers", offset, t.path, t.lbs)
	}
	return nil
}

// openDirect opens path with O_DIRECT (unless buffered).
func openDirect(path string, flag int, buffered bool) (*os.File, error) {
	if !buffered {
		flag |= oDirect
	}
	f, err := os.OpenFile(path, flag|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, explainOpen(path, err, !buffered)
	}
	return f, nil
}

// ErrNoDirect is wrapped when the file system or device does not support
// O_DIRECT.
var ErrNoDirect = errors.New("O_DIRECT is not supported here")

// explainOpen turns an open or stat error into a sentence to act on.
func explainOpen(path string, err error, direct bool) error {
	var errno syscall.Errno
	errors.As(err, &errno)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s does not exist (is the device plugged in? `lsblk` lists block devices)", path)
	case errno == syscall.EACCES || errno == syscall.EPERM:
		if st, serr := os.Stat(path); serr == nil && st.Mode()&os.ModeDevice != 0 {
			return fmt.Errorf("permission denied opening %s: a block device needs root or membership of its group (usually `disk`)", path)
		}
		return fmt.Errorf("permission denied opening %s: check the permissions of the file and its directories", path)
	case errno == syscall.EINVAL && direct:
		return fmt.Errorf("%w: the file system or device of %s refused O_DIRECT (%v)", ErrNoDirect, path, err)
	case errno == syscall.EBUSY:
		return fmt.Errorf("%s is in use (mounted, or held by LVM, RAID or another driver): refused", path)
	case errno == syscall.EROFS:
		return fmt.Errorf("%s is on a read-only file system", path)
	}
	return err
}

// explainIO turns an I/O error into a sentence that says how far the run
// got.
func explainIO(op, path string, off, done int64, n int, err error, direct bool, lbs int64) error {
	var errno syscall.Errno
	errors.As(err, &errno)
	where := fmt.Sprintf("%s of %d bytes at offset %d of %s failed after %s", op, n, off, path, units.Size(done))
	switch errno {
	case syscall.EINVAL:
		if direct {
			return fmt.Errorf("%w: %s: invalid argument: O_DIRECT transfers must be multiples of the logical block size (%d bytes) at aligned offsets, and some file systems refuse O_DIRECT altogether", ErrNoDirect, where, lbs)
		}
	case syscall.EIO, syscall.ENODEV, syscall.ENXIO:
		return fmt.Errorf("%s: %v: did the device disappear or fail? (see `dmesg`)", where, err)
	case syscall.ENOSPC:
		return fmt.Errorf("%s: no space left on the device for the probe's size", where)
	}
	return fmt.Errorf("%s: %w", where, err)
}
