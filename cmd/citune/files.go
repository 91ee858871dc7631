package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// writeOutput writes an output file (snapshot, image, report). It is
// never written through a symlink (a link planted in a shared directory
// must not make a root process overwrite its target), and an existing
// file is replaced only when replace is set.
func writeOutput(path string, data []byte, replace bool) error {
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: citune does not write output through one (give the real path)", path)
	case err == nil && !replace:
		return fmt.Errorf("%s exists: --force replaces it", path)
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | syscall.O_NOFOLLOW
	if replace {
		flags |= os.O_TRUNC
	} else {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return fmt.Errorf("%s is a symbolic link: citune does not write output through one (give the real path)", path)
		}
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
