package probe

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unsafe"
)

// This file holds the O_DIRECT plumbing shared by the read and write
// probes: opening, aligned buffers, block device geometry, and turning
// the kernel's terse errno values into explanations.

// sectorSize is the alignment every O_DIRECT transfer must have at least.
const sectorSize = 512

// ioctls from <linux/fs.h>.
const (
	blkSSZGet = 0x1268 // BLKSSZGET: logical block size (int)
)

// alignedBuf is a page-aligned buffer from an anonymous mapping, as
// O_DIRECT needs: memory alignment to the logical block size.
type alignedBuf struct{ b []byte }

func newAlignedBuf(n int) (*alignedBuf, error) {
	size := (n + os.Getpagesize() - 1) / os.Getpagesize() * os.Getpagesize()
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, fmt.Errorf("probe: allocating a %d-byte aligned buffer: %w", n, err)
	}
	return &alignedBuf{b: b[:n:n]}, nil
}

func (a *alignedBuf) free() {
	if a != nil && a.b != nil {
		syscall.Munmap(a.b[:cap(a.b)])
		a.b = nil
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
	var lbs int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), blkSSZGet, uintptr(unsafe.Pointer(&lbs))); e == 0 && lbs > 0 {
		t.lbs = int64(lbs)
	}
	return nil
}

// checkAlign refuses a block size or offset that O_DIRECT cannot use.
func (t *target) checkAlign(bs, offset int64) error {
	if bs%t.lbs != 0 {
		return usagef("--bs %s is not a multiple of %s's logical block size (%d bytes): O_DIRECT needs aligned transfers", fmtSize(bs), t.path, t.lbs)
	}
	if offset%t.lbs != 0 {
		return usagef("--offset %d is not a multiple of %s's logical block size (%d bytes): O_DIRECT needs aligned transfers", offset, t.path, t.lbs)
	}
	return nil
}

// openDirect opens path with O_DIRECT (unless buffered).
func openDirect(path string, flag int, buffered bool) (*os.File, error) {
	if !buffered {
		flag |= syscall.O_DIRECT
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

// explainOpen turns an open or stat error into a sentence a user can act
// on.
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

// explainIO turns an I/O error in the middle of a transfer into a
// sentence that says how far the run got.
func explainIO(op, path string, off, done int64, n int, err error, direct bool, lbs int64) error {
	var errno syscall.Errno
	errors.As(err, &errno)
	where := fmt.Sprintf("%s of %d bytes at offset %d of %s failed after %s", op, n, off, path, fmtSize(done))
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

// fmtSize renders a byte count with a binary unit: "64MiB", "1.5GiB".
func fmtSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%dB", n)
	}
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	v := float64(n) / unit
	i := 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d%s", int64(v), units[i])
	}
	return fmt.Sprintf("%.1f%s", v, units[i])
}
