package mmio

import (
	"fmt"
	"os"
	"syscall"
)

// MapFile maps size bytes of the file at path from its offset 0: a saved
// register image of one controller window. The same Read32/Write32 code
// as for /dev/mem is used; with writable false, writes fault and are
// reported as errors.
func MapFile(path string, size uint32, writable bool) (*Window, error) {
	flag, prot := os.O_RDONLY, syscall.PROT_READ
	if writable {
		flag, prot = os.O_RDWR, syscall.PROT_READ|syscall.PROT_WRITE
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, fmt.Errorf("register image: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("register image: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("register image %s: not a regular file", path)
	}
	if st.Size() < int64(size) {
		return nil, fmt.Errorf("register image %s: holds %d bytes, the controller window needs %#x (make one with `citune mkimage`)", path, st.Size(), size)
	}
	page := os.Getpagesize()
	n := (int(size) + page - 1) / page * page
	if int64(n) > st.Size() {
		// mapping past EOF would SIGBUS on access; map exactly the file
		// prefix we need instead when the file ends inside the last page.
		n = int(size)
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, n, prot, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("register image %s: mmap: %w", path, err)
	}
	return &Window{mem: b[:size], base: 0, what: path, unmap: func() error { return syscall.Munmap(b) }}, nil
}
