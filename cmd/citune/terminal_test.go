package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDevNullIsNoTerminal: /dev/null is a character device but no
// terminal, so output sent there gets no progress bar or colour.
func TestDevNullIsNoTerminal(t *testing.T) {
	for _, path := range []string{os.DevNull, filepath.Join(t.TempDir(), "f")} {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if isTerminal(f) {
			t.Errorf("isTerminal(%s) = true, want false", path)
		}
		f.Close()
	}
}
