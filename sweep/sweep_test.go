package sweep_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/sweep/sweeptest"
	"github.com/citune/citune/undo"
)

func loadProfile(t *testing.T, name string) *soc.Profile {
	t.Helper()
	p, err := soc.LoadFS(profiles.FS, name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	p.File = "embedded:" + p.File
	return p
}

func simTarget(t *testing.T, profile string, o soc.SimOptions) *soc.Target {
	t.Helper()
	p := loadProfile(t, profile)
	c, err := p.Controller("usbh1")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := soc.OpenSim(p, c, o)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// imageTarget makes a register image of the profile's reset values and
// opens it as a file target.
func imageTarget(t *testing.T, profile string) (*soc.Target, string) {
	t.Helper()
	sim := simTarget(t, profile, soc.SimOptions{ResetValues: true})
	img := make([]byte, sim.Controller.Span())
	for off := uint32(0); off < sim.Controller.Span(); off += 4 {
		v, err := sim.Acc.Read32(off)
		if errors.Is(err, regs.ErrAbsent) {
			continue // a host-only core has nothing there
		}
		if err != nil {
			t.Fatal(err)
		}
		img[off], img[off+1], img[off+2], img[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	path := filepath.Join(t.TempDir(), "regs.bin")
	if err := os.WriteFile(path, img, 0o644); err != nil {
		t.Fatal(err)
	}
	tg, err := soc.OpenFile(sim.Profile, sim.Controller, path, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg, path
}

func axes(t *testing.T, m *regs.Map, specs ...string) []plan.Axis {
	t.Helper()
	var as []plan.Axis
	for _, s := range specs {
		a, err := plan.ParseAxis(m, s)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return as
}

type setup struct {
	runner  *sweep.Runner
	out     string
	log     *bytes.Buffer
	land    *sweeptest.Landscape
	journal string
}

func newRunner(t *testing.T, tg *soc.Target, mode string, specs ...string) *setup {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	f, err := results.CreateFile(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	plan := plan.DefaultPlan()
	plan.Mode = mode
	plan.Settle = 0
	plan.Repeats = 3
	plan.Warmup = 0
	plan.Seed = 1
	plan.Axes = axes(t, tg.Profile.Map, specs...)
	land := &sweeptest.Landscape{Target: tg, Seed: 1}
	log := &bytes.Buffer{}
	r := &sweep.Runner{Target: tg, Prober: land, ProbeName: "landscape", Plan: plan, Out: results.NewWriter(f), Log: log,
		Journal: filepath.Join(dir, "journal.json"), Command: []string{"citune", "sweep"}, Kernel: "test"}
	return &setup{runner: r, out: out, log: log, land: land, journal: r.Journal}
}

func snapshot(t *testing.T, tg *soc.Target) soc.Snapshot {
	t.Helper()
	s, err := soc.Take(tg.Profile.Map, tg.Acc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGridGroupsBurstSizesAndFindsTheBest(t *testing.T) {
	// The board as Linux leaves it (AHBBRST=0, 16-word bursts, streaming
	// disabled), its bus half busy with other masters: longer RX bursts
	// pay off.
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	before := snapshot(t, tg)
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,2,3", "TXPBURST=16", "RXPBURST=16,32")
	s.land.BusLoad = 0.5
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	// AHBBRST=0 x RXPBURST 16,32 = 2 points; AHBBRST=2 and 3 ignore the
	// burst sizes: one point each.
	if got := len(s.runner.Points()); got != 4 {
		t.Fatalf("%d points, want 4", got)
	}
	notes := strings.Join(out.Notes, "\n")
	if !strings.Contains(notes, "TXPBURST takes effect only with SBUSCFG.AHBBRST=0") || !strings.Contains(notes, "4 combinations measured as 2 points") {
		t.Errorf("grouping not explained:\n%s", notes)
	}
	w := out.Ranking.Winner()
	if w == nil || w.Key != "SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=16 BURSTSIZE.RXPBURST=32" {
		t.Fatalf("winner %+v", w)
	}
	if w.VsBaseline == nil || !w.VsBaseline.Significant || w.VsBaseline.Pct < 5 {
		t.Errorf("winner vs baseline %+v (16-word bursts under half load are 6 %% slower)", w.VsBaseline)
	}
	if after := snapshot(t, tg); !slices.Equal(before.Registers, after.Registers) {
		t.Errorf("registers not restored:\nbefore %v\nafter  %v", before, after)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Header.Profile != "imx6q" || res.Header.Controller != "usbh1" || res.Header.Kernel != "test" || len(res.Header.Snapshot.Registers) == 0 {
		t.Errorf("header %+v", res.Header)
	}
	if res.Header.Originals["SBUSCFG.AHBBRST"] != "0" || res.Header.Originals["BURSTSIZE.RXPBURST"] != "16" {
		t.Errorf("originals %v", res.Header.Originals)
	}
	// grid: baseline, 4 points, baseline; 3 runs each.
	if got := len(res.Runs); got != 6*3 || out.ProbeRuns != 18 {
		t.Errorf("%d run records, %d probe runs; want 18", got, out.ProbeRuns)
	}
	if n := len(res.Ends); n != 1 || res.Ends[0].Status != sweep.EndComplete || !res.Ends[0].Restored {
		t.Errorf("end records %+v", res.Ends)
	}
	// The file ranks like the sweep did.
	rk := res.Rank()
	if rk.Winner().Key != w.Key || rk.Winner().Median != w.Median {
		t.Errorf("file ranking %+v, sweep %+v", rk.Winner(), w)
	}
	// The simulated controller keeps no journal.
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left behind: %v", err)
	}
}

func TestDriverRevertsUSBCMD(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeGrid, "ITC=1,8,64")
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	if !strings.Contains(strings.Join(out.Notes, "\n"), "warning: USBCMD.ITC in host role") {
		t.Errorf("no warning about the driver: %q", out.Notes)
	}
	if out.NotHeld != 2 {
		t.Errorf("not-held %d, want 2 (ITC 8 and 64)\n%s", out.NotHeld, s.log)
	}
	if len(out.Ranking.Ranked) != 1 || out.Ranking.Ranked[0].Settings["USBCMD.ITC"] != "1" {
		t.Fatalf("ranked %+v: only ITC=1 (the driver's own value) holds", out.Ranking.Ranked)
	}
	for _, x := range out.Ranking.Excluded {
		if x.Status != rank.StatusNotHeld || len(x.Changed) != 1 || !strings.HasPrefix(x.Changed[0], "USBCMD.ITC: ") || !strings.HasSuffix(x.Changed[0], " -> 1") {
			t.Errorf("excluded %+v", x)
		}
	}
	if !strings.Contains(s.log.String(), "NOT HELD (changed during run 1): USBCMD.ITC: 64 -> 1") {
		t.Errorf("log:\n%s", s.log)
	}
	var b strings.Builder
	out.Ranking.Format(&b)
	if !strings.Contains(b.String(), "not-held   ITC=8: USBCMD.ITC: 8 -> 1") {
		t.Errorf("ranking:\n%s", b.String())
	}
}

func TestValidatedBeforeTheFirstWrite(t *testing.T) {
	cases := map[string]struct {
		specs []string
		want  string
	}{
		"burst without AHBBRST=0": {[]string{"TXPBURST=8,16"}, "TXPBURST takes effect only with SBUSCFG.AHBBRST=0, which reads 2"},
		"missing file":            {[]string{"AHBBRST=0,3", "sysfs:/sys/nonexistent/citune/x=1,2"}, "no such file"},
		"unknown module":          {[]string{"modparam:ehci_hcd.log2_irq_thresh=0,3"}, "no module loader"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
			s := newRunner(t, tg, plan.ModeGrid, c.specs...)
			s.runner.Host = &host.Host{}
			_, err := s.runner.Run(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
			if tg.Sim.Writes != 0 {
				t.Errorf("%d writes before the plan was valid", tg.Sim.Writes)
			}
		})
	}
}

func TestParseAxis(t *testing.T) {
	m := regs.ChipIdea()
	cases := map[string]struct {
		spec, name string
		kind       plan.Kind
		vals       []string
		err        string
	}{
		"field":           {spec: "AHBBRST=0,INCR16,7", name: "SBUSCFG.AHBBRST", kind: plan.KindRegister, vals: []string{"0", "3", "7"}},
		"all":             {spec: "ITC=all", name: "USBCMD.ITC", kind: plan.KindRegister, vals: []string{"0", "1", "2", "4", "8", "16", "32", "64"}},
		"sysfs":           {spec: "sysfs:/sys/block/sda/queue/max_sectors_kb=64,120,512", name: "/sys/block/sda/queue/max_sectors_kb", kind: plan.KindFile, vals: []string{"64", "120", "512"}},
		"modparam":        {spec: "modparam:ehci-hcd.log2_irq_thresh=0,3,6", name: "ehci_hcd.log2_irq_thresh", kind: plan.KindModParam, vals: []string{"0", "3", "6"}},
		"reserved":        {spec: "AHBBRST=4", err: "reserved"},
		"illegal ITC":     {spec: "ITC=3", err: "not a legal value"},
		"whole register":  {spec: "USBCMD=1", err: "a sweep changes fields"},
		"read-only":       {spec: "CAPLENGTH.CAPLENGTH=1", err: "read-only"},
		"RST never":       {spec: "RST=1", err: "never sets"},
		"relative path":   {spec: "sysfs:block/x=1", err: "absolute"},
		"twice":           {spec: "ITC=1,1", err: "given twice"},
		"bad modparam":    {spec: "modparam:ehci_hcd=1", err: "MODULE.PARAM"},
		"unknown kind":    {spec: "gpio:5=1", err: "unknown kind"},
		"no values":       {spec: "ITC=", err: "no values"},
		"no equals":       {spec: "ITC", err: "want NAME=V1"},
		"typo suggestion": {spec: "AHBBST=1", err: "did you mean"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			a, err := plan.ParseAxis(m, c.spec)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, plan.ErrPlan) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.Name != c.name || a.Kind != c.kind || !slices.Equal(a.Values, c.vals) {
				t.Errorf("got %+v", a)
			}
		})
	}
}

func TestPlanFile(t *testing.T) {
	m := regs.ChipIdea()
	pf, as, err := plan.ParsePlanFile(m, "plan.toml", []byte(`
mode = "ofat"
repeat = 4
settle = "50ms"
seed = 9
axis = ["AHBBRST=0,3"]

[[axes]]
name = "TXPBURST"
values = [8, "0x10"]

[[axes]]
name = "sysfs:/sys/block/sda/queue/max_sectors_kb"
values = ["64", 512]
`))
	if err != nil {
		t.Fatal(err)
	}
	p := plan.DefaultPlan()
	pf.Apply(&p)
	if p.Mode != "ofat" || p.Repeats != 4 || p.Settle != 50*time.Millisecond || p.Seed != 9 || p.Warmup != 1 {
		t.Errorf("plan %+v", p)
	}
	if len(as) != 3 || !slices.Equal(as[1].Values, []string{"8", "16"}) || !slices.Equal(as[2].Values, []string{"64", "512"}) {
		t.Errorf("axes %+v", as)
	}
	for name, text := range map[string]string{
		"unknown key": "mode = \"grid\"\nrepeats = 3\n",
		"bad value":   "axis = [\"ITC=5\"]\n",
		"bad settle":  "settle = \"soon\"\n",
		"bad toml":    "mode = \n",
	} {
		if _, _, err := plan.ParsePlanFile(m, "p.toml", []byte(text)); err == nil || !errors.Is(err, plan.ErrPlan) {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestOFATSetsTheConditionForBurstSizes(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeOFAT, "AHBBRST=0,3", "TXPBURST=8,16", "ITC=1,8")
	if err := s.runner.Prepare(); err != nil {
		t.Fatal(err)
	}
	var keys, notes []string
	for _, p := range s.runner.Points() {
		keys = append(keys, p.Key)
		notes = append(notes, p.Note)
	}
	// originals: AHBBRST=2, TXPBURST=0, ITC=8.
	want := []string{
		"SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=0 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=3 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=8 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=0 BURSTSIZE.TXPBURST=16 USBCMD.ITC=8",
		"SBUSCFG.AHBBRST=2 USBCMD.ITC=1",
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("points\n%q\nwant\n%q", keys, want)
	}
	if notes[2] != "AHBBRST=0 so that TXPBURST takes effect" {
		t.Errorf("notes %q", notes)
	}
}

func TestCorruptPointIsShownAndNotRanked(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=3,7")
	s.land.Corrupt = func(n int) bool { return n == 5 }
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if out.Corrupt != 1 || len(out.Ranking.Ranked) != 1 {
		t.Fatalf("corrupt %d, ranked %+v", out.Corrupt, out.Ranking.Ranked)
	}
	if !strings.Contains(s.log.String(), "!!! CORRUPT DATA at AHBBRST=") {
		t.Errorf("log:\n%s", s.log)
	}
	var b strings.Builder
	out.Ranking.Format(&b)
	if !strings.Contains(b.String(), "!!! CORRUPT DATA at AHBBRST=") || !strings.Contains(b.String(), "offset 0x1200000") {
		t.Errorf("ranking:\n%s", b.String())
	}
}

// journalWatch fails the test if a register is written before the
// journal holds its original.
type journalWatch struct {
	regs.Accessor
	t       *testing.T
	path    string
	checked bool
}

func (w *journalWatch) Write32(off, v uint32) error {
	if !w.checked {
		w.checked = true
		j, err := undo.Load(w.path)
		if err != nil || len(j.Entries) != 1 || len(j.Entries[0].Fields) == 0 {
			w.t.Errorf("first write at %#x before the journal has the originals: %v %+v", off, err, j)
		}
	}
	return w.Accessor.Write32(off, v)
}

func TestCancelInTheMiddleOfAPointRestoresTheImage(t *testing.T) {
	tg, img := imageTarget(t, "imx6q")
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3", "TXPBURST=8,32", "RXPBURST=8,32")
	tg.Acc = &journalWatch{Accessor: tg.Acc, t: t, path: s.journal}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.land.Before = func(n int) {
		if n == 8 { // the second run of the second point
			cancel()
		}
	}
	out, err := s.runner.Run(ctx)
	if !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if out.Status != sweep.EndInterrupted || !out.Restored {
		t.Errorf("outcome %+v", out)
	}
	after, _ := os.ReadFile(img)
	if !bytes.Equal(before, after) {
		t.Errorf("image differs after the interrupted sweep")
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left after a restore: %v", err)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 { // baseline and the first point
		t.Errorf("%d point records, want 2", len(res.Points))
	}
	if e := res.Ends[0]; e.Status != sweep.EndInterrupted || !strings.Contains(e.Error, "resume") {
		t.Errorf("end %+v", e)
	}
}

func TestResumeDoesNotRedoFinishedPoints(t *testing.T) {
	tg, _ := imageTarget(t, "imx6q")
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3,7", "TXPBURST=8,16")
	s.runner.Plan.BaselineEvery = 2
	ctx, cancel := context.WithCancel(context.Background())
	s.land.Before = func(n int) {
		if n == 11 {
			cancel()
		}
	}
	if _, err := s.runner.Run(ctx); !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatal(err)
	}
	first, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	closed := len(first.Points)

	// A crash may leave half a line behind.
	f, err := os.OpenFile(s.out, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"run","sess`)
	f.Close()

	f, err = results.OpenAppend(s.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prev, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	land := &sweeptest.Landscape{Target: tg, Seed: 3}
	r2 := &sweep.Runner{Target: tg, Prober: land, Plan: s.runner.Plan, Out: results.NewWriter(f), Resume: prev, Journal: s.journal}
	out, err := r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resumes) != 1 || res.Sessions() != 2 {
		t.Fatalf("resumes %+v", res.Resumes)
	}
	// Points: 2 with AHBBRST=0, 1 each for 3 and 7: 4, plus baselines
	// first, after every 2 points and last: 4 points + 3 baselines = 7
	// visits of 3 runs.
	if got := len(res.Visits()); got != 7 {
		t.Errorf("%d closed visits, want 7", got)
	}
	for _, p := range res.Points {
		if p.Session == 2 && p.Visit <= closed {
			t.Errorf("visit %d (%s) measured again", p.Visit, p.Point)
		}
	}
	if land.Runs != (7-closed)*3 {
		t.Errorf("second session probed %d runs, want %d", land.Runs, (7-closed)*3)
	}
	if out.TotalProbeRuns != len(res.Runs) {
		t.Errorf("total %d, records %d", out.TotalProbeRuns, len(res.Runs))
	}
	// RXPBURST stays 0 (0.85 on the landscape): AHBBRST=7 (0.955) wins.
	if res.Rank().Winner().Key != "SBUSCFG.AHBBRST=7" {
		t.Errorf("winner %+v", res.Rank().Winner())
	}

	// A different plan is refused.
	p2 := s.runner.Plan
	p2.Repeats = 4
	r3 := &sweep.Runner{Target: tg, Prober: land, Plan: p2, Out: results.NewWriter(&bytes.Buffer{}), Resume: res}
	if _, err := r3.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "plan differs") {
		t.Errorf("error %v", err)
	}
}

func TestSysfsAxisOnAFileTree(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "sys/block/sda/queue/max_sectors_kb")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("120\n"), 0o644)
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "sysfs:/sys/block/sda/queue/max_sectors_kb=64,512", "AHBBRST=3,7")
	s.runner.Host = &host.Host{Root: root}
	s.land.Extra = func() float64 {
		b, _ := os.ReadFile(file)
		if strings.TrimSpace(string(b)) == "512" {
			return 1.05
		}
		return 1
	}
	s.land.Before = func(n int) {
		if n != 1 {
			return
		}
		j, err := undo.Load(s.journal)
		if err != nil || len(j.Entries) != 1 || len(j.Entries[0].Files) != 1 || j.Entries[0].Files[0].Original != "120" || len(j.Entries[0].Fields) != 0 {
			t.Errorf("journal during the sweep: %v %+v", err, j)
		}
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if w := out.Ranking.Winner(); w.Settings["/sys/block/sda/queue/max_sectors_kb"] != "512" || w.Settings["SBUSCFG.AHBBRST"] != "7" {
		t.Errorf("winner %+v", w)
	}
	if b, _ := os.ReadFile(file); string(b) != "120\n" {
		t.Errorf("file not restored: %q", b)
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
}

func modTree(t *testing.T) (string, *sweeptest.Loader) {
	t.Helper()
	root := t.TempDir()
	mods := map[string]map[string]string{
		"usb_storage": {"quirks": ""},
		"ci_hdrc_imx": {},
		"ci_hdrc":     {},
		"ehci_hcd":    {"log2_irq_thresh": "0", "park": "0"},
	}
	if err := sweeptest.Modules(root, mods); err != nil {
		t.Fatal(err)
	}
	return root, &sweeptest.Loader{Root: root, Defaults: mods, Creates: []string{"/dev/sda"}}
}

func TestModParamAxisReloadsTheModuleStack(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	// Loading ehci_hcd resets the controller: the driver starts with
	// ITC = 2^log2_irq_thresh.
	loader.OnLoad = func(module string, params map[string]string) {
		if module != "ehci_hcd" {
			return
		}
		var l uint
		for _, c := range params["log2_irq_thresh"] {
			l = l*10 + uint(c-'0')
		}
		nt, err := soc.OpenSim(tg.Profile, tg.Controller, soc.SimOptions{Log2IrqThresh: l})
		if err != nil {
			t.Error(err)
			return
		}
		tg.Acc, tg.Sim = nt.Acc, nt.Sim
	}
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,3,6")
	remaps := 0
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
	s.runner.Remap = func(context.Context) error { remaps++; return tg.Identify() }
	s.land.Before = func(n int) {
		if n != 1 {
			return
		}
		j, err := undo.Load(s.journal)
		if err != nil || len(j.Entries) != 1 || len(j.Entries[0].ModParams) != 1 || j.Entries[0].ModParams[0].Original != "0" {
			t.Errorf("journal during the sweep: %v %+v", err, j)
		}
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	if out.NotHeld != 0 {
		t.Errorf("not-held %d: a module parameter holds\n%s", out.NotHeld, s.log)
	}
	// ITC=1 (log2 0) beats ITC=8 (3) and ITC=64 (6) on the landscape.
	if w := out.Ranking.Winner(); w.Settings["ehci_hcd.log2_irq_thresh"] != "0" {
		t.Errorf("winner %+v", w)
	}
	calls := loader.CallLog()
	wantStart := []string{"rmmod usb_storage", "rmmod ci_hdrc_imx", "rmmod ci_hdrc", "rmmod ehci_hcd", "modprobe ehci_hcd log2_irq_thresh="}
	for i, w := range wantStart {
		if i >= len(calls) || !strings.HasPrefix(calls[i], w) {
			t.Fatalf("calls %q", calls)
		}
	}
	if calls[5] != "modprobe ci_hdrc" || calls[7] != "modprobe usb_storage" {
		t.Errorf("load order %q", calls)
	}
	if last := calls[len(calls)-4]; last != "modprobe ehci_hcd log2_irq_thresh=0" {
		t.Errorf("the restore did not reload with the original: %q", calls)
	}
	if remaps == 0 {
		t.Error("the window was not mapped again after a reload")
	}
	if v, _ := os.ReadFile(filepath.Join(root, "sys/module/ehci_hcd/parameters/log2_irq_thresh")); string(v) != "0\n" {
		t.Errorf("parameter after the sweep %q", v)
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
	res, _ := results.Load(s.out)
	reloads := 0
	for _, e := range res.Events {
		if e.Event == results.EventReload {
			reloads++
		}
	}
	if reloads < 3 {
		t.Errorf("%d reload events", reloads)
	}
}

func TestModParamRefusedWhenBuiltIn(t *testing.T) {
	root := t.TempDir()
	if err := sweeptest.Modules(root, map[string]map[string]string{"usb_storage": {}}, "ehci_hcd"); err != nil {
		t.Fatal(err)
	}
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,3")
	s.runner.Host = &host.Host{Root: root, Loader: &sweeptest.Loader{Root: root}, Modules: tg.Profile.Reload.Modules}
	_, err := s.runner.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ehci_hcd is built into the kernel") || !strings.Contains(err.Error(), "kernel command line (ehci_hcd.log2_irq_thresh=V)") {
		t.Fatalf("error %v", err)
	}
	if tg.Sim.Writes != 0 {
		t.Error("wrote before refusing")
	}
}

func TestModParamValuesCheckedAgainstTheKnob(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,7")
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules}
	if _, err := s.runner.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "want an integer 0..6") {
		t.Fatalf("error %v", err)
	}
	s = newRunner(t, tg, plan.ModeGrid, "modparam:usbcore.autosuspend=1,2")
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules}
	if _, err := s.runner.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "usbcore is not loaded") {
		t.Fatalf("error %v", err)
	}
	if len(loader.CallLog()) != 0 {
		t.Errorf("calls %q", loader.CallLog())
	}
}

func TestAdaptiveFindsTheGridWinnerWithFewerRuns(t *testing.T) {
	specs := []string{"AHBBRST=0,2,3,7", "TXPBURST=4,8,16,32", "RXPBURST=8,16,32", "ITC=1,2,8,64"}
	run := func(mode string) *sweep.Outcome {
		// The board as Linux leaves it, streaming disabled, the bus half
		// busy (the one model's scenario of close competitors: every
		// burst length counts); no simulated driver, so ITC holds.
		tg := simTarget(t, "imx6q", soc.SimOptions{Driver: soc.SimDriverOff})
		s := newRunner(t, tg, mode, specs...)
		s.land.BusLoad = 0.5
		s.runner.Plan.Repeats = 5
		out, err := s.runner.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	grid, ad := run(plan.ModeGrid), run(plan.ModeAdaptive)
	gw, aw := grid.Ranking.Winner(), ad.Ranking.Winner()
	// The same winner, or one the grid itself cannot tell from its own
	// (TXPBURST does not matter to reads).
	if g := grid.Ranking.Find(aw.Key); gw.Key != aw.Key && (g == nil || !g.Tied) {
		t.Errorf("grid winner %s, adaptive %s, which the grid ranks %+v", gw.Key, aw.Key, g)
	}
	if ad.ProbeRuns*100 > grid.ProbeRuns*35 {
		t.Errorf("adaptive used %d probe runs, grid %d: more than 35 %%", ad.ProbeRuns, grid.ProbeRuns)
	}
	t.Logf("grid %d runs, adaptive %d (%.0f %%), winner %s", grid.ProbeRuns, ad.ProbeRuns, 100*float64(ad.ProbeRuns)/float64(grid.ProbeRuns), aw.Key)
	if len(ad.Ranking.Excluded) == 0 || ad.Ranking.Excluded[0].Status != rank.StatusEliminated {
		t.Errorf("excluded %+v", ad.Ranking.Excluded)
	}
}

// failingWrites fails the n-th register write.
type failingWrites struct {
	regs.Accessor
	n, count int
}

func (f *failingWrites) Write32(off, v uint32) error {
	f.count++
	if f.count == f.n {
		return errors.New("bus error")
	}
	return f.Accessor.Write32(off, v)
}

func TestAnErrorRestoresAndIsRecorded(t *testing.T) {
	tg, img := imageTarget(t, "imx6q")
	before, _ := os.ReadFile(img)
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3", "ITC=1,8")
	tg.Acc = &failingWrites{Accessor: tg.Acc, n: 4}
	out, err := s.runner.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "bus error") || errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("error %v", err)
	}
	if out.Status != sweep.EndFailed || !out.Restored {
		t.Errorf("outcome %+v", out)
	}
	if after, _ := os.ReadFile(img); !bytes.Equal(before, after) {
		t.Error("image not restored after the error")
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
	res, _ := results.Load(s.out)
	if e := res.Ends[0]; e.Status != sweep.EndFailed || !strings.Contains(e.Error, "bus error") || !e.Restored {
		t.Errorf("end %+v", e)
	}
}

func TestProbeFailures(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3,7")
	// One failed run fails its point; the sweep goes on.
	s.land.Fail = func(n int) error {
		if n == 4 {
			return errors.New("device vanished")
		}
		return nil
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Ranking.Excluded) != 1 || out.Ranking.Excluded[0].Status != rank.StatusFailed || !strings.Contains(out.Ranking.Excluded[0].Reason, "device vanished") {
		t.Errorf("excluded %+v", out.Ranking.Excluded)
	}
	// Three failed points in a row end the sweep, restored.
	s = newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3,7")
	s.land.Fail = func(n int) error {
		if n > 3 {
			return errors.New("device vanished")
		}
		return nil
	}
	out, err = s.runner.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "3 points in a row failed") || out.Status != sweep.EndFailed || !out.Restored {
		t.Fatalf("error %v, outcome %+v", err, out)
	}
}

func TestCancelDuringAProbeRun(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	before := snapshot(t, tg)
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3")
	ctx, cancel := context.WithCancel(context.Background())
	s.land.Before = func(n int) {
		if n == 5 {
			s.land.Block = true
			cancel() // the run in progress sees its context end
		}
	}
	out, err := s.runner.Run(ctx)
	if !errors.Is(err, sweep.ErrInterrupted) || !out.Restored {
		t.Fatalf("error %v, outcome %+v", err, out)
	}
	if after := snapshot(t, tg); !slices.Equal(before.Registers, after.Registers) {
		t.Error("registers not restored")
	}
}

// A module-parameter axis of 3 values and a register axis of 4 values
// reload the driver stack once per value (points are grouped by value),
// not once per point: with the current value among the three, two
// reloads reach the others and one returns for the last baseline.
func TestModParamSweepReloadsOncePerValue(t *testing.T) {
	for _, tc := range []struct {
		values  string
		reloads int
	}{
		{"0,3,6", 3}, // 0 is the current value
		{"2,3,6", 4},
	} {
		t.Run(tc.values, func(t *testing.T) {
			root, loader := modTree(t)
			tg := simTarget(t, "imx6q", soc.SimOptions{})
			s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh="+tc.values, "AHBBRST=0,1,2,3")
			s.runner.Plan.Repeats = 1
			s.runner.Plan.BaselineEvery = 2
			s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
			s.runner.Remap = func(context.Context) error { return tg.Identify() }
			if err := s.runner.Prepare(); err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("the plan reloads %s %d time(s)", strings.Join(tg.Profile.Reload.Modules, ", "), tc.reloads)
			if !slices.ContainsFunc(s.runner.Notes(), func(n string) bool { return strings.Contains(n, want) }) {
				t.Errorf("notes %q lack %q", s.runner.Notes(), want)
			}
			if _, err := s.runner.Run(context.Background()); err != nil {
				t.Fatalf("%v\n%s", err, s.log)
			}
			loads := 0
			for _, c := range loader.CallLog() {
				if strings.HasPrefix(c, "modprobe ehci_hcd ") {
					loads++
				}
			}
			if loads != tc.reloads {
				t.Errorf("ehci_hcd loaded %d times, want %d: %q", loads, tc.reloads, loader.CallLog())
			}
			res, err := results.Load(s.out)
			if err != nil {
				t.Fatal(err)
			}
			visited := map[string]bool{}
			for _, p := range res.Points {
				visited[p.Point] = true
			}
			if len(visited) != 13 { // 12 points and the baseline
				t.Errorf("%d points visited, want 13", len(visited))
			}
			if !strings.Contains(s.log.String(), "left]") {
				t.Errorf("no estimate of the time left in the progress:\n%s", s.log)
			}
		})
	}
}

// warmRecorder records which runs the sweep marked as warm-ups.
type warmRecorder struct {
	sweep.Prober
	warm []bool
}

func (w *warmRecorder) Measure(ctx context.Context) (probe.Run, error) {
	w.warm = append(w.warm, probe.IsWarmup(ctx))
	return w.Prober.Measure(ctx)
}

// The sweep marks its warm-up runs, so that a read probe hashes every
// byte of those and only samples the timed runs.
func TestSweepMarksWarmupRuns(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0")
	s.runner.Plan.Warmup = 1
	s.runner.Plan.Repeats = 2
	w := &warmRecorder{Prober: s.land}
	s.runner.Prober = w
	if _, err := s.runner.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// baseline, the point, baseline: one warm-up and two runs each.
	want := []bool{true, false, false, true, false, false, true, false, false}
	if !slices.Equal(w.warm, want) {
		t.Errorf("warm-up marks %v, want %v", w.warm, want)
	}
}
