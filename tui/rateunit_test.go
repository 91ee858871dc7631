package tui

import (
	"context"
	"fmt"

	"github.com/citune/citune/units"
	"strings"
	"testing"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/sweep/rank"
)

// inUnit makes the session's probe (the Probe tab's and the sweep's) a
// probe of its own unit, as a `cmd` probe with --unit fps is: every run
// carries unit and its rate is the sim probe's divided by scale.
func inUnit(unit string, scale float64) envOpt {
	return func(c *Config) {
		c.Prober = unitProber{c.Prober, unit, scale}
		sr := c.Sweeper.(*testSweeper)
		sr.Prober = unitProber{sr.Prober, unit, scale}
	}
}

func byteUnit(u string) envOpt { return func(c *Config) { c.ByteUnit = units.Display(u) } }

type unitProber struct {
	probe.Probe
	unit  string
	scale float64
}

func (p unitProber) Run(ctx context.Context, progress func(done, total int64)) (probe.Run, error) {
	r, err := p.Probe.Run(ctx, progress)
	r.Rate, r.Unit = r.Rate/p.scale, p.unit
	return r, err
}

// rateShown is every screen and file the TUI shows rates in: the Probe
// tab after a probe, the Sweep tab's table, bars and heat map after a
// sweep, and the comment of the winner's export.
type rateShown struct {
	probe, table, bars, heat, export string
	e                                *env
}

func showRates(t *testing.T, opts ...envOpt) rateShown {
	t.Helper()
	e := newEnv(t, false, opts...)
	e.keys("2", "r")
	var s rateShown
	s.e = e
	s.probe = e.screen()
	e.writePlan("AHBBRST=0,3 ITC=1,8 repeat=3")
	e.keys("r")
	if !e.m.sweep.finished {
		t.Fatalf("the sweep did not finish: %s", e.m.status)
	}
	s.table = e.screen()
	e.keys("v")
	s.bars = e.screen()
	e.keys("v")
	s.heat = e.screen()
	e.keys("w")
	e.answer("win.dtsi")
	s.export = e.files["win.dtsi"]
	if s.export == "" {
		t.Fatalf("no export written: %s", e.m.status)
	}
	return s
}

// check finds the figure fig (and cell in the heat map) gives for each
// rate (a median of runs) on every screen and in the export, the heat
// map's heading in unit heading, and no MiB/s unless that is the unit.
func (s rateShown) check(t *testing.T, fig, cell func(float64) string, heading string) {
	t.Helper()
	p := s.e.m.probe
	if len(p.hist) != 1 || len(p.hist[0].runs) == 0 {
		t.Fatalf("probe history = %+v", p.hist)
	}
	for _, want := range []string{fig(rank.Median(p.hist[0].rates())), "last run: " + fig(p.last.Rate)} {
		if !strings.Contains(s.probe, want) {
			t.Errorf("Probe tab lacks %q:\n%s", want, s.probe)
		}
	}
	good, _ := s.e.m.sweep.ranked()
	if len(good) != 4 {
		t.Fatalf("%d points ranked, want 4", len(good))
	}
	for _, pt := range good {
		r := rank.Median(pt.Rates)
		if !strings.Contains(s.table, fig(r)) {
			t.Errorf("table lacks %q:\n%s", fig(r), s.table)
		}
		if !strings.Contains(s.bars, fig(r)) {
			t.Errorf("bars lack %q:\n%s", fig(r), s.bars)
		}
		if !strings.Contains(s.heat, cell(r)) {
			t.Errorf("heat map lacks %q:\n%s", cell(r), s.heat)
		}
	}
	if h := "median " + heading + ", shade"; !strings.Contains(s.heat, h) {
		t.Errorf("heat map lacks %q:\n%s", h, s.heat)
	}
	best := fig(rank.Median(good[0].Rates))
	label := s.e.m.sweep.label(good[0])
	for _, want := range []string{"best: " + label + " " + best, "best " + label + " at " + best} {
		if !strings.Contains(s.table, want) {
			t.Errorf("table lacks %q:\n%s", want, s.table)
		}
	}
	if !strings.Contains(s.export, " "+best) {
		t.Errorf("export lacks %q:\n%s", best, s.export)
	}
	if heading != "MiB/s" {
		for name, text := range map[string]string{"Probe tab": s.probe, "table": s.table, "bars": s.bars, "heat map": s.heat, "export": s.export} {
			if strings.Contains(text, "MiB/s") {
				t.Errorf("%s shows MiB/s:\n%s", name, text)
			}
		}
	}
}

// A probe in its own unit (fps) is shown in it, the rates as the probe
// gave them: not divided into MiB/s, whatever byte unit is chosen.
func TestRatesInTheProbesUnit(t *testing.T) {
	s := showRates(t, inUnit("fps", 1e5), byteUnit("MB/s"))
	fig := func(r float64) string { return fmt.Sprintf("%.2f fps", r) }
	cell := func(r float64) string { return fmt.Sprintf("%.1f", r) }
	s.check(t, fig, cell, "fps")
	if !strings.Contains(s.probe, " fps ") {
		t.Fatalf("no fps on the Probe tab:\n%s", s.probe)
	}
}

// Byte rates are shown in the unit the session was given (--units).
func TestRatesInTheByteUnit(t *testing.T) {
	for _, c := range []struct {
		unit string
		div  float64
	}{{"", 1 << 20}, {"MB/s", 1e6}, {"Mbit/s", 1e6 / 8}} {
		name := strings.ReplaceAll(c.unit, "/", "")
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			s := showRates(t, byteUnit(c.unit))
			shown := c.unit
			if shown == "" {
				shown = "MiB/s"
			}
			fig := func(r float64) string { return fmt.Sprintf("%.2f %s", r/c.div, shown) }
			cell := func(r float64) string { return fmt.Sprintf("%.1f", r/c.div) }
			s.check(t, fig, cell, shown)
			checkColumns(t, s.table, "median")
			checkColumns(t, s.probe, "median")
			// Interrupts and CPU are per the unit's amount.
			amount := map[string]string{"": "MiB", "MB/s": "MB", "Mbit/s": "Mbit"}[c.unit]
			if !strings.Contains(s.table, " irq/"+amount+" ") || !strings.Contains(s.table, " ms/"+amount+" ") || !strings.Contains(s.probe, " irq/"+amount+" ") {
				t.Errorf("no irq/%s, ms/%[1]s headings:\n%s\n%s", amount, s.table, s.probe)
			}
		})
	}
}

// checkColumns checks that the byte rates under the heading col end
// where it ends: a wider unit (Mbit/s) widens the column, it does not
// shift the rows.
func checkColumns(t *testing.T, screen, col string) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	end := -1
	for i, l := range lines {
		if j := strings.Index(l, " "+col+" "); j >= 0 && strings.Contains(l, "spread") {
			end = j + 1 + len(col)
			lines = lines[i+1:]
			break
		}
	}
	if end < 0 {
		t.Fatalf("no %q heading:\n%s", col, screen)
	}
	rows := 0
	for _, l := range lines {
		if !strings.Contains(l, "/s") {
			break
		}
		rows++
		if len(l) <= end || !strings.HasSuffix(l[:end], "/s") || l[end] != ' ' {
			t.Errorf("rate not under its heading (ending at column %d): %q", end, l)
		}
	}
	if rows == 0 {
		t.Errorf("no rows under %q:\n%s", col, screen)
	}
}
