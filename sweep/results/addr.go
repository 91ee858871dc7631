package results

import (
	"encoding/json"
	"fmt"

	"github.com/citune/citune/soc"
)

// Addr is a bus address, in JSON a hex string ("0x02184200") as every
// --json writes addresses; a number (the first form) is still read.
type Addr uint64

// MarshalJSON writes the address as a hex string.
func (a Addr) MarshalJSON() ([]byte, error) { return json.Marshal(fmt.Sprintf("%#08x", uint64(a))) }

// UnmarshalJSON reads a hex string or a number.
func (a *Addr) UnmarshalJSON(b []byte) error {
	v, err := soc.ParseJSONAddr(b, 64)
	*a = Addr(v)
	return err
}
