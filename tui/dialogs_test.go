package tui

import (
	"strings"
	"testing"
)

// An export whose file exists asks again in the export prompt; a tab's
// dialog the user opened while the write was on its way (the field
// editor, the plan prompt) gives way to it, as when the dialogs were
// modes: esc then leaves both, and no key goes to the hidden dialog.
func TestExportExistsReplacesATabsDialog(t *testing.T) {
	for _, tc := range []struct {
		name string
		open []string
	}{
		{"editor", []string{"1", "enter"}},
		{"plan prompt", []string{"3", "e"}},
		{"load prompt", []string{"3", "l"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, false)
			e.keys("w", "enter") // the file is written
			e.keys("w")
			mm, write := e.m.Update(press("enter")) // the same name: it exists
			e.m = mm.(Model)
			e.keys(tc.open...)
			if e.m.regs.ed == nil && e.m.sweep.prompt == promptNone {
				t.Fatalf("%v opened no dialog: %s", tc.open, e.m.status)
			}
			e.do(write)
			if e.m.mode != modeExport || !strings.Contains(e.m.status, "exists") {
				t.Fatalf("mode %d status %q, want the export prompt asking again", e.m.mode, e.m.status)
			}
			e.keys("esc")
			if e.m.regs.ed != nil || e.m.sweep.prompt != promptNone {
				t.Errorf("after esc the %s is back: %s", tc.name, e.screen())
			}
			if s := e.screen(); strings.Contains(s, "Edit ") || strings.Contains(s, "> ") && strings.Contains(s, "plan") && strings.Contains(s, "esc cancel") {
				t.Errorf("after esc the %s shows:\n%s", tc.name, s)
			}
		})
	}
}
