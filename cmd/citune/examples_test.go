package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The examples in the help of set, sweep, report and dts are there, and
// the ones on the simulator run as they stand (issue 24); the help of
// the commands that take values says in what forms.
func TestHelpExamples(t *testing.T) {
	for _, name := range []string{"set", "sweep", "report", "dts"} {
		c := commands[name]
		if len(c.examples) == 0 {
			t.Errorf("citune help %s has no examples", name)
		}
		var out bytes.Buffer
		a := &app{env: &env{stdout: &out, stderr: &out, getenv: func(string) string { return "" }}}
		a.commandUsage(&out, c, a.flags(name))
		if !strings.Contains(out.String(), "\nexamples:\n  citune ") {
			t.Errorf("citune help %s shows no examples:\n%s", name, out.String())
		}
		if (name == "set" || name == "sweep") && !strings.Contains(out.String(), "values: a number (decimal 16, hex 0x10 or binary") {
			t.Errorf("citune help %s does not say what values look like:\n%s", name, out.String())
		}
		for _, l := range strings.Split(out.String(), "\n") {
			if len(l) > 80 {
				t.Errorf("citune help %s: line longer than 80 columns: %q", name, l)
			}
		}
	}
	dir := t.TempDir()
	t.Chdir(dir)
	env := func() *env {
		return &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{},
			getenv: func(k string) string {
				if k == "CITUNE_JOURNAL" {
					return filepath.Join(dir, "journal.json")
				}
				return ""
			}, uid: 1000, root: os.DirFS(dir)}
	}
	for _, name := range []string{"set", "sweep", "dts"} {
		for _, ex := range commands[name].examples {
			if !strings.HasPrefix(ex, "citune --sim ") {
				continue
			}
			e := env()
			args := strings.Fields(ex)[1:]
			if name == "sweep" {
				args = append(args[:len(args)-2], "--repeat", "2", "--warmup", "0", "--settle", "0", "--", "sim", "--size", "4M")
			}
			if code := run(context.Background(), args, e); code != 0 {
				t.Errorf("%s: exit %d\n%s%s", ex, code, e.stdout, e.stderr)
			}
		}
	}
}
