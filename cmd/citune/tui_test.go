package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The TUI's sweep results go to the state directory beside the journal
// (created when missing), under a name that does not collide.
func TestTUISweepOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "citune")
	journal := filepath.Join(dir, "journal.json")
	now := time.Date(2026, 12, 1, 4, 5, 6, 0, time.UTC)
	p1, err := tuiSweepOut(journal, now)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(p1) != dir || filepath.Base(p1) != "tui-sweep-20261201-040506.jsonl" {
		t.Errorf("first path %s, want tui-sweep-20261201-040506.jsonl in %s", p1, dir)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		t.Fatalf("state directory not created: %v", err)
	}
	if err := os.WriteFile(p1, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p2, err := tuiSweepOut(journal, now)
	if err != nil {
		t.Fatal(err)
	}
	if p2 == p1 || !strings.HasSuffix(p2, "tui-sweep-20261201-040506-2.jsonl") {
		t.Errorf("second path %s collides or is misnamed", p2)
	}
	if strings.HasPrefix(p1, os.TempDir()+"/citune-tui") {
		t.Errorf("results in the temporary directory: %s", p1)
	}
}
