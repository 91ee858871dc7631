package undo

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// Windows (a laptop running the simulator, reading results): the locks
// are LockFileEx on the lock files' first byte, as flock's shared and
// exclusive locks are; files have no device and inode here, so an image
// target is refused (images need mmap, which this build has not), and
// no owner check is made (NTFS ACLs are not Unix modes).

const (
	lockSH    = 1
	lockEX    = 2
	lockNB    = 4
	lockUN    = 8
	oNoFollow = 0
)

func sysFlock(f *os.File, how int) error {
	h := windows.Handle(f.Fd())
	ol := new(windows.Overlapped)
	if how&lockUN != 0 {
		return windows.UnlockFileEx(h, 0, 1, 0, ol)
	}
	var flags uint32
	if how&lockEX != 0 {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if how&lockNB != 0 {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	err := windows.LockFileEx(h, flags, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return syscall.EWOULDBLOCK
	}
	return err
}

func devIno(os.FileInfo) (dev, ino uint64, ok bool) { return 0, 0, false }

func ownerOf(os.FileInfo) (uint32, bool) { return 0, false }
