package tui

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The export hands the DeviceTree seam (cmd/citune's `citune dts`) what
// the screen shows and writes its text: the current settings with the
// live values, the sweep winner with the sweep's results file and the
// winner's settings.
func TestExportThroughDTS(t *testing.T) {
	var got []DTSExport
	e := newEnv(t, false, func(c *Config) {
		c.DTS = hookDTS{testDTS{c.Target}, func(x DTSExport) string {
			got = append(got, x)
			if !x.Winner {
				return fmt.Sprintf("live %d registers\n", len(x.Snapshot.Registers))
			}
			return "winner of " + x.Results + "\n"
		}, ""}
	})
	e.keys("w")
	e.answer("live.dtsi")
	if got := e.files["live.dtsi"]; !strings.HasPrefix(got, "live ") || got == "live 0 registers\n" {
		t.Errorf("live export = %q, want the DTS hook's text for the live values", got)
	}
	if len(got) == 0 || got[len(got)-1].Settings != nil || got[len(got)-1].Results != "" {
		t.Errorf("the live export handed %+v, want the live values only", got)
	}
	e.writePlan("AHBBRST=0,3 ITC=1,8 repeat=3")
	e.keys("r", "w")
	e.answer("win.dtsi")
	res := e.m.sweep.results
	if res == "" {
		t.Fatal("the sweep reported no results file")
	}
	if got, want := e.files["win.dtsi"], "winner of "+res+"\n"; got != want {
		t.Errorf("winner export = %q, want %q", got, want)
	}
	last := got[len(got)-1]
	ws, _, _ := e.m.winnerSettings()
	if !last.Winner || len(last.Settings) == 0 || !reflect.DeepEqual(last.Settings, ws) || !strings.Contains(strings.Join(last.Header, "\n"), "source: ") {
		t.Errorf("the winner's export handed %+v, want the winner's settings %+v and the screen's header", last, ws)
	}
}

// hookDTS is a DeviceTree whose Text is text, with the warning note.
type hookDTS struct {
	testDTS
	text func(DTSExport) string
	note string
}

func (h hookDTS) Text(x DTSExport) (string, string) { return h.text(x), h.note }

// The seam's warning (dts's stand-in profile for a colleague's results
// file) shows on the export screen, and stays out of the file written.
func TestExportShowsTheSeamsNote(t *testing.T) {
	const note = "grid.jsonl was measured with the profile file /gone.toml, which is not on this machine"
	e := newEnv(t, false, func(c *Config) {
		c.DTS = hookDTS{testDTS{c.Target}, func(DTSExport) string { return "text\n" }, note}
	})
	e.keys("w")
	if v := e.screen(); !strings.Contains(v, "note: grid.jsonl was measured") {
		t.Errorf("the export screen lacks the seam's note:\n%s", v)
	}
	e.answer("x.dtsi")
	if got := e.files["x.dtsi"]; got != "text\n" {
		t.Errorf("written %q, want the text alone", got)
	}
}

// Without a DeviceTree the session says that it cannot export, and does
// not open a results file it could not rank as citune dts does.
func TestNoDeviceTree(t *testing.T) {
	e := newEnv(t, false, func(c *Config) { c.DTS = nil })
	e.keys("w")
	if e.m.mode != modeNormal || !strings.Contains(e.m.status, "export is not available") {
		t.Errorf("w without a DeviceTree: mode %d, status %q", e.m.mode, e.m.status)
	}
	fixture, err := filepath.Abs(filepath.Join(testdata, "../../report/testdata/grid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	e.keys("3", "l")
	e.typeText(fixture)
	e.keys("enter")
	if e.m.sweep.ranking != nil || !strings.Contains(e.m.status, "no device-tree rules") {
		t.Errorf("a results file opened without a DeviceTree: status %q", e.m.status)
	}
}

// The export's text is made when the dialog opens and when its source
// changes, not on every frame: typing a file name asks the seam nothing
// (for a results file it reads and ranks the whole file).
func TestExportTextNotPerFrame(t *testing.T) {
	calls := 0
	e := newEnv(t, false, func(c *Config) {
		c.DTS = hookDTS{testDTS{c.Target}, func(x DTSExport) string { calls++; return "text\n" }, ""}
	})
	e.keys("w")
	opened := calls
	if opened == 0 {
		t.Fatal("opening the export made no text")
	}
	e.clearInput()
	e.typeText("board.dtsi")
	_ = e.screen()
	if calls != opened {
		t.Errorf("typing a file name asked the seam %d more times", calls-opened)
	}
	e.keys("enter")
	if got := e.files["board.dtsi"]; got != "text\n" {
		t.Errorf("written %q, want the preview's text", got)
	}
}
