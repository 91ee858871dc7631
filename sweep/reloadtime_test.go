package sweep_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/sweeptest"
)

// reloadSetup is a sweep of the simulated imx6q's usbh1 with a module
// parameter axis (0 is the loaded value), reloaded through a fake module
// tree and remapped as `citune --sim sweep` does (Target.ReloadSim).
// Its schedule: baseline and point 0, reload, point 3, reload, point 6,
// reload, baseline: 5 visits of 3 runs, 3 reloads.
func reloadSetup(t *testing.T) (*setup, *host.Host, *[]event.Event) {
	t.Helper()
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,3,6")
	s.land.Bytes = 4 << 20
	h := &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
	s.runner.Host = h
	s.runner.Remap = func(context.Context) error { return tg.ReloadSim(h.ReadParam) }
	var events []event.Event
	s.runner.OnEvent = func(e event.Event) { events = append(events, e) }
	return s, h, &events
}

var leftRE = regexp.MustCompile(`\[about (\S+?)( and \d+ module reload\(s\))? left(, simulated)?\]`)

// lefts are the estimates of the time left in the progress lines.
func lefts(t *testing.T, log string) []string {
	t.Helper()
	var out []string
	for _, m := range leftRE.FindAllStringSubmatch(log, -1) {
		out = append(out, m[1]+m[2]+m[3])
	}
	return out
}

// On the simulated board a sweep runs on the board's modelled time
// (sweep.SimClock): each module reload takes the model's reload time
// (simmodel.DefaultReload), which the plan announces, the time left
// counts and the session's duration includes.
func TestSimulatedSweepCountsModelledReloadTime(t *testing.T) {
	s, _, events := reloadSetup(t)
	settle := 200 * time.Millisecond
	s.runner.Plan.Settle = settle
	start := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	s.runner.Clock = sweep.NewSimClock(start, s.land)
	_, notes, err := s.runner.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	nominal := simmodel.DefaultReload.Nominal()
	want := fmt.Sprintf("the plan reloads usb_storage, ci_hdrc_imx, ci_hdrc, ehci_hcd 3 time(s), the last back to the original values; the simulated board's reload takes about %s (modelled), %s in all, counted in the time left",
		nominal.Round(100*time.Millisecond), (3 * nominal).Round(time.Second))
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}

	// Every reload: from its event to the next run's record, the clock
	// moved by the reload, the settle pause and the run's modelled time.
	lo, hi := simmodel.DefaultReload.Range()
	var draws []time.Duration
	var runs []time.Duration // per visit: its runs' modelled time
	var reloadAt time.Time
	visits := 0
	for _, e := range *events {
		switch e.Kind {
		case event.ModuleReload:
			reloadAt = e.Time
		case event.PointStarted:
			visits++
			runs = append(runs, 0)
		case event.RunFinished:
			runs[len(runs)-1] += e.Run.Run.Elapsed
			if !reloadAt.IsZero() {
				d := e.Time.Sub(reloadAt) - settle - e.Run.Run.Elapsed
				if d < lo || d > hi {
					t.Errorf("reload took %v of the board's time, want the model's %v..%v", d, lo, hi)
				}
				draws = append(draws, d)
				reloadAt = time.Time{}
			}
		}
	}
	if len(draws) != 3 || draws[0] == draws[1] && draws[1] == draws[2] {
		t.Fatalf("reload times %v, want 3 drawn ones", draws)
	}
	var sum, probed time.Duration
	for _, d := range draws {
		sum += d
	}
	for _, d := range runs {
		probed += d
	}
	if out.Reloads != 3 || out.ReloadTime != sum || !out.SimulatedTime {
		t.Errorf("outcome: %d reloads in %v (simulated %v), want 3 in %v", out.Reloads, out.ReloadTime, out.SimulatedTime, sum)
	}
	// Nothing else takes the board's time: the session is its runs,
	// settle pauses and reloads.
	if want := probed + time.Duration(visits)*settle + sum; out.Elapsed != want {
		t.Errorf("elapsed %v, want runs %v + %d settles + reloads %v = %v", out.Elapsed, probed, visits, sum, want)
	}
	if end := (*events)[len(*events)-1]; end.Kind != event.SweepEnded || !end.Time.Equal(start.Add(out.Elapsed)) {
		t.Errorf("the end record at %v, want the start %v plus %v", end.Time, start, out.Elapsed)
	}

	// The time left: runs still planned at the time per run so far
	// (settle included, reloads not), plus the reloads still planned, at
	// the model's nominal time before the first and the mean of those
	// done after.
	per := func(v int) time.Duration { // after visit v (1-based)
		var d time.Duration
		for _, r := range runs[:v] {
			d += r
		}
		return (d + time.Duration(v)*settle) / time.Duration(3*v)
	}
	wantLeft := []time.Duration{
		per(1)*12 + 3*nominal,
		per(2)*9 + 3*nominal,
		per(3)*6 + 2*draws[0],
		per(4)*3 + (draws[0]+draws[1])/2,
		0,
	}
	var wants []string
	for _, d := range wantLeft {
		// The simulated board's time, and the line says so.
		wants = append(wants, d.Round(time.Second).String()+", simulated")
	}
	if got := lefts(t, s.log.String()); !slices.Equal(got, wants) {
		t.Errorf("time left %q, want %q\n%s", got, wants, s.log)
	}
	if l := lefts(t, s.log.String()); len(l) > 0 && l[0] == (per(1)*12).Round(time.Second).String()+", simulated" {
		t.Errorf("the first estimate %s leaves the reloads out", l[0])
	}
}

// On a board the reload's time is not known before the first one: the
// plan says it will time it, the time left says how many reloads it
// leaves out until then and counts the rest at the measured time after.
func TestBoardSweepTimesItsFirstReload(t *testing.T) {
	s, h, _ := reloadSetup(t)
	now := time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)
	s.runner.Clock = testClock{now: &now}
	// Every run takes 1 s; a reload 5 s, then 7 s, then 9 s (its last
	// module, usb_storage, loads at the end).
	s.land.Before = func(int) { now = now.Add(time.Second) }
	reload := 3 * time.Second
	h.Loader.(*sweeptest.Loader).OnLoad = func(module string, _ map[string]string) {
		if module == "usb_storage" {
			reload += 2 * time.Second
			now = now.Add(reload)
		}
	}
	_, notes, err := s.runner.Prepare()
	if err != nil {
		t.Fatal(err)
	}
	want := "the plan reloads usb_storage, ci_hdrc_imx, ci_hdrc, ehci_hcd 3 time(s), the last back to the original values; the first reload is timed, and the time left counts the rest at its time"
	if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
		t.Errorf("notes %q lack %q", notes, want)
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	// 1 s per run; 3 reloads left, unknown; then 2 left at the first's
	// 5 s, 1 at the mean of 5 s and 7 s.
	wants := []string{"12s and 3 module reload(s)", "9s and 3 module reload(s)", "16s", "9s", "0s"}
	if got := lefts(t, s.log.String()); !slices.Equal(got, wants) {
		t.Errorf("time left %q, want %q\n%s", got, wants, s.log)
	}
	if out.Reloads != 3 || out.ReloadTime != 21*time.Second || out.Elapsed != 15*time.Second+21*time.Second || out.SimulatedTime {
		t.Errorf("outcome: %d reloads in %v of %v (simulated %v), want 3 in 21s of 36s, measured", out.Reloads, out.ReloadTime, out.Elapsed, out.SimulatedTime)
	}
}
