package regs

import (
	"fmt"
	"strings"
)

// Accessor reads and writes 32-bit registers at byte offsets from the start
// of a controller window. Implementations perform exactly one aligned 32-bit
// load or store per call.
type Accessor interface {
	Read32(off uint32) (uint32, error)
	Write32(off uint32, v uint32) error
}

// Access is how software may use a field.
type Access uint8

const (
	// RW fields are read and written normally.
	RW Access = iota
	// RO fields are read-only: writes are refused by Encode and ignored by
	// hardware.
	RO
	// W1C fields are write-1-to-clear status bits. A read-modify-write
	// stores 0 into them unless the user explicitly asked to clear them.
	W1C
	// WriteOnce fields take one write after reset (USBMODE.CM); citune
	// refuses to change them.
	WriteOnce
	// SC fields are self-clearing commands (doorbells, resets). A
	// read-modify-write stores 0 into them unless asked.
	SC
	// WC fields are counters any write to their register clears (not
	// write-1-to-clear: TXFILLTUNING.TXSCHHEALTH). A read-modify-write
	// resets them as a side effect, so nothing compares them and a change
	// may only ask for 0.
	WC
)

var accessNames = [...]string{RW: "RW", RO: "RO", W1C: "W1C", WriteOnce: "WO1", SC: "SC", WC: "WC"}

func (a Access) String() string {
	if int(a) < len(accessNames) {
		return accessNames[a]
	}
	return fmt.Sprintf("Access(%d)", uint8(a))
}

// ParseAccess accepts the names used in profiles: RW, RO, W1C, WO1 (or
// write-once), SC (or self-clearing), WC (or write-clears). Case is ignored.
func ParseAccess(s string) (Access, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "RW", "":
		return RW, nil
	case "RO":
		return RO, nil
	case "W1C", "RW1C":
		return W1C, nil
	case "WO1", "WRITE-ONCE", "WRITEONCE":
		return WriteOnce, nil
	case "SC", "SELF-CLEARING":
		return SC, nil
	case "WC", "WRITE-CLEARS":
		return WC, nil
	}
	return RW, fmt.Errorf("unknown access kind %q (want RW, RO, W1C, WO1, SC or WC)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (a Access) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Access) UnmarshalText(b []byte) error {
	v, err := ParseAccess(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}
