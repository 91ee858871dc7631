package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every `go run ./cmd/citune ...` line of the README's sh blocks runs as
// it stands, in order, in one directory (they build on each other: an
// image, then commands on it), and succeeds (issue 24).
func TestREADMECommands(t *testing.T) {
	f, err := os.Open("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "```"):
			in = !in && strings.HasPrefix(l, "```sh")
		case in && strings.HasPrefix(l, "go run ./cmd/citune "):
			cmd, _, _ := strings.Cut(l, " #")
			lines = append(lines, strings.TrimSpace(cmd))
		}
	}
	if len(lines) < 8 {
		t.Fatalf("found %d go run lines in the README, want the first command, the other things to try and the image session", len(lines))
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for _, l := range lines {
		if strings.ContainsAny(l, `'"$|;&`) {
			t.Errorf("%s: quotes or shell syntax; this test splits at spaces only", l)
			continue
		}
		args := strings.Fields(l)[3:]
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
			getenv: func(k string) string {
				if k == "CITUNE_JOURNAL" {
					return filepath.Join(dir, "journal.json")
				}
				return ""
			}, uid: 1000, root: os.DirFS(dir)}
		if code := run(context.Background(), args, e); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", l, code, out.String(), errb.String())
		}
	}
}
