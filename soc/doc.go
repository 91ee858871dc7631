// Package soc finds and reaches the hardware: it loads and validates SoC
// profiles (TOML, strict), detects the SoC from the device tree, opens a
// controller window (/dev/mem, a plain file, or the simulated controller),
// checks the controller's identity before anything is written, and keeps
// snapshots and the on-disk journal that lets `citune restore` undo a run
// that was killed.
//
// All unsafe and mmap code lives in the subpackage soc/mmio; this package
// and everything above it see only regs.Accessor.
package soc
