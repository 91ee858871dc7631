//go:build !linux

package probe

import (
	"context"
	"errors"
	"os"
	"os/exec"
)

// Other systems than Linux (a laptop reading results files): the read and
// write probes need Linux's block devices, O_DIRECT and /proc, and say so;
// the sim probe and the cmd probe run.

var errNeedsLinux = errors.New("this probe needs Linux (the board); this build reads results and runs the simulator")

const oDirect = 0

func mmapAnon(n int) ([]byte, error) { return make([]byte, n), nil }

func munmap([]byte) {}

func madviseHuge([]byte) bool { return false }

func blockSize(*os.File) int64 { return 0 }

func sysPread(int, []byte, int64) (int, error)  { return 0, errNeedsLinux }
func sysPwrite(int, []byte, int64) (int, error) { return 0, errNeedsLinux }
func sysSync()                                  {}

func rdevOf(os.FileInfo) uint64 { return 0 }

func ownGroup(*exec.Cmd) {}

func openNonblock(string) (int, error) { return -1, errNeedsLinux }
func sysRead(int, []byte) (int, error) { return 0, errNeedsLinux }
func sysClose(int) error               { return nil }

// ring: no io_uring here; reads would go through sysPread.
type ring struct{}

func newRing() (*ring, error) { return nil, errNeedsLinux }

func (*ring) Close() error { return nil }

func (*ring) pread(ctx context.Context, fd int, b []byte, off int64) (int, bool, error) {
	return 0, false, errNeedsLinux
}
