package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/tui"
)

// The TUI's DeviceTree: the current settings' export is `citune dts`'s
// text for the live values; a winner without a results file is the
// screen's own fragment, with the settings and header the screen handed
// over; the ranking's rule blocks what no property or parameter makes
// permanent, as citune dts ranks.
func TestTUIDeviceTree(t *testing.T) {
	tg := resetSim(t)
	p := tg.Profile
	snap, err := soc.Take(p.Map, tg)
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	a := &app{env: &env{root: fstest.MapFS{}, stderr: &stderr}, minGain: -1}
	d := &tuiDTS{a: a, t: tg}
	want, err := a.dtsText(tg, "", snap)
	if err != nil {
		t.Fatal(err)
	}
	if got, note := d.Text(tui.DTSExport{Snapshot: snap, Header: []string{"ignored"}}); got != want || note != "" {
		t.Errorf("current settings, note %q:\n%s\nwant citune dts's, no note:\n%s", note, got, want)
	}
	if got, _ := d.Text(tui.DTSExport{Snapshot: snap, Header: []string{"ignored"}}); got != want {
		t.Errorf("current settings:\n%s\nwant citune dts's:\n%s", got, want)
	}
	got, _ := d.Text(tui.DTSExport{Winner: true, Snapshot: snap, Role: regs.RoleHost, Header: []string{"the screen's header"},
		Settings: []tui.DTSSetting{{Name: "SBUSCFG.AHBBRST", Value: "3", Comment: "sweep winner +4 %"}}})
	for _, w := range []string{"the screen's header", "ahb-burst-config = <0x3>", "sweep winner +4 %"} {
		if !strings.Contains(got, w) {
			t.Errorf("the winner without a results file lacks %q:\n%s", w, got)
		}
	}
	if strings.Contains(got, "tx-burst-size-dword") {
		t.Errorf("the winner's fragment holds a setting the screen did not hand over:\n%s", got)
	}
	// A colleague's results file, measured with a profile file this
	// machine lacks: dts's text for its winner, and no warning written
	// over the session's screen (dts itself warns on stderr).
	fixture, err := os.ReadFile(filepath.Join("..", "..", "report", "testdata", "grid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	grid := filepath.Join(dir, "grid.jsonl")
	gone, _ := json.Marshal(filepath.Join(dir, "gone.toml"))
	fixture = regexp.MustCompile(`"profile_file":"[^"]*"`).ReplaceAll(fixture, []byte(`"profile_file":`+string(gone)))
	if err := os.WriteFile(grid, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
	want, err = a.dtsText(tg, grid, snap)
	if err != nil || stderr.Len() == 0 {
		t.Fatalf("citune dts of %s: %v, warning %q; want a text and the stand-in profile's warning", grid, err, stderr.String())
	}
	stderr.Reset()
	for range 2 { // each time: the note back, nothing on stderr
		got, note := d.Text(tui.DTSExport{Winner: true, Results: grid, Snapshot: snap})
		if got != want {
			t.Errorf("the winner of %s:\n%s\nwant citune dts's:\n%s", grid, got, want)
		}
		if !strings.Contains(note, "gone.toml, which is not on this machine") || strings.HasPrefix(note, "citune:") || strings.Contains(note, "\n") {
			t.Errorf("the note = %q, want dts's warning of the stand-in profile, one line", note)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("the TUI's export wrote on stderr (over the screen): %q", stderr.String())
	}
	// The file changes (a resumed sweep added to it): the text follows
	// it, none is kept from before.
	if err := os.WriteFile(grid, []byte("not a results file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.Text(tui.DTSExport{Winner: true, Results: grid, Snapshot: snap}); got == want {
		t.Errorf("the export kept the text of %s after the file changed", grid)
	}
	rule := d.NotPermanent(results.Header{Role: string(regs.RoleHost), Snapshot: snap})
	if u := rule(map[string]string{"USBMODE.SDIS": "1"}); len(u) == 0 {
		t.Errorf("SDIS=1 can be made permanent, says the rule; no property or parameter does it")
	}
	if u := rule(map[string]string{"SBUSCFG.AHBBRST": "3"}); len(u) != 0 {
		t.Errorf("AHBBRST=3 cannot be made permanent, says the rule: %v", u)
	}
}
