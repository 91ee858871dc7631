//go:build linux && (amd64 || arm64 || riscv64 || ppc64le || ppc64 || s390x || loong64 || mips64 || mips64le)

package probe

import (
	"syscall"
	"unsafe"
)

// rawPread is pread64(2) through RawSyscall6.
func rawPread(fd int, b []byte, off int64) (int, error) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

const haveRawPread = true
