package mmio

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"periph.io/x/host/v3/pmem"
)

// ErrStrictDevmem is wrapped when the kernel refuses to map a region that a
// driver has claimed (CONFIG_IO_STRICT_DEVMEM).
var ErrStrictDevmem = errors.New("the kernel refused /dev/mem for this region")

// ErrNotRoot is wrapped when /dev/mem cannot be opened for lack of privilege.
var ErrNotRoot = errors.New("cannot open /dev/mem")

// DevMem is the path of the physical memory device; tests never touch it.
const DevMem = "/dev/mem"

// MapPhys maps size bytes of physical memory at base through /dev/mem
// (periph.io pmem maps whole pages around the window; only the window is
// exposed).
func MapPhys(base uint64, size uint32) (*Window, error) {
	// pmem caches the open /dev/mem and wraps its open error as text, so
	// open it here first to explain a failure precisely.
	f, err := os.OpenFile(DevMem, os.O_RDWR|os.O_SYNC, 0)
	if err != nil {
		switch {
		case errors.Is(err, os.ErrPermission):
			return nil, fmt.Errorf("%w: %v: run citune as root (or give it CAP_SYS_RAWIO)", ErrNotRoot, err)
		case errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("%w: %v: this kernel has no /dev/mem (CONFIG_DEVMEM=n)", ErrNotRoot, err)
		}
		return nil, fmt.Errorf("%w: %v", ErrNotRoot, err)
	}
	f.Close()
	v, err := pmem.Map(base, int(size))
	if err != nil {
		if isEPERM(err) {
			return nil, fmt.Errorf("mapping %#08x+%#x: %w: a driver owns this page and the kernel has CONFIG_IO_STRICT_DEVMEM; boot with iomem=relaxed on the kernel command line, or unload the USB drivers (%v)", base, size, ErrStrictDevmem, err)
		}
		return nil, fmt.Errorf("mapping %#08x+%#x through %s: %w", base, size, DevMem, err)
	}
	return &Window{mem: v.Bytes(), base: base, what: DevMem, unmap: v.Close}, nil
}

// isEPERM reports whether a pmem.Map error is the kernel's EPERM. pmem
// formats the mmap error with %v (periph.io/x/host/v3 pmem/mem_linux.go),
// so errors.Is cannot see the errno; its text is the only trace left.
func isEPERM(err error) bool {
	return errors.Is(err, syscall.EPERM) || strings.HasSuffix(err.Error(), syscall.EPERM.Error())
}
