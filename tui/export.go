package tui

import (
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
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

// role is the controller's role: Config.Role, else as USBMODE.CM says now.
func (s *shared) role() regs.Role {
	if s.cfg.Role != "" {
		return s.cfg.Role
	}
	return soc.RoleOf(s.m, s.cfg.Target.Controller, snapshotOf(s.m, s.cur))
}

// winnerSettings are the sweep winner's values, commented with its win.
func (m *Model) winnerSettings() ([]DTSSetting, string, bool) {
	b, ok := m.sweep.best()
	if !ok {
		return nil, "", false
	}
	if rk := m.sweep.ranking; rk != nil {
		if rk.Verdict.Kind != rank.VerdictApply {
			return m.originalSettings()
		}
		// The verdict's recommendation, not the fastest point (which may
		// need a setting that cannot be made permanent).
		for _, p := range m.sweep.points {
			if p.Point == rk.Verdict.Point && !p.Baseline {
				b = p
			}
		}
	}
	why := "sweep winner, " + strings.TrimPrefix(m.sweep.bestLine(), "best: ")
	var out []DTSSetting
	for _, a := range m.sweep.plan.Axes {
		if v := b.Settings[a.Name]; v != "" {
			out = append(out, DTSSetting{Name: a.Name, Value: v, Comment: "sweep winner " + m.versusOf(b)})
		}
	}
	return out, why, true
}

// originalSettings are the start values of the swept registers, for an
// export after the original settings won (as `citune dts` writes them).
func (m *Model) originalSettings() ([]DTSSetting, string, bool) {
	why := "the original settings: " + m.sweep.bestLine()
	var out []DTSSetting
	for _, a := range m.sweep.plan.Axes {
		if a.Ref.Reg == nil {
			continue // a file or module parameter: its start is not on this screen
		}
		v := strconv.FormatUint(uint64(m.startValue(a.Ref)), 10)
		out = append(out, DTSSetting{Name: a.Name, Value: v, Comment: "original value: every point swept was significantly slower"})
	}
	return out, why, len(out) > 0
}

// versusOf is how the point compares with the baseline, if known.
func (m *Model) versusOf(p results.PointRecord) string {
	if rk := m.sweep.ranking; rk != nil {
		// The finished sweep's comparison, the verdict's.
		if r := rk.Find(p.Point); r != nil && r.VsBaseline != nil {
			return r.VsBaseline.String()
		}
	}
	if v := versus(p); v != "" {
		return v
	}
	return "(" + m.sweep.pointRate(p) + ")"
}
