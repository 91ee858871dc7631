package probe

import (
	"os"
	"os/exec"
	"syscall"
	"unsafe"
)

// The system calls the real probes make, here for Linux (the boards;
// sys_other.go says what other systems get).

const oDirect = syscall.O_DIRECT

func mmapAnon(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
}

func munmap(b []byte) { syscall.Munmap(b) }

func madviseHuge(b []byte) bool { return syscall.Madvise(b, madvHugepage) == nil }

// blockSize is the logical block size of an open block device (0: not
// known).
func blockSize(f *os.File) int64 {
	var lbs int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), blkSSZGet, uintptr(unsafe.Pointer(&lbs))); e == 0 && lbs > 0 {
		return int64(lbs)
	}
	return 0
}

func sysPread(fd int, b []byte, off int64) (int, error)  { return syscall.Pread(fd, b, off) }
func sysPwrite(fd int, b []byte, off int64) (int, error) { return syscall.Pwrite(fd, b, off) }
func sysSync()                                           { syscall.Sync() }

// rdevOf is the device number of a device file (0 for none).
func rdevOf(st os.FileInfo) uint64 {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Rdev)
	}
	return 0
}

// ownGroup runs cmd in a process group of its own, killed whole on
// cancel (a shell's children too). Pdeathsig kills the command itself
// when citune dies without cancelling (kill -9): a probe left running
// would load the bus under the next session's measurements. It reaches
// the direct child only (a shell's own children outlive it), and it fires
// when the forking thread exits, which in Go happens only to a thread a
// goroutine locked and left locked; citune locks none.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

func openNonblock(path string) (int, error) {
	return syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

func sysRead(fd int, b []byte) (int, error) { return syscall.Read(fd, b) }
func sysClose(fd int) error                 { return syscall.Close(fd) }
