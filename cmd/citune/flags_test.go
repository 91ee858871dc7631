package main

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
)

func testFlags() (*flag.FlagSet, *bool, *string) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	b := fs.Bool("dry-run", false, "")
	s := fs.String("out", "", "")
	return fs, b, s
}

func TestInterleave(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		dry  bool
		out  string
	}{
		{[]string{"A=1", "--dry-run"}, []string{"A=1"}, true, ""},
		{[]string{"--out", "x", "A", "B", "--dry-run"}, []string{"A", "B"}, true, "x"},
		{[]string{"A", "--out=y", "B"}, []string{"A", "B"}, false, "y"},
		{[]string{"A", "--", "--dry-run", "-x"}, []string{"A", "--dry-run", "-x"}, false, ""},
		{[]string{"--out", "r", "--", "sim", "--size", "4M"}, []string{"sim", "--size", "4M"}, false, "r"},
		{[]string{"-"}, []string{"-"}, false, ""},
		{[]string{"--out", "--", "A", "--dry-run"}, []string{"A"}, true, "--"},
		{nil, nil, false, ""},
	} {
		fs, dry, out := testFlags()
		if err := interleave(fs, c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		if got := fs.Args(); !reflect.DeepEqual(got, c.pos) && !(len(got) == 0 && len(c.pos) == 0) {
			t.Errorf("%q: positional %q, want %q", c.args, got, c.pos)
		}
		if *dry != c.dry || *out != c.out {
			t.Errorf("%q: dry-run %v out %q, want %v %q", c.args, *dry, *out, c.dry, c.out)
		}
	}
	fs, _, _ := testFlags()
	if err := interleave(fs, []string{"A", "--nope"}); err == nil {
		t.Error("an unknown flag after a positional argument was accepted")
	}
}

// FuzzInterleave: the positional arguments come out in order, every word
// that is no flag (or follows --) among them, and nothing is lost.
func FuzzInterleave(f *testing.F) {
	f.Add("A=1\x00--dry-run\x00B")
	f.Add("--out\x00x\x00--\x00--dry-run")
	f.Add("-\x00--out=\x00--\x00--")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		fs, _, _ := testFlags()
		if err := interleave(fs, args); err != nil {
			return
		}
		pos := fs.Args()
		// Positional words are a subsequence of the input.
		i := 0
		for _, a := range args {
			if i < len(pos) && pos[i] == a {
				i++
			}
		}
		if i != len(pos) {
			t.Fatalf("positional %q is not a subsequence of %q", pos, args)
		}
		// Every word after the first -- that is not the value of --out
		// before it is positional.
		for k, a := range args {
			if a == "--" && (k == 0 || !takesValue(fs, args[k-1])) {
				want := args[k+1:]
				if len(pos) < len(want) || !reflect.DeepEqual(pos[len(pos)-len(want):], want) {
					t.Fatalf("after --: %q, positional %q", want, pos)
				}
				break
			}
		}
	})
}
