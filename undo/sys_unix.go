//go:build unix

package undo

import (
	"os"
	"syscall"
)

const (
	lockSH    = syscall.LOCK_SH
	lockEX    = syscall.LOCK_EX
	lockUN    = syscall.LOCK_UN
	lockNB    = syscall.LOCK_NB
	oNoFollow = syscall.O_NOFOLLOW
)

func sysFlock(f *os.File, how int) error { return syscall.Flock(int(f.Fd()), how) }

func devIno(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), uint64(st.Ino), true
}

func ownerOf(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
