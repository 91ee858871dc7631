package regs

import (
	"fmt"
	"strings"
)

// Class says what a field is to citune: a tuning knob to sweep, driver
// configuration that may be changed with care, or live state that the
// running driver owns from moment to moment.
type Class int

// Field classes.
const (
	// ClassConfig is configuration the driver sets up once (port speed
	// options, wake-up enables, TT hub address): `set` may change it.
	ClassConfig Class = iota
	// ClassKnob is a tuning knob (ITC, bursts, SDIS, park, FIFO tuning).
	ClassKnob
	// ClassLive is live state: list addresses, doorbells, run/stop,
	// schedule enables, interrupt enables, port reset and suspend, the
	// PHY's type and width, OTG control, endpoint prime and flush,
	// status. Writing it under a running driver can stop a transfer, lose
	// a DMA list or reset a device: `set` needs an explicit flag and
	// snapshots never write it back.
	ClassLive
)

// liveRegisters hold nothing but live state (each is a DMA address, a
// doorbell, a counter or status).
var liveRegisters = map[string]string{
	"USBSTS":           "status bits; writing 1 clears a pending interrupt the driver has not handled",
	"FRINDEX":          "the frame counter; writing it while the schedule runs shifts periodic transfers",
	"DEVICEADDR":       "PERIODICLISTBASE in host role (the DMA address of the periodic schedule) or the device address the host assigned",
	"PERIODICLISTBASE": "the DMA address of the periodic schedule",
	"ASYNCLISTADDR":    "the DMA address of the asynchronous schedule (host) or the endpoint list (device); a wrong value makes the controller fetch from arbitrary memory",
	"ENDPTNAK":         "endpoint NAK status",
	"ENDPTSETUPSTAT":   "setup-packet status the gadget driver is about to handle",
	"ENDPTPRIME":       "doorbell: writing 1 starts a transfer on an endpoint",
	"ENDPTFLUSH":       "doorbell: writing 1 drops the transfers queued on an endpoint",
	"ENDPTSTAT":        "endpoint buffer status",
	"ENDPTCOMPLETE":    "transfer-complete status the gadget driver is about to handle",
	"ULPI_VIEWPORT":    "writing it starts a PHY register transaction",
	"USBINTR":          "the interrupt enables the driver waits on: clearing one leaves its transfers hanging, setting one raises interrupts it does not handle",
	"OTGSC":            "OTG control of the role-switch driver: ID pull-up, VBUS charge and discharge, and the ID and session interrupts it waits on",
}

// liveFields are the live-state fields of registers that also hold
// configuration or knobs, with what writing them can break.
var liveFields = map[string]string{
	"USBCMD.RS":    "run/stop: 0 halts the controller under the driver",
	"USBCMD.RST":   "controller reset: every register returns to its reset value",
	"USBCMD.PSE":   "periodic schedule enable, owned by the driver",
	"USBCMD.ASE":   "asynchronous schedule enable, owned by the driver: 0 stops every bulk transfer",
	"USBCMD.IAA":   "interrupt-on-async-advance doorbell",
	"USBCMD.SUTW":  "setup tripwire semaphore of the gadget driver",
	"USBCMD.ATDTW": "add-dTD tripwire semaphore of the gadget driver",
	"USBCMD.FS":    "frame list size: must match the periodic list the driver allocated",
	"USBCMD.FS2":   "frame list size: must match the periodic list the driver allocated",
	"PORTSC1.CCS":  "connect status",
	"PORTSC1.PE":   "port enable: 0 disables the port and disconnects the device",
	"PORTSC1.FPR":  "force port resume",
	"PORTSC1.SUSP": "port suspend: 1 suspends the attached device",
	"PORTSC1.PR":   "port reset: 1 resets the attached device (a disk loses its state)",
	"PORTSC1.PP":   "port power: 0 powers the attached device off",
	"PORTSC1.PO":   "port owner",
	"PORTSC1.PHCD": "PHY low-power suspend: 1 stops the PHY clock",
	"PORTSC1.PTC":  "port test mode: anything but 0 stops normal traffic",
	"PORTSC1.PIC":  "port indicator",
	"PORTSC1.PTS1": "PHY type (UTMI, ULPI, serial), set to the board's wiring: a wrong one cuts the port off its PHY",
	"PORTSC1.PTS2": "PHY type bit 2 (HSIC), set to the board's wiring: a wrong one cuts the port off its PHY",
	"PORTSC1.PTW":  "PHY data width (8 or 16 bits), set to the PHY: a wrong one garbles every transfer",
	"USBMODE.CM":   "controller mode: host, device or idle, owned by the role switch",
	"OTGSC.VD":     "VBUS discharge",
	"OTGSC.VC":     "VBUS charge",
	"OTGSC.HADP":   "hardware-assisted data pulse",
	"OTGSC.HABA":   "hardware-assisted B-disconnect to A-connect",
	"OTGSC.DP":     "data pulsing",
}

// ClassOf classifies field f of register r (f nil: the register as a
// whole, which is live when any of its fields is). Read-only,
// write-1-to-clear and self-clearing fields are live state (status and
// doorbells), as are the endpoint control registers of the gadget driver.
func ClassOf(r *Register, f *Field) Class {
	if liveRegister(r) || f == nil && r.ReadOnly {
		return ClassLive
	}
	if f == nil {
		c := ClassConfig
		for i := range r.Fields {
			switch ClassOf(r, &r.Fields[i]) {
			case ClassLive:
				return ClassLive
			case ClassKnob:
				c = ClassKnob
			}
		}
		return c
	}
	if _, ok := liveFields[r.Name+"."+f.Name]; ok {
		return ClassLive
	}
	if f.Access == RO || f.Access == W1C || f.Access == SC || f.Access == WC || f.Never {
		return ClassLive
	}
	if f.Knob {
		return ClassKnob
	}
	return ClassConfig
}

// liveRegister reports whether r holds nothing but live state.
func liveRegister(r *Register) bool {
	_, ok := liveRegisters[r.Name]
	return ok || strings.HasPrefix(r.Name, "ENDPTCTRL")
}

// Class classifies the field (or register) the reference names.
func (r Ref) Class() Class { return ClassOf(r.Reg, r.Field) }

// LiveRisk says what writing a live-state reference can break ("" when
// it is not live).
func LiveRisk(ref Ref) string {
	if ref.Class() != ClassLive {
		return ""
	}
	if why, ok := liveRegisters[ref.Reg.Name]; ok {
		return why
	}
	if ref.Field != nil {
		if why, ok := liveFields[ref.Reg.Name+"."+ref.Field.Name]; ok {
			return why
		}
		return "status or doorbell bit owned by the driver"
	}
	if strings.HasPrefix(ref.Reg.Name, "ENDPTCTRL") {
		return "endpoint control owned by the gadget driver (stall, data toggle, enable)"
	}
	var live []string
	for i := range ref.Reg.Fields {
		f := &ref.Reg.Fields[i]
		if ClassOf(ref.Reg, f) == ClassLive {
			live = append(live, f.Name)
		}
	}
	return fmt.Sprintf("the whole register includes live state (%s)", strings.Join(live, ", "))
}

// LiveChanges returns the changes among cs that write live state: a
// field change of a live field, or a whole-register change that alters a
// live field's bits relative to cur (the register's current value, by
// offset) or names a live register. cur may be nil, in which case every
// whole-register change of a register with live fields counts.
func LiveChanges(cs []Change, cur map[uint32]uint32) []Change {
	var out []Change
	for _, c := range cs {
		if c.Ref.Field != nil {
			if c.Ref.Class() == ClassLive {
				out = append(out, c)
			}
			continue
		}
		r := c.Ref.Reg
		if liveRegister(r) {
			out = append(out, c)
			continue
		}
		old, known := cur[r.Offset]
		for i := range r.Fields {
			f := &r.Fields[i]
			if ClassOf(r, f) != ClassLive || f.Access == RO {
				continue
			}
			if f.Access == W1C || f.Access == SC || f.Access == WC || f.Never {
				// Writing 1 acts (clears a status, rings a doorbell).
				if f.Get(c.Value) != 0 {
					out = append(out, c)
					break
				}
				continue
			}
			if !known || f.Get(old) != f.Get(c.Value) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}
