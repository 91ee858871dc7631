package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/tui"
)

// A results file rewritten in place with the same size and the same
// modification time (a file system of one- or two-second times, cp -p,
// rsync -t, a tar extracted over it) is read again: the export is the
// new file's winner, as `citune dts` prints it, never the old one's.
func TestTUIDeviceTreeRewrittenSameSizeAndTime(t *testing.T) {
	tg := resetSim(t)
	snap, err := soc.Take(tg.Profile.Map, tg)
	if err != nil {
		t.Fatal(err)
	}
	a := &app{env: &env{root: fstest.MapFS{}, stderr: &strings.Builder{}}, minGain: -1}
	d := &tuiDTS{a: a, t: tg}
	fixture, err := os.ReadFile(filepath.Join("..", "..", "report", "testdata", "grid.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(t.TempDir(), "grid.jsonl")
	mtime := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(grid, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(grid, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	write(fixture)
	first, _ := d.Text(tui.DTSExport{Winner: true, Results: grid, Snapshot: snap})
	changed := bytes.Replace(fixture, []byte(`"started":"2026-11-30T09:00:02Z"`), []byte(`"started":"2026-11-30T09:07:02Z"`), 1)
	write(changed)
	want, err := a.dtsText(tg, grid, snap)
	if err != nil {
		t.Fatal(err)
	}
	if want == first {
		t.Fatal("the rewritten file's dts text is the first one's: the test changes nothing")
	}
	if got, _ := d.Text(tui.DTSExport{Winner: true, Results: grid, Snapshot: snap}); got != want {
		t.Errorf("after the file was rewritten (same size, same time) the export is stale:\n%s\nwant:\n%s", got, want)
	}
}
