package main

// Tests of small helpers: the TUI's results path, rate units, version.

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/probe"
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

// The SI units are the same rate: MB/s is 10^6 bytes per second, Mbit/s
// eight times that, MiB/s 2^20 bytes.
func TestMedianUnits(t *testing.T) {
	m := medianOf(probe.Result{Probe: "x", Stats: probe.Stats{Unit: "B/s", Median: 31_250_000}})
	if m.MBps == nil || *m.MBps != 31.25 || *m.Mbitps != 250 || *m.MiBps != 31_250_000.0/(1<<20) {
		t.Errorf("medianOf = %+v", m)
	}
	if m := medianOf(probe.Result{Stats: probe.Stats{Unit: "fps", Median: 12}}); m.MBps != nil {
		t.Errorf("fps rate converted to bytes: %+v", m)
	}
}

// version reports what the release build stamps: module version, VCS
// revision, time and dirtiness, Go version.
func TestVersionFrom(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/citune/citune", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-01T05:00:00Z"}, {Key: "vcs.modified", Value: "true"}, {Key: "-trimpath", Value: "true"}}}
	v := versionFrom(bi)
	if v.Version != "v0.3.0" || v.Revision != "0123abcd" || v.Time != "2026-12-01T05:00:00Z" || !v.Modified || v.Go != "go1.26.8" {
		t.Errorf("versionFrom = %+v", v)
	}
	if len(v.Profiles) == 0 {
		t.Error("no profiles listed")
	}
	if v := versionFrom(nil); v.Version != "(devel)" || v.Revision != "" {
		t.Errorf("without build info: %+v", v)
	}
	// Without a revision the line does not claim the source was no git
	// checkout: -buildvcs=false leaves none either (issue 24).
	if got := versionFrom(nil).revision(); got != "no VCS stamp (built outside a git checkout, or with -buildvcs=false)" {
		t.Errorf("no build info: revision %q", got)
	}
	if got := v.revision(); got != "0123abcd (with uncommitted changes)" {
		t.Errorf("revision %q", got)
	}
}
