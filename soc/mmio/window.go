package mmio

import (
	"errors"
	"fmt"
	"runtime/debug"
	"unsafe"
)

// ErrFault is wrapped by errors from accesses that faulted.
var ErrFault = errors.New("bus fault")

// ErrRange is wrapped by errors for offsets outside the window or unaligned.
var ErrRange = errors.New("offset outside the window or unaligned")

// Window is a mapped controller window.
type Window struct {
	mem   []byte // the window itself
	base  uint64 // physical base (or file offset) for messages
	what  string // "/dev/mem" or the file path
	unmap func() error
}

// Size is the window length in bytes.
func (w *Window) Size() uint32 { return uint32(len(w.mem)) }

// String describes the window: "/dev/mem 0x02184200+0x200".
func (w *Window) String() string {
	return fmt.Sprintf("%s %#08x+%#x", w.what, w.base, len(w.mem))
}

func (w *Window) check(off uint32) error {
	if w.mem == nil {
		return fmt.Errorf("%s: window is closed", w.what)
	}
	if off%4 != 0 || uint64(off)+4 > uint64(len(w.mem)) {
		return fmt.Errorf("%s: offset %#x: %w (window %#x bytes, 32-bit accesses only)", w.what, off, ErrRange, len(w.mem))
	}
	return nil
}

// Read32 loads the 32-bit word at byte offset off.
func (w *Window) Read32(off uint32) (v uint32, err error) {
	if err := w.check(off); err != nil {
		return 0, err
	}
	defer w.fault(&err, "reading", off)
	return load32((*uint32)(unsafe.Pointer(&w.mem[off]))), nil
}

// Write32 stores v at byte offset off.
func (w *Window) Write32(off uint32, v uint32) (err error) {
	if err := w.check(off); err != nil {
		return err
	}
	defer w.fault(&err, "writing", off)
	store32((*uint32)(unsafe.Pointer(&w.mem[off])), v)
	return nil
}

// fault turns a memory fault panic (SetPanicOnFault in load32 and
// store32) into an error naming the physical address.
func (w *Window) fault(err *error, verb string, off uint32) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s %s %#08x/32: %w: %v", verb, w.what, w.base+uint64(off), ErrFault, r)
	}
}

// load32 is one 32-bit load. It is not inlined so that every call is
// exactly one LDR of the mapped word, never merged or split.
//
//go:noinline
func load32(p *uint32) uint32 {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	return *p
}

// store32 is one 32-bit store.
//
//go:noinline
func store32(p *uint32, v uint32) {
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	*p = v
}

// Close unmaps the window. Accesses after Close return errors.
func (w *Window) Close() error {
	if w.mem == nil {
		return nil
	}
	w.mem = nil
	if w.unmap != nil {
		return w.unmap()
	}
	return nil
}
