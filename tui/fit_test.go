package tui

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// tableRow is a table's row, whose last column may be shortened where
// the text shows whole elsewhere: the register list (the detail pane),
// the editor's values (the selected one's meaning under the list), the
// sweep table (its notes, the results file).
var tableRow = regexp.MustCompile(`^[> ] [*.][R.][S.][!.][x.] |^[> ]  \d+ +\S|^(-|\d+) +\S+ +\S+ `)

// Every screen at 80x24 (a serial console) and 60x20, drawn with the
// styles a vt100 gets (attributes are escape sequences that take no
// column): every line fits, the header, the status and the help line
// are never cut, the help screen lists every key, and the SIMULATED
// marker stays (issue 24). At 80x24 no line but a table row is cut (prose
// wraps); at 60x20 the body may shorten what does not fit, the export's
// preview included.
func TestScreensFit(t *testing.T) {
	fixture, err := filepath.Abs("../report/testdata/grid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]viewCase{
		{"plan_prompt", func(e *env) { e.keys("3", "e") }},
		{"load_prompt", func(e *env) { e.keys("3", "l") }},
		// An earlier sweep's results opened with l (a report fixture of
		// this imx6q usbh1: 12 points, two not ranked).
		{"results_loaded", func(e *env) {
			e.keys("3", "l")
			e.typeText(fixture)
			e.keys("enter")
			if !strings.Contains(strings.Join(strings.Fields(e.screen()), ""), "opened"+fixture) {
				e.t.Fatalf("the results file did not open:\n%s", e.screen())
			}
		}},
		{"sweep_empty", func(e *env) { e.keys("3") }},
		{"long_error", func(e *env) {
			e.m.setErr("export: %s", strings.Repeat("a long reason that goes on ", 12))
		}},
	}, viewCases...)
	// TERM=vt100 gets the mono styles, xterm-256color the colour ones:
	// both must fit, their escape sequences taking no column.
	mono, colour := MonoStyles(), DefaultStyles()
	terms := []struct {
		name string
		st   *Styles
		mono bool
	}{{"vt100", &mono, true}, {"xterm256", &colour, false}}
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {60, 20}} {
			for _, term := range terms {
				w, h := size[0], size[1]
				t.Run(fmt.Sprintf("%s_%dx%d_%s", c.name, w, h, term.name), func(t *testing.T) {
					e := newEnv(t, c.name == "registers_drift", func(cfg *Config) { cfg.Styles, cfg.Mono = term.st, term.mono })
					e.resize(w, h)
					c.setup(e)
					lines := strings.Split(e.screen(), "\n")
					if len(lines) != h {
						t.Errorf("%d lines, want %d", len(lines), h)
					}
					preview := false
					statusAt := h - 1 - len(e.m.statusLines()) // then the help line
					for i, l := range lines {
						if n := ansi.StringWidth(l); n > w {
							t.Errorf("line %d is %d columns wide (max %d): %q", i+1, n, w, l)
						}
						preview = preview || strings.HasPrefix(l, "-- preview")
						body := i > 0 && i < statusAt
						if body && (w < 80 || preview || tableRow.MatchString(l)) {
							continue
						}
						if strings.HasSuffix(strings.TrimRight(ansi.Strip(l), " "), "~") {
							t.Errorf("line %d is cut: %q", i+1, l)
						}
					}
					if e.m.mode == modeNormal && e.m.regs.ed == nil && e.m.sweep.prompt == promptNone && (!strings.Contains(lines[h-1], "q quit") || !strings.Contains(lines[h-1], "? ")) {
						t.Errorf("the help line lacks q quit or the ? key: %q", lines[h-1])
					}
					if !strings.Contains(ansi.Strip(lines[0]), "SIMULATED") {
						t.Errorf("the header lost the SIMULATED marker: %q", lines[0])
					}
					if c.name == "help" {
						screen := e.screen()
						for _, col := range append(e.m.keys.FullHelp(), e.m.active().FullHelp()...) {
							for _, b := range col {
								if h := b.Help(); !strings.Contains(screen, h.Key+" ") || !strings.Contains(screen, h.Desc) {
									t.Errorf("the help screen lacks %s %s", h.Key, h.Desc)
								}
							}
						}
					}
					if t.Failed() {
						t.Logf("screen:\n%s", e.screen())
					}
				})
			}
		}
	}
}
