// Package regs is citune's register model: registers, fields, access kinds,
// enumerated values, and the ChipIdea (CI13xxx) USB controller map used on
// NXP i.MX6 and Vybrid SoCs.
//
// The package is pure: it does no I/O. It decodes raw 32-bit values into
// fields (never hiding a bit: bits that no field covers and values that have
// no name are shown raw), parses and validates user values, and composes the
// 32-bit word that a read-modify-write must store so that only the requested
// fields change. Composition never writes a 1 back into a write-1-to-clear
// bit, never re-triggers a self-clearing bit, and refuses to set bits that
// citune must never set (USBCMD.RST).
//
// Hardware is reached through the Accessor interface declared here and
// implemented elsewhere (package soc); every access is one aligned 32-bit
// load or store.
//
// Sources for the ChipIdea map are cited in chipidea.go; where they disagree
// the field description says so and the decoder shows the disputed bits raw.
package regs
