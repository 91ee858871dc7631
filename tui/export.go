package tui

import (
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
)

// snapshotOf turns raw values by offset into a snapshot of m.
func snapshotOf(m *regs.Map, raw map[uint32]uint32) soc.Snapshot {
	var s soc.Snapshot
	for i := range m.Registers {
		r := &m.Registers[i]
		if v, ok := raw[r.Offset]; ok {
			s.Registers = append(s.Registers, soc.RegValue{Name: r.Name, Offset: r.Offset, Value: v})
		}
	}
	return s
}

// liveSettings lists every knob with its value in raw.
func liveSettings(p *soc.Profile, raw map[uint32]uint32) []dtsout.Setting {
	return dtsout.LiveSettings(p, snapshotOf(p.Map, raw))
}

// winnerSettings are the sweep winner's values, each commented with how
// sure the win is.
func (m Model) winnerSettings() ([]dtsout.Setting, string, bool) {
	b, ok := m.sweep.best()
	if !ok {
		return nil, "", false
	}
	why := "sweep winner, " + strings.TrimPrefix(m.bestLine(), "best: ")
	var out []dtsout.Setting
	for i, a := range m.sweep.plan.Axes {
		if i < len(b.Values) && b.Values[i] != "" {
			out = append(out, dtsout.Setting{Name: a.Name, Value: b.Values[i], Comment: "sweep winner " + versusOf(b)})
		}
	}
	return out, why, true
}

// roleOf decides the controller's role: USBMODE.CM when it says host or
// device, else the controller's only role, else host (assumed).
func roleOf(c *soc.Controller, m *regs.Map, raw map[uint32]uint32) (role string, assumed bool) {
	if r := m.Register("USBMODE"); r != nil {
		if f := r.Field("CM"); f != nil {
			if v, ok := raw[r.Offset]; ok {
				switch f.Get(v) {
				case 3:
					return "host", false
				case 2:
					return "device", false
				}
			}
		}
	}
	if len(c.Roles) == 1 {
		return c.Roles[0], false
	}
	if c.DRMode == "peripheral" {
		return "device", false
	}
	return "host", true
}

// versusOf is how the point compares with the baseline, if known.
func versusOf(p SweepPoint) string {
	if p.Versus != "" {
		return p.Versus
	}
	return "(" + fmtRate(median(p.Rates)) + ")"
}
