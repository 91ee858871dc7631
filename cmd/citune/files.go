package main

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/citune/citune/sweep/results"
)

// existsError is an output file that exists and was not to be replaced:
// fs.ErrExist (the TUI asks before replacing); the CLI's advice names --force.
type existsError struct{ path string }

func (e *existsError) Error() string        { return e.path + " exists" }
func (e *existsError) Is(target error) bool { return target == fs.ErrExist }

// checkOutput says whether path may be written as an output file: never
// through a symbolic link, over a directory or a citune results file
// (--force or not), and over another file only when replace is set.
func checkOutput(path string, replace bool) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: citune does not write output through one (give the real path)", path)
	case fi.IsDir():
		return fmt.Errorf("%s is a directory: give a file name", path)
	case results.IsFile(path):
		return fmt.Errorf("%s is a citune results file: citune never writes over one (give another file name)", path)
	case !replace:
		return &existsError{path}
	}
	return nil
}

// writeOutput writes an output file after checkOutput, never through a
// symlink (a link planted in a shared directory must not make a root
// process overwrite its target).
func writeOutput(path string, data []byte, replace bool) error {
	if err := checkOutput(path, replace); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | oNoFollow
	if replace {
		flags |= os.O_TRUNC
	} else {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ELOOP):
			return fmt.Errorf("%s is a symbolic link: citune does not write output through one (give the real path)", path)
		case errors.Is(err, fs.ErrExist):
			return &existsError{path} // created since the check
		}
		return err
	}
	_, err = f.Write(data)
	err = cmp.Or(err, f.Close())
	return err
}
