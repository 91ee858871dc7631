// Package mmio is the only package of citune that uses unsafe and mmap. It
// maps a controller window, from /dev/mem through periph.io's pmem or from
// a plain file, and exposes it as a Window whose Read32 and Write32 each
// perform exactly one aligned 32-bit load or store.
//
// A bus fault during an access (a revoked mapping under
// CONFIG_IO_STRICT_DEVMEM, a clock-gated block) is turned into an error
// with runtime/debug.SetPanicOnFault instead of crashing the process.
package mmio
