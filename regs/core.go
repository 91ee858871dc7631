package regs

import (
	"fmt"
	"slices"
	"strings"
)

// Core is the kind of ChipIdea core a controller is built from. The i.MX6
// Platform SDK register headers give the OTG core (USB_UOG_*) a device
// part that the host-only cores (USB_UH1..3_* on i.MX6Q/DL, USB_UH on
// i.MX6SL and i.MX6SX, the HSIC ports) do not have: no HWDEVICE,
// DCIVERSION, DEVICEADDR (0x154 is PERIODICLISTBASE there),
// ENDPTLISTADDR, ENDPTNAK/ENDPTNAKEN, OTGSC or ENDPT* registers.
// DCCPARAMS stays, reading HC=1 DC=0: Linux's ci_hdrc_host_init()
// refuses a core whose DCCPARAMS.HC reads 0 (drivers/usb/chipidea/host.c).
type Core string

const (
	// CoreOTG has the host and the device register sets.
	CoreOTG Core = "otg"
	// CoreHostOnly has the host register set only.
	CoreHostOnly Core = "host-only"
)

// ParseCore accepts "otg" and "host-only" (case ignored).
func ParseCore(s string) (Core, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "otg":
		return CoreOTG, nil
	case "host-only":
		return CoreHostOnly, nil
	}
	return "", fmt.Errorf("unknown core %q (want otg or host-only)", s)
}

// Absence says why a register of the full map is not on a controller.
type Absence struct {
	Name   string
	Offset uint32
	Why    string
	// ReplacedBy names the register the core has at Offset instead, if
	// any (an access to the offset is then an access to that register).
	ReplacedBy string
}

// ForCore returns a copy of m for a controller built from core c: on a
// host-only core without the DeviceOnly registers (one with HostName
// renamed, with HostFields: 0x154 is PERIODICLISTBASE there), kept in
// Absent so that lookups and accessors can say why they are missing.
func (m *Map) ForCore(c Core) *Map { return m.Clone().narrow(c) }

// ForCoreShared is ForCore sharing the registers' field lists (and, for a
// core that is not host-only, the registers) with m: for a map that is
// only read (soc/packed.go).
func (m *Map) ForCoreShared(c Core) *Map {
	out := *m
	if c != CoreHostOnly {
		out.Core = c
		return &out // the registers too
	}
	out.Registers = slices.Clone(m.Registers)
	out.Absent = slices.Clone(m.Absent)
	return out.narrow(c)
}

// narrow makes out, a copy, the map of core c (see ForCore).
func (out *Map) narrow(c Core) *Map {
	out.Core = c
	if c != CoreHostOnly {
		return out
	}
	kept := out.Registers[:0]
	for _, r := range out.Registers {
		switch {
		case r.HostName != "":
			if !strings.EqualFold(r.Name, r.HostName) {
				out.Absent = append(out.Absent, Absence{Name: r.Name, Offset: r.Offset, ReplacedBy: r.HostName,
					Why: fmt.Sprintf("a host-only ChipIdea core has %s at %#03x instead", r.HostName, r.Offset)})
			}
			r.Name, r.Fields, r.Desc = r.HostName, r.HostFields, r.HostDesc
			if r.Name == "PERIODICLISTBASE" && r.ResetKnown && r.Source == SourceSDK {
				r.Source = SourceSDK + " (HW_USBC_UH1_PERIODICLISTBASE)"
			}
			r.HostName, r.HostFields, r.HostDesc, r.DeviceOnly = "", nil, "", false
			r.Note = ""
			kept = append(kept, r)
		case r.HostSource != "":
			// Kept, with the value a host-only core reads, unless a
			// profile already said the reset value is unknown.
			if r.ResetKnown {
				r.Reset, r.Source = r.HostReset, r.HostSource
			}
			r.HostSource, r.HostReset = "", 0
			kept = append(kept, r)
		case r.DeviceOnly:
			out.Absent = append(out.Absent, Absence{Name: r.Name, Offset: r.Offset,
				Why: "a host-only ChipIdea core has no device registers (i.MX6 SDK: not in the USB_UHx register set)"})
		default:
			kept = append(kept, r)
		}
	}
	out.Registers = kept
	return out
}

// AbsentAt returns why the register at offset off is absent from this
// controller, or nil if it is not one of the absent registers.
func (m *Map) AbsentAt(off uint32) *Absence {
	for i := range m.Absent { // every guarded access asks: no copies
		if a := &m.Absent[i]; a.Offset == off && a.ReplacedBy == "" {
			return a
		}
	}
	return nil
}

func (m *Map) absentNamed(name string) *Absence {
	if i := slices.IndexFunc(m.Absent, func(a Absence) bool { return strings.EqualFold(a.Name, name) }); i >= 0 {
		return &m.Absent[i]
	}
	return nil
}

// ErrAbsent is returned (wrapped) for a register the controller's core
// does not have, by Lookup and by accessors that guard a map.
var ErrAbsent = fmt.Errorf("register absent on this controller")

// AbsentError describes an access to an absent register.
func (a *Absence) Error() string {
	return fmt.Sprintf("register %s (offset %#03x) is absent on this controller: %s", a.Name, a.Offset, a.Why)
}

// Unwrap makes errors.Is(err, ErrAbsent) hold.
func (a *Absence) Unwrap() error { return ErrAbsent }

// Guard wraps an accessor so that reads and writes of the registers absent
// from m are refused (with the Absence as error) before they reach the
// hardware, an image or the simulator.
func Guard(acc Accessor, m *Map) Accessor {
	if len(m.Absent) == 0 {
		return acc
	}
	return guarded{acc, m}
}

type guarded struct {
	acc Accessor
	m   *Map
}

func (g guarded) Read32(off uint32) (uint32, error) {
	if a := g.m.AbsentAt(off); a != nil {
		return 0, fmt.Errorf("read refused: %w", a)
	}
	return g.acc.Read32(off)
}

func (g guarded) Write32(off, v uint32) error {
	if a := g.m.AbsentAt(off); a != nil {
		return fmt.Errorf("write refused: %w", a)
	}
	return g.acc.Write32(off, v)
}
