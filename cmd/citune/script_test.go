package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update testscript golden files in place")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"citune": func() { os.Exit(Main()) },
	})
}

// TestScripts runs testdata/script/*.txtar: every subcommand driven
// through --sim and --mem-file images, including bad input.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(e *testscript.Env) error {
			e.Setenv("CITUNE_JOURNAL", e.WorkDir+"/journal.json")
			// The report package's results files, written by the real
			// sweep on the simulated controller (report/gen_test.go):
			// the only way a script gets a corrupt point, since the
			// sweep refuses the reserved setting that makes one.
			fx, err := filepath.Abs("../../report/testdata")
			if err != nil {
				return err
			}
			e.Setenv("FIXTURES", fx)
			// The built-in profiles' files, for scripts that need a
			// profile file of their own.
			pf, err := filepath.Abs("../../profiles")
			if err != nil {
				return err
			}
			e.Setenv("PROFILES", pf)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"poke": cmdPoke,
			"peek": cmdPeek,
			"code": cmdCode,
			// A cmdline: sweep's boot loader (bootenv_test.go).
			"mkenv":      cmdMkenv,
			"bootloader": cmdBootloader,
		},
	})
}

// poke FILE OFFSET VALUE stores a little-endian 32-bit word in an image.
func cmdPoke(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: poke FILE OFFSET VALUE")
	}
	path := ts.MkAbs(args[0])
	off, err1 := strconv.ParseUint(args[1], 0, 32)
	val, err2 := strconv.ParseUint(args[2], 0, 32)
	if err1 != nil || err2 != nil {
		ts.Fatalf("poke: bad number")
	}
	b, err := os.ReadFile(path)
	ts.Check(err)
	if int(off)+4 > len(b) {
		ts.Fatalf("poke: offset %#x outside %d-byte image", off, len(b))
	}
	binary.LittleEndian.PutUint32(b[off:], uint32(val))
	ts.Check(os.WriteFile(path, b, 0o644))
}

// peek FILE OFFSET VALUE asserts the word at OFFSET equals VALUE
// (! peek asserts it differs).
func cmdPeek(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: peek FILE OFFSET VALUE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	off, err1 := strconv.ParseUint(args[1], 0, 32)
	want, err2 := strconv.ParseUint(args[2], 0, 32)
	if err1 != nil || err2 != nil || int(off)+4 > len(b) {
		ts.Fatalf("peek: bad arguments")
	}
	got := binary.LittleEndian.Uint32(b[off:])
	if (got == uint32(want)) == neg {
		ts.Fatalf("peek %s %#x: got %#08x, want %s%#08x", args[0], off, got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
	fmt.Fprintf(ts.Stdout(), "%#08x\n", got)
}

// code N PROG ARGS... runs PROG and asserts its exit code is N; stdout and
// stderr are kept for the following stdout/stderr assertions.
func cmdCode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: code N PROG ARGS...")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("code: %v", err)
	}
	if got != want {
		ts.Logf("stdout:\n%s\nstderr:\n%s", ts.ReadFile("stdout"), ts.ReadFile("stderr"))
		ts.Fatalf("exit code %d, want %d", got, want)
	}
}
