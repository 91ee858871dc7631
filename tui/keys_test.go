package tui

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
)

// The ? screen of each tab shows the keys every tab has and the tab's
// own, nothing cut, at 80x24 and 60x20, and none of another tab's keys
// that the tab does not have (it listed every tab's keys at once). On
// the smallest screen (40x12) the tab's own keys come first: they show.
func TestHelpShowsTheTabsKeys(t *testing.T) {
	// bindings is a key struct's bindings by field name, but the labels
	// that only sum up other bindings in the help line and the quit
	// dialog's own keys (shown by the dialog).
	skip := map[string]bool{"Move": true, "Rate": true, "Runs": true, "RestoreQuit": true, "KeepQuit": true, "Apply": true, "Switch": true}
	bindings := func(keys any) map[string]key.Binding {
		out := map[string]key.Binding{}
		v := reflect.ValueOf(keys)
		for i := 0; i < v.NumField(); i++ {
			if b, ok := v.Field(i).Interface().(key.Binding); ok && !skip[v.Type().Field(i).Name] {
				out[v.Type().Field(i).Name] = b
			}
		}
		return out
	}
	listed := func(scr string, b key.Binding) bool {
		h := b.Help()
		return regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(h.Key) + ` +` + regexp.QuoteMeta(h.Desc) + `(\s|$)`).MatchString(scr)
	}
	for _, size := range [][2]int{{80, 24}, {60, 20}, {40, 12}} {
		e := newEnv(t, false)
		own := [numTabs]map[string]key.Binding{bindings(e.m.regs.own), bindings(e.m.probe.own), bindings(e.m.sweep.own)}
		for tb := tab(0); tb < numTabs; tb++ {
			e.resize(size[0], size[1])
			e.keys(fmt.Sprint(tb+1), "?")
			scr := e.screen()
			where := fmt.Sprintf("%s tab at %dx%d", tabNames[tb], size[0], size[1])
			lines := strings.Split(scr, "\n")
			if len(lines) != size[1] {
				t.Errorf("%s: %d lines", where, len(lines))
			}
			for _, l := range lines {
				if n := len([]rune(strings.TrimRight(l, " "))); n > size[0] {
					t.Errorf("%s: line of %d columns: %q", where, n, l)
				}
			}
			// (The header's own shortening is not the help's.)
			if body := strings.Join(lines[1:], "\n"); strings.Contains(body, "~") {
				t.Errorf("%s: the help screen marks something as cut (~):\n%s", where, scr)
			}
			if !strings.Contains(scr, "Keys of the "+tabNames[tb]+" tab") {
				t.Errorf("%s: the help screen does not say whose keys it lists:\n%s", where, scr)
			}
			want := bindings(e.m.keys)
			if size[1] < 20 {
				want = map[string]key.Binding{}
			}
			for name, b := range own[tb] {
				want[tabNames[tb]+"."+name] = b
			}
			for name, b := range want {
				if !listed(scr, b) {
					t.Errorf("%s: %s (%s %s) is not on the help screen:\n%s", where, name, b.Help().Key, b.Help().Desc, scr)
				}
			}
			for other := tab(0); other < numTabs; other++ {
				if other == tb {
					continue
				}
			next:
				for name, b := range own[other] {
					for _, w := range want {
						if w.Help() == b.Help() {
							continue next // the tab has that key too (r run)
						}
					}
					if listed(scr, b) {
						t.Errorf("%s: the %s tab's %s (%s %s) is on the help screen:\n%s", where, tabNames[other], name, b.Help().Key, b.Help().Desc, scr)
					}
				}
			}
			e.keys("esc")
		}
	}
}

// The ? screen's legend is cut a paragraph at a time: on a screen too
// small for it, the list of the Registers tab's flags shows whole or not
// at all (half of it read as every flag there is).
func TestHelpLegendWhole(t *testing.T) {
	flags := []string{"*  tuning knob", "S  differs from the value", "!  changed behind your back", "x  marked as a sweep axis"}
	for _, size := range [][2]int{{80, 24}, {60, 20}, {60, 18}, {40, 12}} {
		e := newEnv(t, false)
		for tb := tab(0); tb < numTabs; tb++ {
			e.resize(size[0], size[1])
			e.keys(fmt.Sprint(tb+1), "?")
			scr := e.screen()
			n := 0
			for _, f := range flags {
				if strings.Contains(scr, f) {
					n++
				}
			}
			if n != 0 && n != len(flags) {
				t.Errorf("%s tab at %dx%d: %d of the %d flags on the help screen:\n%s", tabNames[tb], size[0], size[1], n, len(flags), scr)
			}
			if size == [2]int{80, 24} && n == 0 {
				t.Errorf("%s tab at 80x24: no flags on the help screen:\n%s", tabNames[tb], scr)
			}
			e.keys("esc")
		}
	}
}
