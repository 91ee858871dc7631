package results

import (
	"strings"

	"github.com/citune/citune/soc"
)

// Simulated reports whether the sweep ran on the simulated controller
// (citune --sim): its rates are the simulator's model, not a board's.
func (h Header) Simulated() bool { return h.Target == string(soc.KindSim) }

// RealProbe reports whether a simulated sweep measured with a real probe
// (read, write, cmd: allowed only with --force): its rates are this
// machine's and do not depend on the simulated settings.
func (h Header) RealProbe() bool {
	return h.Simulated() && h.Probe != "" && h.Probe != "sim" && !strings.HasPrefix(h.Probe, "sim ")
}

// SimulatedMark is the line every output of a simulated sweep starts
// with ("" for a board's or an image's sweep), under 80 columns.
func (h Header) SimulatedMark() string {
	switch {
	case h.RealProbe():
		return "SIMULATED controller with a real probe (--force): rates not the settings' doing"
	case h.Simulated():
		return "SIMULATED controller (--sim): the simulator's model, not a board's measurement"
	}
	return ""
}
