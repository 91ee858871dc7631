package main

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
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
	// The verdict the prose quotes is the first command's, as printed.
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, q := range regexp.MustCompile("`(verdict: [^`]+)`").FindAllStringSubmatch(string(readme), -1) {
		quoted = append(quoted, strings.Join(strings.Fields(q[1]), " "))
	}
	if len(quoted) == 0 {
		t.Error("the README quotes no verdict of its first command")
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for i, l := range lines {
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
		for _, q := range quoted {
			if i == 0 && !strings.Contains(out.String(), q) {
				t.Errorf("the README quotes %q; its first command printed\n%s", q, out.String())
			}
		}
	}
}
