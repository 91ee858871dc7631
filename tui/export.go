package tui

import (
	"fmt"
	"math/bits"
	"sort"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// Fragment renders the device-tree fragment and kernel parameters that make
// the knob values vals (by "REG.FIELD", upper case) permanent on controller
// c in role ("host" or "device"). Only properties the kernel honours are
// emitted; everything else (kernel parameters, knobs without a persistent
// mechanism, properties that would be ignored) is a comment, so the text
// is valid dts on its own. source says where the values came from.
func Fragment(p *soc.Profile, c *soc.Controller, role, source string, vals map[string]uint32) string {
	var props, params, notes []string
	seenParam := map[string]bool{}
	val := func(name string) (uint32, bool) {
		v, ok := vals[strings.ToUpper(name)]
		return v, ok
	}
	for i := range p.Knobs {
		k := &p.Knobs[i]
		v, ok := val(k.Field)
		if !ok {
			continue
		}
		dtRole := hasString(k.DTRoles, role)
		paramRole := hasString(k.ParamRoles, role)
		switch {
		case k.DT != "" && dtRole:
			if k.Requires != "" {
				if name, want, ok := strings.Cut(k.Requires, "="); ok {
					got, have := val(name)
					w, err := regs.ParseNumber(want)
					if !have || err != nil || got != w {
						notes = append(notes, fmt.Sprintf("%s=%d: %s left out, it takes effect only with %s (the values have %s=%d)", k.Field, v, k.DT, k.Requires, name, got))
						continue
					}
				}
			}
			if k.DT == "non-zero-ttctrl-ttha" {
				if v == 0 {
					notes = append(notes, fmt.Sprintf("%s=0: %s left out (the default)", k.Field, k.DT))
				} else {
					props = append(props, k.DT+";")
					if v != 0x7f {
						notes = append(notes, fmt.Sprintf("%s=%#x: the driver writes 0x7f for %s, not %#x", k.Field, v, k.DT, v))
					}
				}
				continue
			}
			if k.DTMax != nil && v > *k.DTMax {
				notes = append(notes, fmt.Sprintf("%s=%d: %s left out, above the binding's maximum %#x", k.Field, v, k.DT, *k.DTMax))
				continue
			}
			props = append(props, fmt.Sprintf("%s = <%#x>;", k.DT, v))
		case k.Param != "" && paramRole:
			p, note := paramValue(k, v, vals)
			if note != "" {
				notes = append(notes, note)
				continue
			}
			if !seenParam[k.Param] {
				seenParam[k.Param] = true
				params = append(params, p)
			}
		case k.None != "":
			if atReset(p, k.Field, v) {
				continue // nothing to persist
			}
			notes = append(notes, fmt.Sprintf("%s=%d: no persistent mechanism. %s", k.Field, v, k.None))
		case k.DT != "":
			notes = append(notes, fmt.Sprintf("%s=%d: %s is not kept in %s role (%s)", k.Field, v, k.DT, role, k.Driver))
		default:
			notes = append(notes, fmt.Sprintf("%s=%d: %s applies in %s role only", k.Field, v, k.Param, strings.Join(k.ParamRoles, "/")))
		}
	}
	sort.Strings(params)
	var b strings.Builder
	fmt.Fprintf(&b, "/* citune: %s %s (%s), %s role */\n", p.Name, c.Label, c.Node, role)
	for _, l := range wrap("source: "+strings.ReplaceAll(source, "*/", "* /"), 74, "   ") {
		fmt.Fprintf(&b, "/* %s */\n", l)
	}
	if len(params) == 0 {
		b.WriteString("/* kernel command line: nothing needed */\n")
	} else {
		fmt.Fprintf(&b, "/* kernel command line: %s */\n", strings.Join(params, " "))
	}
	fmt.Fprintf(&b, "&%s {\n", c.Label)
	for _, pr := range props {
		fmt.Fprintf(&b, "\t%s\n", pr)
	}
	b.WriteString("};\n")
	if len(notes) > 0 {
		b.WriteString("/*\n * notes:\n")
		for _, n := range notes {
			for i, l := range wrap(strings.ReplaceAll(n, "*/", "* /"), 72, "    ") {
				if i == 0 {
					l = "- " + l
				}
				fmt.Fprintf(&b, " *   %s\n", l)
			}
		}
		b.WriteString(" */\n")
	}
	return b.String()
}

// atReset reports whether field name has its documented reset value v.
func atReset(p *soc.Profile, name string, v uint32) bool {
	ref, err := p.Map.Lookup(name)
	if err != nil || ref.Field == nil || !ref.Reg.ResetKnown {
		return false
	}
	return ref.Field.Get(ref.Reg.Reset) == v
}

// paramValue renders a kernel parameter for knob k at value v, or a note
// when the value cannot be expressed.
func paramValue(k *soc.Knob, v uint32, vals map[string]uint32) (string, string) {
	switch k.ParamEncoding {
	case "log2":
		if v == 0 || v&(v-1) != 0 {
			return "", fmt.Sprintf("%s=%d: %s cannot express it (it sets 2^N micro-frames, N = 0..6)", k.Field, v, k.Param)
		}
		n := bits.TrailingZeros32(v)
		if n > 6 {
			return "", fmt.Sprintf("%s=%d: above what %s allows (N <= 6)", k.Field, v, k.Param)
		}
		return fmt.Sprintf("%s=%d", k.Param, n), ""
	case "park":
		reg, _, _ := strings.Cut(strings.ToUpper(k.Field), ".")
		aspe, ok1 := vals[reg+".ASPE"]
		asp, ok2 := vals[reg+".ASP"]
		if !ok1 || !ok2 {
			return "", fmt.Sprintf("%s=%d: %s needs both ASPE and ASP", k.Field, v, k.Param)
		}
		if aspe == 0 {
			return k.Param + "=0", ""
		}
		return fmt.Sprintf("%s=%d", k.Param, asp), ""
	}
	return fmt.Sprintf("%s=%d", k.Param, v), ""
}

func hasString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// knobValues collects the value of every knob of p from raw register
// values (by offset).
func knobValues(p *soc.Profile, raw map[uint32]uint32) map[string]uint32 {
	out := map[string]uint32{}
	for i := range p.Knobs {
		ref, err := p.Map.Lookup(p.Knobs[i].Field)
		if err != nil || ref.Field == nil {
			continue
		}
		if v, ok := raw[ref.Reg.Offset]; ok {
			out[strings.ToUpper(ref.String())] = ref.Field.Get(v)
		}
	}
	return out
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
