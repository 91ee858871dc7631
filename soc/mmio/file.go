package mmio

import (
	"fmt"
	"os"
)

// MapFile maps size bytes of the register image at path from its offset
// 0, for the same Read32/Write32 as /dev/mem; with writable false,
// writes fault and are reported as errors.
func MapFile(path string, size uint32, writable bool) (*Window, error) {
	flag := os.O_RDONLY
	if writable {
		flag = os.O_RDWR
	}
	// Checked before it is opened: opening a FIFO blocks until someone
	// writes to it, and opening a device can act on it.
	pre, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("register image: %w", err)
	}
	if err := regularImage(path, pre); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|openImageFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("register image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("register image: %w", err)
	}
	if err := regularImage(path, st); err != nil {
		return nil, err
	}
	if !os.SameFile(pre, st) {
		return nil, fmt.Errorf("register image %s: replaced while it was opened", path)
	}
	if st.Size() < int64(size) {
		return nil, fmt.Errorf("register image %s: holds %d bytes, the controller window needs %#x (make one with `citune mkimage`)", path, st.Size(), size)
	}
	page := os.Getpagesize()
	n := (int(size) + page - 1) / page * page
	if int64(n) > st.Size() {
		n = int(size) // mapping past EOF would SIGBUS on access
	}
	b, unmap, err := mapShared(f, n, writable)
	if err != nil {
		return nil, fmt.Errorf("register image %s: mmap: %w", path, err)
	}
	return &Window{mem: b[:size], base: 0, what: path, unmap: unmap}, nil
}

// CheckImage is regularImage for a caller that looks at an image before
// it maps one: nothing is opened, so a FIFO cannot block it.
func CheckImage(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return regularImage(path, fi)
}

// regularImage refuses anything but a regular file as a register image:
// a FIFO, socket or device (/dev/mem is reached without --mem-file).
func regularImage(path string, fi os.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m&os.ModeNamedPipe != 0:
		return fmt.Errorf("register image %s: a FIFO, not a regular file (nothing was opened)", path)
	case m&os.ModeSocket != 0:
		return fmt.Errorf("register image %s: a socket, not a regular file (nothing was opened)", path)
	case m&os.ModeDevice != 0:
		if rdev, ok := rdevOf(fi); ok && m&os.ModeCharDevice != 0 && unixMajor(rdev) == 1 && unixMinor(rdev) == 1 {
			return fmt.Errorf("register image %s: /dev/mem, not an image: the board's registers are reached without a register image (nothing was opened)", path)
		}
		return fmt.Errorf("register image %s: a device, not a regular file (nothing was opened)", path)
	}
	return fmt.Errorf("register image %s: not a regular file (nothing was opened)", path)
}

func unixMajor(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&^0xfff }

func unixMinor(dev uint64) uint64 { return dev&0xff | (dev>>12)&^0xff }
