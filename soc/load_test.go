package soc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// LoadAll refuses a profile whose name differs from its file name, naming
// the file and the line of the name key.
func TestLoadAllNameMismatch(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{
		"good-board.toml": {Data: data},
		"other.toml":      {Data: data},
	}
	ps, err := LoadAll(fsys)
	if err == nil {
		t.Fatal("no error for other.toml")
	}
	if !errors.Is(err, ErrProfile) || !strings.HasPrefix(err.Error(), "other.toml:2: ") || !strings.Contains(err.Error(), `name "good-board" does not match the file name`) {
		t.Errorf("error %q", err)
	}
	if len(ps) != 1 || ps[0].Name != "good-board" {
		t.Errorf("the good profile was not loaded: %v", ps)
	}
}
