// Package regs is citune's register model: registers, fields, access kinds,
// enumerated values, and the ChipIdea (CI13xxx) USB controller map used on
// NXP i.MX6 and Vybrid SoCs.
//
// The package is pure: it does no I/O. It decodes raw 32-bit values into
// fields (never hiding a bit: bits no field covers and values without a
// name are shown raw), parses and validates user values, and composes the
// word a read-modify-write stores so that only the requested fields
// change: never a 1 written back into a write-1-to-clear bit, never a
// self-clearing bit re-triggered, never a bit citune must not set
// (USBCMD.RST). Hardware is reached through Accessor (implemented in soc):
// one aligned 32-bit load or store per access. The map's sources are cited
// in chipidea.go; where they disagree the field description says so and
// the decoder shows the disputed bits raw.
package regs
