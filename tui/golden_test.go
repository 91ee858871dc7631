package tui

import (
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// viewCase is one screen of the session, reached by setup.
type viewCase struct {
	name  string
	setup func(e *env)
}

// Views at 80x24 (serial console) and 120x40, against the simulated
// controller. go test ./tui -update rewrites testdata/*.golden.
func TestViews(t *testing.T) {
	for _, c := range viewCases {
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

// viewCases are every screen of the session: TestViews keeps their
// goldens, TestScreensFit checks them at the small sizes.
var viewCases = []viewCase{
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
		e.answer("999")
	}},
	{"probe", func(e *env) {
		e.keys("2", "r")
		e.setEditFrom(1, "USBCMD.ITC", 0)
		e.keys("2", "r", "k", "m", "j")
	}},
	{"probe_running", func(e *env) {
		e.keys("2", "r")
		e.m.probing, e.m.probe.id = true, 7
		e.m.probe.cancel = func() {}
		e.m.probe.ch = make(chan tea.Msg)
		close(e.m.probe.ch)
		e.send(probeProgressMsg{id: 7, run: 2, of: 3, done: 12 << 20, total: 32 << 20})
	}},
	{"sweep_running", func(e *env) {
		e.writePlan("AHBBRST=0,2,3,7 ITC=0,1,8 repeat=3")
		s := &e.m.sweep
		e.m.sweeping, s.id, s.cancel = true, 7, func() {}
		s.ch = make(chan tea.Msg)
		close(s.ch)
		at := func(ahb, itc string) map[string]string {
			return map[string]string{s.plan.Axes[0].Name: ahb, s.plan.Axes[1].Name: itc}
		}
		// The runner's events, 5 s apart: a header planning 12
		// points, the baseline, three points closed (the third
		// corrupt) and a run of the point being measured.
		t0 := fixedClock()
		send := func(sec int, ev event.Event) {
			ev.Time = t0.Add(time.Duration(sec) * time.Second)
			e.send(sweepMsg{id: 7, e: ev})
		}
		var planned []results.PointInfo
		for i := range 12 {
			planned = append(planned, results.PointInfo{Key: fmt.Sprint(i)})
		}
		send(0, event.Event{Kind: event.SweepStarted, Header: &results.Header{Points: planned}})
		send(0, event.Event{Kind: event.PointClosed, Closed: &results.PointRecord{Baseline: true, Rates: []float64{30 << 20, 30.2 * (1 << 20), 29.9 * (1 << 20)}}})
		send(5, event.Event{Kind: event.PointClosed, Closed: &results.PointRecord{Settings: at("0", "0"), Rates: []float64{40 << 20, 40.5 * (1 << 20), 39.8 * (1 << 20)}, IRQsPerMiB: rank.Ptr(64)}})
		send(10, event.Event{Kind: event.PointClosed, Closed: &results.PointRecord{Settings: at("0", "8"), Status: rank.StatusNotHeld, Reason: "USBCMD.ITC wrote 8, reads 1 (changed during run 1)"}})
		send(12, event.Event{Kind: event.PointStarted, Label: "AHBBRST=2 ITC=1"})
		send(14, event.Event{Kind: event.RunFinished, Run: &results.RunRecord{Seq: 2}})
		send(15, event.Event{Kind: event.PointClosed, Closed: &results.PointRecord{Settings: at("7", "0"), Status: rank.StatusCorrupt, Reason: "read data differs at offset 0x100000", Rates: []float64{41 << 20}}})
	}},
	{"sweep_table", sweepSetup(0)},
	{"sweep_bars", sweepSetup(1)},
	{"sweep_heat", sweepSetup(2)},
	{"quit", func(e *env) {
		e.setEdit("USBCMD.ITC", 0)
		e.keys("q")
	}},
	// Only the values that differ from their start: ITC went back.
	{"quit_changed_back", func(e *env) {
		e.setEdit("USBCMD.ITC", 0)
		e.setEdit("SBUSCFG.AHBBRST", 3)
		e.setEdit("USBCMD.ITC", e.startField("USBCMD.ITC"))
		e.keys("q")
	}},
	// Nothing changed: q quits at once (the last screen, no dialog).
	{"quit_unchanged", func(e *env) {
		e.keys("q")
		if !e.quit {
			e.t.Fatal("q with nothing changed did not quit at once")
		}
	}},
	{"export", func(e *env) {
		e.setEdit("SBUSCFG.AHBBRST", 0)
		e.keys("w")
	}},
	{"help", func(e *env) { e.keys("?") }},
}

func sweepSetup(view int) func(e *env) {
	return func(e *env) {
		e.writePlan("AHBBRST=0,2,3,7 ITC=0,1,8 repeat=3")
		e.keys("r")
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
