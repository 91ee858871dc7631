//go:build unix

package mmio

import (
	"os"
	"syscall"
)

// An image opens without blocking on a FIFO and without becoming the
// controlling terminal.
const openImageFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY

// mapShared maps n bytes of f from offset 0, shared.
func mapShared(f *os.File, n int, writable bool) ([]byte, func() error, error) {
	prot := syscall.PROT_READ
	if writable {
		prot |= syscall.PROT_WRITE
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, n, prot, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return b, func() error { return syscall.Munmap(b) }, nil
}

// rdevOf is a device file's device number.
func rdevOf(fi os.FileInfo) (uint64, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Rdev), true
}
