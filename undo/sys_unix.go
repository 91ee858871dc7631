//go:build unix

package undo

import (
	"os"
	"syscall"
)

// The journal's locks and file identities, on Unix (the boards run
// Linux); sys_windows.go has Windows' (a laptop running the simulator).

const (
	lockSH    = syscall.LOCK_SH
	lockEX    = syscall.LOCK_EX
	lockUN    = syscall.LOCK_UN
	lockNB    = syscall.LOCK_NB
	oNoFollow = syscall.O_NOFOLLOW
)

func sysFlock(f *os.File, how int) error { return syscall.Flock(int(f.Fd()), how) }

// devIno is a file's device and inode.
func devIno(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

// ownerOf is a file's owner.
func ownerOf(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
