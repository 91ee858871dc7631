package tui

import (
	"fmt"
	"testing"
)

// Views at 80x24 (serial console) and 120x40, against the simulated
// controller. go test ./tui -update rewrites testdata/*.golden.
func TestViews(t *testing.T) {
	cases := []struct {
		name  string
		setup func(e *env)
	}{
		{"registers", func(e *env) {}},
		{"registers_edited", func(e *env) {
			e.setEdit("SBUSCFG.AHBBRST", 0)
			e.setEdit("USBCMD.ITC", 0)
		}},
		{"registers_scrolled", func(e *env) {
			e.selectRow("PORTSC1")
		}},
		{"editor_itc", func(e *env) {
			e.selectRow("USBCMD.ITC")
			e.keys("enter", "up")
		}},
		{"editor_ahbbrst", func(e *env) {
			e.selectRow("SBUSCFG.AHBBRST")
			e.keys("enter", "down", "down")
		}},
		{"editor_txpburst", func(e *env) {
			e.selectRow("BURSTSIZE.TXPBURST")
			e.keys("enter")
			e.clearInput()
			e.typeText("999")
			e.keys("enter")
		}},
		{"probe", func(e *env) {
			e.keys("2", "r")
			e.setEditFrom(1, "USBCMD.ITC", 0)
			e.keys("2", "r", "k", "m", "j")
		}},
		{"sweep_table", sweepSetup(0)},
		{"sweep_bars", sweepSetup(1)},
		{"sweep_heat", sweepSetup(2)},
		{"quit", func(e *env) {
			e.setEdit("USBCMD.ITC", 0)
			e.keys("q")
		}},
		{"export", func(e *env) {
			e.setEdit("SBUSCFG.AHBBRST", 0)
			e.keys("w")
		}},
		{"help", func(e *env) { e.keys("?") }},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			name := fmt.Sprintf("%s_%dx%d", c.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				e := newEnv(t, c.name == "registers_drift")
				e.resize(size[0], size[1])
				c.setup(e)
				golden(t, name, e.screen(), size[0], size[1])
			})
		}
	}
}

func sweepSetup(view int) func(e *env) {
	return func(e *env) {
		e.keys("3", "e")
		e.clearInput()
		e.typeText("AHBBRST=0,2,3,7 ITC=0,1,8 repeat=3")
		e.keys("enter", "r")
		for i := 0; i < view; i++ {
			e.keys("v")
		}
	}
}

// The driver's revert, at both sizes.
func TestViewDrift(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := fmt.Sprintf("registers_drift_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, true)
			e.resize(size[0], size[1])
			e.setEdit("USBCMD.ITC", 0)
			e.sim.Transfer()
			e.refresh()
			golden(t, name, e.screen(), size[0], size[1])
		})
	}
}
