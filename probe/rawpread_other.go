//go:build !linux || !(arm || amd64 || arm64 || riscv64 || ppc64le || ppc64 || s390x || loong64 || mips64 || mips64le)

package probe

import "syscall"

// rawPread falls back to the scheduler-aware pread where the raw
// system call's argument layout is not written down here.
func rawPread(fd int, b []byte, off int64) (int, error) { return syscall.Pread(fd, b, off) }

const haveRawPread = false
