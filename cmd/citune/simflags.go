package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/citune/citune/soc"
)

// The simulated controller's options from the global flags.

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
		o.Role = soc.Role(a.g.simRole)
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
// as the kernel does (module.param=value words, the last one winning):
// park above 3 is taken as 3 (ehci_init() clamps it) and a
// log2_irq_thresh outside 0..6 as 0 (ehci_init() resets it), each with a
// note, so a board's /proc/cmdline can be pasted as it is. Words of
// other modules are ignored; the gadgets' qmult, which the sim probe
// takes, gets a note saying where it goes. A value that is not a number
// is refused: the kernel would refuse to load the module.
func parseSimCmdline(line string) (log2, park uint, notes []string, err error) {
	for _, w := range strings.Fields(line) {
		name, val, ok := strings.Cut(w, "=")
		mod, param, dotted := strings.Cut(name, ".")
		mod = strings.ReplaceAll(mod, "-", "_")
		if dotted && (mod == "g_ncm" || mod == "g_ether" || mod == "usb_f_ncm") && param == "qmult" {
			notes = append(notes, fmt.Sprintf("%s is not read here: give the sim probe --qmult %s (after --)", w, val))
			continue
		}
		if !dotted || mod != "ehci_hcd" {
			continue
		}
		if !ok {
			return 0, 0, nil, usageErr("--sim-cmdline: %q has no value", w)
		}
		// log2_irq_thresh is an int parameter, park a uint one.
		n, perr := strconv.ParseInt(val, 0, 32)
		if perr != nil || (param == "park" && n < 0) {
			if param == "park" || param == "log2_irq_thresh" {
				return 0, 0, nil, usageErr("--sim-cmdline: %s: not a number ehci_hcd takes (the kernel would refuse to load it)", w)
			}
		}
		switch param {
		case "log2_irq_thresh":
			log2 = uint(max(n, 0))
			if n < 0 || n > 6 {
				log2 = 0
				notes = append(notes, fmt.Sprintf("%s: ehci_hcd takes a threshold outside 0..6 as 0 (ITC 1), as ehci_init() does", w))
			}
		case "park":
			park = uint(min(n, 3))
			if n > 3 {
				notes = append(notes, fmt.Sprintf("%s: ehci_hcd takes park above 3 as 3, as ehci_init() does", w))
			}
		default:
			return 0, 0, nil, usageErr("--sim-cmdline: %s: the simulated ehci-hcd has no parameter %q (it models log2_irq_thresh and park)", w, param)
		}
	}
	return log2, park, notes, nil
}
