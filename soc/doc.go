// Package soc finds and reaches the hardware: it loads and validates SoC
// profiles (TOML, strict), detects the SoC from the device tree, opens a
// controller window (/dev/mem, a plain file, or the simulated controller),
// checks the controller's identity before anything is written, and takes
// snapshots.
//
// All unsafe and mmap code lives in the subpackage soc/mmio; this package
// and everything above it see only regs.Accessor.
package soc
