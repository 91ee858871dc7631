package profiles

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

var update = flag.Bool("update", false, "rewrite profiles.z from the *.toml sources")

func sources(t *testing.T) map[string][]byte {
	t.Helper()
	names, err := filepath.Glob("*.toml")
	if err != nil || len(names) == 0 {
		t.Fatalf("no *.toml sources: %v", err)
	}
	m := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		m[n] = b
	}
	return m
}

// TestArchiveFresh: the embedded archive holds exactly the *.toml sources
// (run `go test ./profiles -update` after editing a profile).
func TestArchiveFresh(t *testing.T) {
	src := sources(t)
	if *update {
		var buf bytes.Buffer
		if err := Pack(&buf, src); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("profiles.z", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		archive = buf.String()
	}
	got, names, err := Unpack(archive)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(src) || len(names) != len(src) {
		t.Errorf("archive has %d files, sources %d: run go test ./profiles -update", len(got), len(src))
	}
	for n, b := range src {
		if !bytes.Equal(got[n], b) {
			t.Errorf("%s: the archive is stale: run go test ./profiles -update", n)
		}
	}
}

func TestFS(t *testing.T) {
	var want []string
	for n := range sources(t) {
		want = append(want, n)
	}
	if err := fstest.TestFS(FS, want...); err != nil {
		t.Fatal(err)
	}
	if _, err := FS.ReadFile("nope.toml"); err == nil {
		t.Error("ReadFile of a missing file")
	}
	if m, _ := fs.Glob(FS, "*.toml"); len(m) != len(want) {
		t.Errorf("Glob *.toml = %v", m)
	}
	if _, _, err := Unpack("not flate"); err == nil {
		t.Error("Unpack of garbage")
	}
}
