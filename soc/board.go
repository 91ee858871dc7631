package soc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/citune/citune/regs"
)

// BoardValue is one value Linux leaves in a field on a running board
// (a profile's [[board]] entry): from the device tree, a driver default
// or the SoC's glue flags. The simulated controller and `citune mkimage`
// start from these values, because no board citune tunes sits at reset.
type BoardValue struct {
	Field string `toml:"field"` // REG.FIELD (or a unique FIELD)
	Value uint32 `toml:"value"`
	// Roles and Controllers (labels) limit the value; empty: every one.
	Roles       []regs.Role `toml:"roles"`
	Controllers []string    `toml:"controllers"`
	// Source says where the value comes from (DT property, driver
	// default, glue flag), or that it is assumed and why.
	Source string `toml:"source"`
}

// BoardValues returns the profile's board values for a controller in
// role, with their resolved fields.
func (p *Profile) BoardValues(role regs.Role) []regs.Change {
	var cs []regs.Change
	inRole := func(r regs.Role) bool { return strings.EqualFold(string(r), string(role)) }
	for _, b := range p.Board {
		if len(b.Roles) > 0 && !slices.ContainsFunc(b.Roles, inRole) {
			continue
		}
		ref, err := p.Map.Lookup(b.Field)
		if err != nil || ref.Field == nil {
			continue // rejected when the profile was loaded
		}
		cs = append(cs, regs.Change{Ref: ref, Value: b.Value})
	}
	return cs
}

func (p *Profile) checkBoard(l *locator, ps *problems, m *regs.Map) {
	for i := range p.Board {
		b := &p.Board[i]
		at := fmt.Sprintf("board[%d]", i)
		ref, ok := fieldRef(l, ps, m, "board", at, i, b.Field)
		if !ok {
			continue
		}
		b.Field = ref.String()
		if b.Value > ref.Field.WidthMax() {
			ps.add(l.at(at+".value"), "board %s: value %d does not fit the field's %d bits", b.Field, b.Value, ref.Field.Width)
		}
		if strings.TrimSpace(b.Source) == "" {
			ps.add(l.at(at), "board %s: say where the value comes from (source)", b.Field)
		}
		for k, lbl := range b.Controllers {
			if _, err := p.Controller(lbl); err != nil {
				ps.add(l.at(fmt.Sprintf("%s.controllers[%d]", at, k)), "board %s: no controller %q", b.Field, lbl)
			}
		}
		badRoles(l, ps, at+".roles", b.Roles, "board "+b.Field)
	}
}

// Assumed is what a board value that no source gives rests on: a
// [[board]] entry whose source starts with "assumed" (vf610's
// SBUSCFG.AHBBRST, borrowed from the i.MX6).
func (b *BoardValue) Assumed() bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(b.Source)), "assumed")
}

// AssumedValue returns the source of the board entry when the value v of
// field ref on t is an assumption rather than a reading of silicon (t is
// the simulator or an image, and v the profile's assumed board value),
// else "". Every output that shows such a value marks it (issue 27).
func (t *Target) AssumedValue(ref regs.Ref, v uint32) string {
	if t == nil || t.Kind == KindDevMem || ref.Field == nil || t.Profile == nil {
		return ""
	}
	for i := range t.Profile.Board {
		b := &t.Profile.Board[i]
		if b.Assumed() && strings.EqualFold(b.Field, ref.String()) && b.Value == v {
			return b.Source
		}
	}
	return ""
}
