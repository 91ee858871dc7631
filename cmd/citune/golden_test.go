package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

// runCitune runs citune in-process and returns stdout, stderr and the exit
// code.
func runCitune(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(string) string { return "" }, uid: 1000, root: os.DirFS(t.TempDir())}
	code := run(context.Background(), args, e)
	return out.String(), errb.String(), code
}

// TestGoldenDumps: every embedded profile loads strictly and the dump of
// the first simulated controller of each core type it has, at reset
// (--reset-values), matches
// testdata/golden/dump-NAME-CORE.txt (go test -run TestGoldenDumps -update
// rewrites them), so a profile edit shows up as a reviewable diff. A
// host-only core's dump has only the registers that core has.
func TestGoldenDumps(t *testing.T) {
	ps, err := builtinProfiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 2 {
		t.Fatalf("only %d profiles", len(ps))
	}
	for _, p := range ps {
		done := map[regs.Core]bool{}
		for _, c := range p.Controllers {
			if done[c.Core] {
				continue
			}
			done[c.Core] = true
			name := p.Name + "-" + string(c.Core)
			t.Run(name, func(t *testing.T) {
				out, stderr, code := runCitune(t, "--sim", "--reset-values", "--profile", p.Name, "--controller", c.Label, "dump")
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				for _, absent := range c.Map.Absent {
					if absent.ReplacedBy == "" && strings.Contains(out, " "+absent.Name+" ") {
						t.Errorf("dump of %s %s shows %s, which its core does not have", p.Name, c.Label, absent.Name)
					}
				}
				golden := filepath.Join("testdata", "golden", "dump-"+name+".txt")
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -run TestGoldenDumps -update)", err)
				}
				if out != string(want) {
					t.Errorf("dump of %s differs from %s; diff them, then -update if intended.\ngot:\n%s", name, golden, out)
				}
			})
		}
	}
}

// TestDumpJSONIsPureJSON: --json output is one JSON document on stdout.
func TestDumpJSONIsPureJSON(t *testing.T) {
	out, stderr, code := runCitune(t, "--sim", "--json", "dump")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.HasPrefix(out, "{") || !strings.Contains(out, `"name": "USBCMD"`) || !strings.Contains(out, `"knob": true`) {
		t.Errorf("not the expected JSON: %.200s", out)
	}
}

func TestLineWrapper(t *testing.T) {
	var b strings.Builder
	w := &lineWrapper{w: &b, width: termWidth}
	long := "  1= AHBBRST=2 ITC=1  45.09 MiB/s    26 irq/MiB  no significant difference (+0.7 %, 95 % CI -1.0 to 1.0)"
	w.Write([]byte("short line\n" + long[:30]))
	w.Write([]byte(long[30:] + "\n"))
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 || lines[0] != "short line" {
		t.Fatalf("lines = %q", lines)
	}
	for _, l := range lines {
		if len(l) > termWidth {
			t.Errorf("line of %d columns: %q", len(l), l)
		}
	}
	if !strings.HasPrefix(lines[1], "  1= AHBBRST") || !strings.HasPrefix(lines[2], "      ") {
		t.Errorf("indentation lost: %q", lines)
	}
	if got := strings.Join(strings.Fields(b.String()), " "); got != "short line "+strings.Join(strings.Fields(long), " ") || !strings.Contains(b.String(), "45.09 MiB/s    26 irq/MiB") {
		t.Errorf("words changed: %q", got)
	}
}
