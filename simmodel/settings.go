package simmodel

import (
	"fmt"

	"github.com/citune/citune/regs"
)

// Reader reads controller registers (a regs.Accessor, or the sim
// probe's read-only view of the simulated controller).
type Reader interface {
	Read32(off uint32) (uint32, error)
}

// ReadSettings decodes the settings from the controller's registers
// through m. A register or field the map lacks reads as 0 (a profile
// may leave out what its SoC does not have).
func ReadSettings(m *regs.Map, acc Reader) (Settings, error) {
	var s Settings
	var sdis, aspe uint32
	cache := map[uint32]uint32{}
	for _, x := range []struct {
		reg, field string
		dst        *uint32
	}{
		{"USBCMD", "ITC", &s.ITC},
		{"USBCMD", "ASPE", &aspe},
		{"USBCMD", "ASP", &s.ParkCount},
		{"SBUSCFG", "AHBBRST", &s.AHBBRST},
		{"BURSTSIZE", "RXPBURST", &s.RXPBURST},
		{"BURSTSIZE", "TXPBURST", &s.TXPBURST},
		{"TXFILLTUNING", "TXFIFOTHRES", &s.TXFIFOTHRES},
		{"USBMODE", "SDIS", &sdis},
		{"USBMODE", "CM", &s.CM},
	} {
		r := m.Register(x.reg)
		if r == nil {
			continue
		}
		f := r.Field(x.field)
		if f == nil {
			continue
		}
		v, ok := cache[r.Offset]
		if !ok {
			var err error
			if v, err = acc.Read32(r.Offset); err != nil {
				return s, fmt.Errorf("simulated model: reading %s: %w", x.reg, err)
			}
			cache[r.Offset] = v
		}
		*x.dst = f.Get(v)
	}
	s.SDIS, s.ParkEnable = sdis != 0, aspe != 0
	return s, nil
}
