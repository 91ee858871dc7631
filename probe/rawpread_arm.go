//go:build linux && arm

package probe

import (
	"syscall"
	"unsafe"
)

// rawPread is pread64(2) through RawSyscall6; on 32-bit ARM (EABI) the
// 64-bit offset goes in an aligned register pair after a pad argument.
func rawPread(fd int, b []byte, off int64) (int, error) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), 0, uintptr(off), uintptr(off>>32))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

const haveRawPread = true
