package tui

import (
	"strings"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// Editing ITC writes it, reads it back and marks it as changed from start.
func TestEditITCAppliedAndReadBack(t *testing.T) {
	e := newEnv(t, false)
	if got := e.field("USBCMD.ITC"); got != 8 {
		t.Fatalf("simulated ITC starts at %d, want the reset value 8", got)
	}
	e.setEdit("USBCMD.ITC", 0)
	if got := e.field("USBCMD.ITC"); got != 0 {
		t.Fatalf("ITC on the controller = %d after the edit, want 0 (status %q)", got, e.m.status)
	}
	if !strings.Contains(e.m.status, "applied USBCMD.ITC=0 (reads 0), read back ok") {
		t.Errorf("status = %q, want the read-back", e.m.status)
	}
	scr := e.screen()
	for _, want := range []string{"> *RS.. USBCMD.ITC", "0  IMMEDIATE: interrupt at once (0 us)", "now 0 (IMMEDIATE) | start 8 (UF8)"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	if got := e.m.cfg.Undo.Touched(); len(got) != 1 || got[0].String() != "USBCMD.ITC" {
		t.Errorf("ledger = %v, want USBCMD.ITC", got)
	}
}

// The editor validates like the CLI: reserved values, read-only fields,
// values that do not fit are refused and nothing is written.
func TestEditRefusals(t *testing.T) {
	e := newEnv(t, false)
	e.selectRow("SBUSCFG.AHBBRST")
	e.keys("enter")
	for e.m.regs.ed.choices[e.m.regs.ed.sel].v != 4 {
		e.keys("down")
	}
	e.keys("enter")
	if e.m.regs.ed == nil || !strings.Contains(e.m.regs.ed.err, "reserved") {
		t.Errorf("AHBBRST=4: editor %+v, want it open and refusing a reserved value", e.m.regs.ed)
	}
	e.keys("esc")
	if got := e.field("SBUSCFG.AHBBRST"); got != 2 {
		t.Errorf("AHBBRST = %d, want 2 untouched", got)
	}

	e.selectRow("ID")
	e.keys("j", "enter") // ID.ID, a read-only field
	if e.m.regs.ed != nil || !strings.Contains(e.m.status, "write refused") {
		t.Errorf("editing ID.ID: editor open %v status %q, want a refusal", e.m.regs.ed != nil, e.m.status)
	}

	e.selectRow("BURSTSIZE.TXPBURST")
	e.keys("enter")
	if !e.m.regs.ed.onInput() {
		t.Fatal("TXPBURST has no named values: the editor should start on the value input")
	}
	e.answer("300")
	if !strings.Contains(e.m.regs.ed.err, "does not fit") {
		t.Errorf("TXPBURST=300: err %q, want does not fit", e.m.regs.ed.err)
	}
	// 64 fits the field, but the DT binding stops at 0x20: refused as
	// citune set refuses it.
	e.answer("64")
	if !strings.Contains(e.m.regs.ed.err, "the DT binding allows tx-burst-size-dword up to 0x20") {
		t.Errorf("TXPBURST=64: err %q, want the binding's limit", e.m.regs.ed.err)
	}
	if got := e.field("BURSTSIZE.TXPBURST"); got == 64 {
		t.Error("TXPBURST=64 was written")
	}
	e.answer("0x10")
	if got := e.field("BURSTSIZE.TXPBURST"); got != 16 {
		t.Errorf("TXPBURST = %d after typing 0x10, want 16 (%s)", got, e.m.status)
	}
}

// A value the driver writes back is shown with '!' and explained.
func TestDriverRevertIsShown(t *testing.T) {
	e := newEnv(t, true)
	start := e.field("USBCMD.ITC")
	e.setEdit("USBCMD.ITC", 0)
	if got := e.field("USBCMD.ITC"); got != 0 {
		t.Fatalf("ITC = %d, want 0 before the driver acts", got)
	}
	e.sim.Transfer() // ehci-hcd writes its cached USBCMD back
	e.refresh()
	if got := e.field("USBCMD.ITC"); got != start {
		t.Fatalf("the simulated driver did not revert ITC: %d", got)
	}
	scr := e.screen()
	for _, want := range []string{"> *R.!. USBCMD.ITC", "changed behind your back: was 0, reads 1", "CHANGED BEHIND YOUR BACK"} {
		if !strings.Contains(strings.ToLower(scr), strings.ToLower(want)) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
	if !strings.Contains(e.m.status, "ehci-hcd") {
		t.Errorf("status %q does not explain who reverted it", e.m.status)
	}
}

// Revert one field and revert all return values to the starting snapshot.
func TestRevert(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("USBCMD.ITC", 0)
	e.setEdit("SBUSCFG.AHBBRST", 0)
	e.selectRow("USBCMD.ITC")
	e.keys("u")
	if got := e.field("USBCMD.ITC"); got != 8 {
		t.Errorf("ITC = %d after revert, want 8", got)
	}
	if got := e.field("SBUSCFG.AHBBRST"); got != 0 {
		t.Errorf("AHBBRST = %d, want 0 (only ITC reverted)", got)
	}
	e.keys("U")
	if got := e.field("SBUSCFG.AHBBRST"); got != 2 {
		t.Errorf("AHBBRST = %d after revert all, want 2 (%s)", got, e.m.status)
	}
	if n := len(e.m.cfg.Undo.Touched()); n != 0 {
		t.Errorf("ledger still has %d fields after revert all", n)
	}
	e.refresh()
	e.refresh()
	if len(e.m.regs.drifts) != 0 {
		t.Errorf("our own reverts flagged as changes behind the user's back: %v", e.m.regs.drifts)
	}
}

// Quitting restores the starting snapshot; keep leaves the settings.
func TestQuitRestores(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("USBCMD.ITC", 0)
	e.setEdit("SBUSCFG.AHBBRST", 3)
	e.keys("q")
	if !strings.Contains(e.screen(), "USBCMD.ITC                 start 8          now 0") {
		t.Errorf("quit dialog does not list the change:\n%s", e.screen())
	}
	e.keys("enter")
	if !e.quit {
		t.Fatal("the program did not quit")
	}
	if got, want := e.field("USBCMD.ITC"), e.startField("USBCMD.ITC"); got != want {
		t.Errorf("ITC = %d after quit, want the starting %d", got, want)
	}
	if got, want := e.field("SBUSCFG.AHBBRST"), e.startField("SBUSCFG.AHBBRST"); got != want {
		t.Errorf("AHBBRST = %d after quit, want the starting %d", got, want)
	}
	out := e.m.Outcome()
	if !out.Quit || out.Kept || !out.Restored || out.Err != nil || len(out.Report) != 2 {
		t.Errorf("outcome = %+v", out)
	}
}

// q quits at once when every value is at its start (nothing changed, or
// changed and changed back); the dialog lists only what differs.
func TestQuitAtOnce(t *testing.T) {
	e := newEnv(t, false)
	e.keys("q")
	if !e.quit || e.m.mode == modeQuit {
		t.Fatalf("q with nothing changed did not quit at once:\n%s", e.screen())
	}
	if out := e.m.Outcome(); !out.Quit || out.Kept || out.Err != nil || !out.Unchanged {
		t.Errorf("outcome = %+v", out)
	}

	e = newEnv(t, false)
	start := e.startField("USBCMD.ITC")
	e.setEdit("USBCMD.ITC", 0)
	e.setEdit("USBCMD.ITC", start)
	e.keys("q")
	if !e.quit {
		t.Fatalf("q after changing a value back did not quit at once:\n%s", e.screen())
	}

	e = newEnv(t, false)
	e.setEdit("USBCMD.ITC", 0)
	e.setEdit("SBUSCFG.AHBBRST", 3)
	e.setEdit("USBCMD.ITC", start)
	e.keys("q")
	scr := e.screen()
	if e.quit || !strings.Contains(scr, "1 value(s) differ from their start:") || !strings.Contains(scr, "SBUSCFG.AHBBRST") || strings.Contains(scr, "USBCMD.ITC ") {
		t.Errorf("quit dialog should list only AHBBRST:\n%s", scr)
	}
}

func TestQuitKeep(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("USBCMD.ITC", 0)
	e.keys("q", "k")
	if !e.quit || !e.m.Outcome().Kept {
		t.Fatalf("keep did not quit: %+v", e.m.Outcome())
	}
	if got := e.field("USBCMD.ITC"); got != 0 {
		t.Errorf("ITC = %d, want 0 kept", got)
	}
}

// After a kill (SIGHUP) cmd/citune restores through the undo session.
func TestUndoRestoreAfterKill(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("USBCMD.ITC", 2)
	rs, err := e.m.cfg.Undo.Restore(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := e.field("USBCMD.ITC"); got != 8 {
		t.Errorf("ITC = %d after ledger restore, want 8", got)
	}
	if r := RestoreReport(rs); len(r) != 1 || r[0] != "USBCMD.ITC = 8" {
		t.Errorf("report = %q", r)
	}
}

// Probing records runs per setting and compares them.
func TestProbeHistoryAndCompare(t *testing.T) {
	e := newEnv(t, false)
	e.keys("2", "r")
	e.setEditFrom(1, "USBCMD.ITC", 0)
	e.keys("2", "r")
	p := e.m.probe
	if len(p.hist) != 2 || p.hist[0].setting != "start" || p.hist[1].setting != "ITC=0" {
		t.Fatalf("history = %+v", p.hist)
	}
	if len(p.hist[0].runs) != 3 || len(p.hist[1].runs) != 3 {
		t.Errorf("runs = %d, %d, want 3 each", len(p.hist[0].runs), len(p.hist[1].runs))
	}
	scr := e.screen()
	for _, want := range []string{"A: start", "B: ITC=0", "95 % CI"} {
		if !strings.Contains(scr, want) {
			t.Errorf("screen lacks %q:\n%s", want, scr)
		}
	}
}

// setEditFrom edits a field from another tab.
func (e *env) setEditFrom(tab int, name string, v uint32) {
	e.t.Helper()
	e.keys("1")
	e.setEdit(name, v)
}

// A probe run during which the driver reverted the setting is not counted.
func TestProbeRunNotHeld(t *testing.T) {
	e := newEnv(t, true)
	e.setEdit("USBCMD.ITC", 0)
	e.keys("2", "-", "-", "r")
	h := e.m.probe.hist
	if len(h) != 1 || h[0].setting != "ITC=0" || h[0].dropped != 1 || len(h[0].runs) != 0 {
		t.Fatalf("history = %+v", h)
	}
	if !strings.Contains(e.m.status, "not counted: the setting changed while it ran") {
		t.Errorf("status = %q", e.m.status)
	}
}

// Export writes the fragment for the current settings to the named file.
func TestExport(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("SBUSCFG.AHBBRST", 0)
	e.setEdit("BURSTSIZE.TXPBURST", 16)
	e.setEdit("USBMODE.SDIS", 1)
	e.keys("w")
	e.answer("out.dtsi")
	got := e.files["out.dtsi"]
	for _, want := range []string{"&usbh1 {", "\tahb-burst-config = <0x0>;", "\ttx-burst-size-dword = <0x10>;", "ehci_hcd.log2_irq_thresh=3", "USBMODE.SDIS = 1: No DT property"} {
		if !strings.Contains(got, want) {
			t.Errorf("export lacks %q:\n%s", want, got)
		}
	}
}

// An export onto an existing file asks first: the prompt comes back with
// the name, and only enter on that same name replaces the file; esc
// leaves it as it was (issue 24).
func TestExportAsksBeforeReplacing(t *testing.T) {
	e := newEnv(t, false)
	e.files["old.dtsi"] = "keep me"
	e.keys("w")
	e.answer("old.dtsi")
	if got := e.files["old.dtsi"]; got != "keep me" {
		t.Fatalf("the existing file was replaced without asking:\n%s", got)
	}
	if e.m.mode != modeExport || !strings.Contains(e.screen(), "old.dtsi exists: enter replaces it") {
		t.Fatalf("no question after an export onto an existing file:\n%s", e.screen())
	}
	e.keys("esc")
	if got := e.files["old.dtsi"]; got != "keep me" {
		t.Fatalf("esc replaced the file:\n%s", got)
	}
	e.keys("w")
	e.answer("old.dtsi")
	e.keys("enter")
	if got := e.files["old.dtsi"]; !strings.Contains(got, "&usbh1 {") {
		t.Fatalf("enter on the question did not replace the file:\n%s", got)
	}
	if !strings.Contains(e.screen(), "wrote old.dtsi") {
		t.Errorf("no wrote line:\n%s", e.screen())
	}
}

// After a sweep, export can take the winner instead of the live values.
func TestExportWinner(t *testing.T) {
	e := newEnv(t, false)
	e.writePlan("AHBBRST=0,3 ITC=1,8 repeat=3")
	e.keys("r", "w")
	if !e.m.expW {
		t.Fatal("export after a sweep should start with the winner")
	}
	e.answer("win.dtsi")
	got := e.files["win.dtsi"]
	for _, want := range []string{"source: sweep winner, AHBBRST=3 ITC=1", "ahb-burst-config = <0x3>;", "ehci_hcd.log2_irq_thresh=0"} {
		if !strings.Contains(got, want) {
			t.Errorf("export lacks %q:\n%s", want, got)
		}
	}
}

// The best line compares the best point with the baseline, or with the
// runner-up when there is none, as the sweep does: the best against the
// other, so a faster best reads as a gain.
func TestBestLineCompares(t *testing.T) {
	slow, fast := []float64{30, 31, 29, 30}, []float64{45, 44, 46, 45}
	best := results.PointRecord{Point: "ITC=8", Settings: map[string]string{"USBCMD.ITC": "8"}, Rates: fast}
	e := newEnv(t, false)
	s := &e.m.sweep
	s.points = []results.PointRecord{{Baseline: true, Rates: slow}, best}
	if got, want := s.bestLine(), rank.Compare(fast, slow).String()+" vs baseline"; !strings.HasSuffix(got, want) || !strings.Contains(got, "+") {
		t.Errorf("with a baseline: %q, want it to end %q", got, want)
	}
	s.plan.Axes = []plan.Axis{{Kind: plan.KindFile, Name: "/sys/x"}} // no starting point to compare with
	s.points = []results.PointRecord{{Point: "ITC=1", Settings: map[string]string{"USBCMD.ITC": "1"}, Rates: slow}, best}
	if got, want := s.bestLine(), rank.Compare(fast, slow).String()+" vs runner-up"; !strings.HasSuffix(got, want) {
		t.Errorf("without a baseline: %q, want it to end %q", got, want)
	}
}

// A serial console that reports 0x0 gets the 80x24 it almost always is.
func TestZeroWindowSize(t *testing.T) {
	e := newEnv(t, false)
	e.resize(0, 0)
	if e.m.w != 80 || e.m.h != 24 {
		t.Errorf("size %dx%d, want 80x24", e.m.w, e.m.h)
	}
	if n := len(strings.Split(e.screen(), "\n")); n != 24 {
		t.Errorf("%d lines drawn, want 24", n)
	}
}

// The TUI decides the role as soc.Target.Role does: a controller whose
// dr_mode is host is a host even while USBMODE.CM reads idle.
func TestRoleIsTheTargets(t *testing.T) {
	e := newEnv(t, false)
	tg := e.m.cfg.Target
	c := *tg.Controller
	c.Roles, c.DRMode = []regs.Role{regs.RoleHost, regs.RoleDevice}, "host"
	t2, err := soc.OpenSim(tg.Profile, &c, soc.SimOptions{}) // a Target is not copied (it holds a lock)
	if err != nil {
		t.Fatal(err)
	}
	idle := map[uint32]uint32{tg.Profile.Map.Register("USBMODE").Offset: 0}
	roleOf := func(raw map[uint32]uint32) regs.Role {
		return soc.RoleOf(tg.Profile.Map, t2.Controller, snapshotOf(tg.Profile.Map, raw))
	}
	if role := roleOf(idle); role != "host" {
		t.Errorf("dr_mode host: %q, want host", role)
	}
	c.DRMode = "otg"
	if role := roleOf(idle); role != "" {
		t.Errorf("otg, idle: %q, want unknown", role)
	}
	dev := map[uint32]uint32{tg.Profile.Map.Register("USBMODE").Offset: 2}
	if role := roleOf(dev); role != "device" {
		t.Errorf("CM=2: %s, want device", role)
	}
}

// A quit right after an export waits for the export's write: the write
// runs as a command, which the program would not wait for after a quit,
// leaving a created but empty file behind.
func TestQuitWaitsForExport(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("SBUSCFG.AHBBRST", 0)
	e.keys("w")
	e.clearInput()
	e.typeText("out.dtsi")
	mm, write := e.m.Update(press("enter"))
	e.m = mm.(Model)
	if write == nil {
		t.Fatal("enter in the export prompt gave no write command")
	}
	e.keys("q", "enter")
	if e.quit {
		t.Fatal("quit before the export was written")
	}
	if _, ok := e.files["out.dtsi"]; ok {
		t.Fatal("the export was written before its command ran")
	}
	if !strings.Contains(e.m.status, "finishing the export") {
		t.Errorf("status = %q", e.m.status)
	}
	e.do(write)
	if !e.quit {
		t.Error("no quit after the export was written")
	}
	if !strings.Contains(e.files["out.dtsi"], "ahb-burst-config = <0x0>;") {
		t.Errorf("export:\n%s", e.files["out.dtsi"])
	}
	if !e.m.out.Restored {
		t.Error("the quit did not restore")
	}
}

// A sweep whose every point is slower than the original settings says
// the original settings won, and its export writes the original values,
// not the best of the slower points.
func TestSweepOriginalWins(t *testing.T) {
	e := newEnv(t, true) // the board as Linux leaves it: AHBBRST=0, 16-word bursts
	e.writePlan("AHBBRST=1,2 repeat=3")
	e.keys("r")
	if rk := e.m.sweep.ranking; rk == nil || rk.Verdict.Kind != rank.VerdictKeep || !strings.Contains(e.m.status, "keep the original settings") {
		t.Fatalf("ranking %v, status %q", e.m.sweep.ranking, e.m.status)
	}
	e.keys("w")
	if !e.m.expW {
		t.Fatal("export after a sweep should start with the winner")
	}
	e.answer("orig.dtsi")
	got := e.files["orig.dtsi"]
	for _, want := range []string{"ahb-burst-config = <0x0>;", "original value: every point swept was significantly slower"} {
		if !strings.Contains(got, want) {
			t.Errorf("export lacks %q:\n%s", want, got)
		}
	}
}

// q while a write is on its way (the first change of the session): the
// quit does not take the session for unchanged and go at once; the
// dialog opens, and keep waits for the write, so the value is kept
// (issue 24; a script typing "q" right after enter met this). Closing
// says "restoring..." once, on the status line.
func TestQuitWhileWriting(t *testing.T) {
	e := newEnv(t, false)
	e.selectRow("SBUSCFG.AHBBRST")
	e.keys("enter", "down")
	mm, write := e.m.Update(press("enter"))
	e.m = mm.(Model)
	if write == nil || !e.m.writing {
		t.Fatal("enter in the editor gave no write")
	}
	e.keys("q")
	if e.quit || e.m.mode != modeQuit {
		t.Fatalf("q during a write: quit %v, mode %d; want the quit dialog", e.quit, e.m.mode)
	}
	e.keys("k")
	if e.quit {
		t.Fatal("keep quit before the write landed")
	}
	e.do(write)
	if !e.quit || !e.m.out.Kept {
		t.Fatalf("after the write: quit %v, kept %v", e.quit, e.m.out.Kept)
	}
	if e.field("SBUSCFG.AHBBRST") == e.startField("SBUSCFG.AHBBRST") {
		t.Error("the write did not land before the keep")
	}
}

func TestClosingSaysRestoringOnce(t *testing.T) {
	e := newEnv(t, false)
	e.setEdit("USBCMD.ITC", 0)
	e.keys("q")
	mm, _ := e.m.Update(press("enter")) // restore and quit; the restore not run
	e.m = mm.(Model)
	if n := strings.Count(e.screen(), "restoring the starting values"); n != 1 {
		t.Errorf("\"restoring the starting values\" %d times on the closing screen:\n%s", n, e.screen())
	}
}
