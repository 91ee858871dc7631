//go:build unix

package host

import (
	"os"
	"syscall"
)

// fileOwner is the uid owning fi.
func fileOwner(fi os.FileInfo) (uint32, bool) {
	if fi == nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
