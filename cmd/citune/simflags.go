package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// simOptions are the simulated controller's options from the global flags.
func (a *app) simOptions() (soc.SimOptions, error) {
	o := soc.SimOptions{ResetValues: a.g.resetVals}
	if a.g.noSimDriver {
		o.Driver = soc.SimDriverOff
		if a.g.simCmdline != "" {
			return o, usageErr("--sim-cmdline gives the simulated ehci-hcd its parameters, and --sim-driver=false leaves it out: give one of them")
		}
	}
	switch a.g.simRole {
	case "":
	case "host", "device":
		o.Role = regs.Role(a.g.simRole)
	default:
		return o, usageErr("--sim-role %q: want host or device", a.g.simRole)
	}
	var notes []string
	var err error
	o.Log2IrqThresh, o.Park, notes, err = parseSimCmdline(a.g.simCmdline)
	for _, n := range notes {
		fmt.Fprintf(a.env.stderr, "citune: --sim-cmdline: %s\n", n)
	}
	return o, err
}

// parseSimCmdline reads ehci-hcd's parameters from a kernel command line
// as the kernel does ('-' and '_' alike, the last word winning, numbers
// as kstrtoint/kstrtouint read them). Park above 3 is 3 and a
// log2_irq_thresh outside 0..6 is 0 (as ehci_init() takes them), with a
// note, so a board's /proc/cmdline can be pasted as it is; other words
// are ignored (with a note for ehci_hcd's and the gadgets' qmult). A
// value the kernel would not parse is refused.
func parseSimCmdline(line string) (log2, park uint, notes []string, err error) {
	for _, w := range strings.Fields(line) {
		name, val, ok := strings.Cut(w, "=")
		mod, param, dotted := strings.Cut(strings.ReplaceAll(name, "-", "_"), ".")
		if !dotted {
			continue
		}
		if param == "qmult" && slices.Contains([]string{"g_ncm", "g_ether", "g_cdc", "g_multi"}, mod) {
			notes = append(notes, fmt.Sprintf("%s is not read here: give the sim probe --qmult %s (after --)", w, val))
		}
		if mod != "ehci_hcd" {
			continue
		}
		switch param {
		case "log2_irq_thresh", "park":
		case "ignore_oc", "hird":
			notes = append(notes, fmt.Sprintf("%s: the simulated ehci-hcd does not model %s; ignored", w, param))
			continue
		default:
			notes = append(notes, fmt.Sprintf("%s: ehci_hcd has no parameter %q; ignored, as the kernel ignores it", w, param))
			continue
		}
		n, perr := kernelInt(val, param == "log2_irq_thresh")
		if !ok || perr != nil {
			return 0, 0, nil, usageErr("--sim-cmdline: %s: not a number ehci_hcd takes (the kernel would refuse it)", w)
		}
		if param == "log2_irq_thresh" {
			log2 = uint(max(n, 0))
			if n < 0 || n > 6 {
				log2 = 0
				notes = append(notes, fmt.Sprintf("%s: ehci_hcd takes a threshold outside 0..6 as 0 (ITC 1), as ehci_init() does", w))
			}
			continue
		}
		park = uint(min(n, 3))
		if n > 3 {
			notes = append(notes, fmt.Sprintf("%s: ehci_hcd takes park above 3 as 3, as ehci_init() does", w))
		}
	}
	return log2, park, notes, nil
}

// kernelInt parses s as the kernel's kstrtoint (signed) or kstrtouint
// with base 0 do: an optional sign ('-' only when signed), then 0x or 0X
// and hex digits, 0 and octal digits, or decimal digits; 32 bits.
func kernelInt(s string, signed bool) (int64, error) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-' && signed) {
		neg, s = s[0] == '-', s[1:]
	}
	base := 10
	switch {
	case len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" || strings.ContainsAny(s, "_+-") {
		return 0, strconv.ErrSyntax
	}
	bits := 32
	if signed {
		bits = 31 // the magnitude of an int32
	}
	u, err := strconv.ParseUint(s, base, bits)
	if err != nil {
		return 0, err
	}
	if neg {
		return -int64(u), nil
	}
	return int64(u), nil
}
