//go:build !unix

package mmio

import (
	"errors"
	"os"
)

// Other systems (Windows): no shared mapping of an image here; report,
// dts, profiles and the simulator need none.

const openImageFlags = 0

func mapShared(*os.File, int, bool) ([]byte, func() error, error) {
	return nil, nil, errors.New("register images need a Unix system (mmap); on this system use --sim, or read results files")
}

func rdevOf(os.FileInfo) (uint64, bool) { return 0, false }
