package mmio

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestARMAccessesAreSingle32BitLoadsAndStores compiles this package for
// the boards (GOARCH=arm GOARM=7) and checks in the compiler's assembly
// that the source lines doing the register access are exactly one 32-bit
// load (MOVW (Rn), Rm) and one 32-bit store (MOVW Rm, (Rn)): no byte or
// halfword access, no 64-bit pair, no exclusive (atomic) sequence.
func TestARMAccessesAreSingle32BitLoadsAndStores(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles the package for ARM")
	}
	loadLine, storeLine := sourceLine(t, "return *p"), sourceLine(t, "*p = v")
	cmd := exec.Command("go", "build", "-gcflags=-S", "-o", os.DevNull, ".")
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm", "GOARM=7", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build for arm: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		fn   string
		line int
		want *regexp.Regexp
	}{
		{"load32", loadLine, regexp.MustCompile(`^MOVW\s+\(R\d+\), R\d+$`)},
		{"store32", storeLine, regexp.MustCompile(`^MOVW\s+R\d+, \(R\d+\)$`)},
	} {
		ins := instructions(string(out), tc.fn, tc.line)
		var mem []string
		for _, in := range ins {
			// memory operands through a general register; the stack
			// (R13), returns and calls are the function's own frame.
			if strings.Contains(in, "(R") && !strings.Contains(in, "R13") && !strings.HasPrefix(in, "CALL") {
				mem = append(mem, in)
			}
			for _, bad := range []string{"LDREX", "STREX", "MOVB", "MOVH", "MOVD", "LDM", "STM"} {
				if strings.HasPrefix(in, bad) {
					t.Errorf("%s line %d: %q is not a plain 32-bit access", tc.fn, tc.line, in)
				}
			}
		}
		if len(mem) != 1 || !tc.want.MatchString(mem[0]) {
			t.Errorf("%s line %d: register accesses %q, want exactly one matching %s", tc.fn, tc.line, mem, tc.want)
		}
	}
}

func sourceLine(t *testing.T, text string) int {
	t.Helper()
	f, err := os.Open("window.go")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for n := 1; s.Scan(); n++ {
		if strings.TrimSpace(s.Text()) == text {
			return n
		}
	}
	t.Fatalf("window.go has no line %q", text)
	return 0
}

// instructions returns the instructions of function fn attributed to
// window.go:line, excluding those that only load the pointer argument
// from the frame.
func instructions(asm, fn string, line int) []string {
	var out []string
	in := false
	for _, l := range strings.Split(asm, "\n") {
		if strings.Contains(l, " STEXT ") {
			in = strings.HasSuffix(strings.Fields(l)[0], "mmio."+fn)
			continue
		}
		if !in || !strings.Contains(l, "/soc/mmio/window.go:") {
			continue
		}
		if !strings.Contains(l, "/window.go:"+fmt.Sprint(line)+")") {
			continue
		}
		i := strings.Index(l, ")\t")
		if i < 0 {
			continue
		}
		ins := strings.TrimSpace(strings.ReplaceAll(l[i+2:], "\t", " "))
		if strings.Contains(ins, "(FP)") || strings.Contains(ins, "(SP)") || strings.HasPrefix(ins, "PCDATA") || strings.HasPrefix(ins, "FUNCDATA") {
			continue
		}
		out = append(out, ins)
	}
	return out
}
