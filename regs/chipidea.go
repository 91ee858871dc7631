package regs

import (
	"slices"
	"strconv"
)

// Sources (see ../shared/reference/chipidea.md in the project's steering
// notes for the full citations):
//   [SDK]  Freescale i.MX6 Platform SDK register headers (regsusbcore.h):
//          reset values, access kinds and field descriptions.
//   [LNX]  Linux drivers/usb/chipidea/bits.h, ci.h, core.c and
//          include/linux/usb/ehci_def.h: the masks the driver uses.
// Offsets are from the controller base with the i.MX glue's capoffset
// 0x100 and CAPLENGTH 0x40 (non-LPM map, HCCPARAMS bit 17 = 0).

// itcValues are the legal USBCMD.ITC values [SDK] with the time each
// means at 125 µs per micro-frame.
var itcValues = []Enum{
	{0, "IMMEDIATE", "interrupt at once (0 us)", false},
	{1, "UF1", "1 micro-frame (125 us)", false},
	{2, "UF2", "2 micro-frames (250 us)", false},
	{4, "UF4", "4 micro-frames (500 us)", false},
	{8, "UF8", "8 micro-frames (1 ms)", false},
	{16, "UF16", "16 micro-frames (2 ms)", false},
	{32, "UF32", "32 micro-frames (4 ms)", false},
	{64, "UF64", "64 micro-frames (8 ms)", false},
}

// ahbbrstValues are the SBUSCFG.AHBBRST encodings [SDK].
var ahbbrstValues = []Enum{
	{0, "INCR", "incremental burst of unspecified length only; BURSTSIZE sets the length", false},
	{1, "INCR4", "INCR4 bursts, then single transfers", false},
	{2, "INCR8", "INCR8, INCR4, then single transfers", false},
	{3, "INCR16", "INCR16, INCR8, INCR4, then single transfers", false},
	{4, "RESERVED4", "reserved, do not use", true},
	{5, "INCR4_INCR", "INCR4, then unspecified-length INCR", false},
	{6, "INCR8_INCR", "INCR8, INCR4, then unspecified-length INCR", false},
	{7, "INCR16_INCR", "INCR16, INCR8, INCR4, then unspecified-length INCR", false},
}

const (
	// Notes are one line each (dump prints them under the register); the
	// profiles' knob "driver" texts say the same at length, per SoC.
	noteUSBCMD = "host role: ehci-hcd rewrites ITC and park from its cached USBCMD"
	noteBurst  = "Linux rewrites it from the DT burst properties at every reset"
	noteSDIS   = "Linux sets SDIS at every reset from SoC glue flags (no DT property)"
)

// ChipIdea returns a fresh copy of the ChipIdea controller map as found on
// i.MX6 (offsets 0x000-0x1DC of one window), reset values [SDK] mx6dq.
// Decision: the map is a table of literals (chipidea_table.go), laid out
// as data; built by constructor calls it was 49 KB of ARM code. Registers
// and fields are copied, the value lists (never changed) shared.
func ChipIdea() *Map {
	m := &Map{Name: "chipidea", Registers: make([]Register, len(chipIdea), len(chipIdea)+7)}
	for i, r := range chipIdea {
		r.Fields = slices.Clone(r.Fields)
		r.HostFields = slices.Clone(r.HostFields)
		m.Registers[i] = r
	}
	for n := range uint32(7) {
		d := strconv.Itoa(int(n + 1))
		m.Registers = append(m.Registers, Register{Offset: 0x1C4 + 4*n, Name: "ENDPTCTRL" + d, ResetKnown: true, DeviceOnly: true,
			Source: SourceSDK, Desc: "Endpoint " + d + " control (device).", Fields: slices.Clone(endptctrlFields)})
	}
	return m
}

// SourceSDK is where the built-in reset values come from (chipidea.md
// §0, §2); profiles for other SoCs say whether it holds there.
const SourceSDK = "i.MX6 Platform SDK regsusbcore.h (mx6dq, USB_UOG_* and USB_UHx_* register sets)"

// SourceTTHA: TTCTRL is not in the SDK; the binding documents TTHA's
// default (its only field): "if not [set], the value will be 0x0, this is
// the default value".
const SourceTTHA = "DT binding chipidea,usb2-common.yaml (non-zero-ttctrl-ttha): TTHA is 0x0 by default, the other bits are not described"

// srcHostDCCPARAMS: the SDK's USB_UHx sets list no DCCPARAMS, but Linux
// needs HC=1 on every core (ci_hdrc_host_init(), host.c) and takes the
// endpoint count from DEN (hw_device_init(), core.c); with no device part
// DC=0 and DEN=0. QEMU's ChipIdea model reads 0x100 for the same reason.
const srcHostDCCPARAMS = "host-only core: HC=1, DC=0, DEN=0, derived: Linux ci_hdrc_host_init() (drivers/usb/chipidea/host.c) refuses a core whose DCCPARAMS.HC reads 0 and the host-only ports probe; no device part (i.MX6 SDK USB_UHx sets); QEMU hw/usb/chipidea.c reads 0x100"
