package main

import (
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// A bad setting given as a flag reads as it does in a plan file and on
// the TUI's plan line (tui's TestPlanSettingErrorsAgree has the same
// texts): the flags go through plan.Set and plan.Check.
func TestPlanSettingErrors(t *testing.T) {
	for _, c := range []struct {
		o    sweepOpts
		set  []string
		want string
	}{
		{sweepOpts{repeat: 0}, []string{"repeat"}, "invalid sweep plan: repeat 0: at least 1, at most 10000"},
		{sweepOpts{mode: "adaptive", repeat: 5, budget: 2}, []string{"mode", "repeat", "budget"}, "invalid sweep plan: budget 2: a share of the grid's probe runs, above 0 and at most 1"},
		{sweepOpts{mode: "adaptive", repeat: 5, budget: 0}, []string{"mode", "repeat", "budget"}, "invalid sweep plan: budget 0: a share of the grid's probe runs, above 0 and at most 1"},
		{sweepOpts{mode: "race"}, []string{"mode"}, "invalid sweep plan: mode \"race\" (want grid, ofat, adaptive or model)"},
		{sweepOpts{mode: "adaptive", repeat: 2}, []string{"mode", "repeat"}, "invalid sweep plan: the adaptive mode needs 3 or more runs a point"},
	} {
		c.o.axes = []string{"ITC=1"}
		set := map[string]bool{}
		for _, k := range c.set {
			set[k] = true
		}
		_, err := c.o.buildPlan(regs.ChipIdea(), set, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("flags %v: %v, want %q", c.set, err, c.want)
		}
	}
}
