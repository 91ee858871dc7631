package main

import (
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
	}
	switch a.g.simRole {
	case "":
	case "host", "device":
		o.Role = soc.Role(a.g.simRole)
	default:
		return o, usageErr("--sim-role %q: want host or device", a.g.simRole)
	}
	var err error
	o.Log2IrqThresh, o.Park, err = parseSimCmdline(a.g.simCmdline)
	return o, err
}

// parseSimCmdline reads ehci-hcd's parameters from a kernel command line
// as the kernel does (module.param=value words): log2_irq_thresh 0..6,
// park 0..3 (ehci_hcd clamps a larger park to 3; a command line meant to
// set it is refused here instead of guessed). Words of other modules are
// ignored, so /proc/cmdline can be pasted as it is.
func parseSimCmdline(line string) (log2, park uint, err error) {
	for _, w := range strings.Fields(line) {
		name, val, ok := strings.Cut(w, "=")
		mod, param, dotted := strings.Cut(name, ".")
		if !dotted || (mod != "ehci_hcd" && mod != "ehci-hcd") {
			continue
		}
		if !ok {
			return 0, 0, usageErr("--sim-cmdline: %q has no value", w)
		}
		n, perr := strconv.ParseUint(val, 0, 8)
		switch {
		case param == "log2_irq_thresh" && perr == nil && n <= 6:
			log2 = uint(n)
		case param == "park" && perr == nil && n <= 3:
			park = uint(n)
		case param == "log2_irq_thresh":
			return 0, 0, usageErr("--sim-cmdline: %s: ehci_hcd.log2_irq_thresh takes 0 to 6 (ITC 1 to 64 micro-frames)", w)
		case param == "park":
			return 0, 0, usageErr("--sim-cmdline: %s: ehci_hcd.park takes 0 to 3 (back-to-back packets; 0 is off)", w)
		default:
			return 0, 0, usageErr("--sim-cmdline: %s: the simulated ehci-hcd has no parameter %q (it models log2_irq_thresh and park)", w, param)
		}
	}
	return log2, park, nil
}
