package results

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/citune/citune/sweep/rank"
)

// FuzzRead: the results reader never panics on damaged, truncated or
// foreign files, and what it accepts can be ranked.
func FuzzRead(f *testing.F) {
	// Seeds are cut to a file's first and last lines (header, plan, a
	// visit, the end record): the fuzzer minimizes every input that finds
	// new coverage, for up to -fuzzminimizetime (60 s by default) each, and
	// with the whole 50 KB files it spent its time minimizing, not fuzzing
	// (0 execs/s after the seed corpus). The seed tests read whole files.
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "report", "testdata", "*.jsonl"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(headTail(b, 4, 2))
		}
	}
	f.Add([]byte(`{"type":"header","format":"citune-sweep","version":1}` + "\n"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(data))
		if err != nil || res == nil {
			return
		}
		_ = res.Rank(rank.Policy{})
		_ = res.CheckValues()
	})
}

// headTail keeps the first head and the last tail lines of b.
func headTail(b []byte, head, tail int) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) <= head+tail {
		return b
	}
	out := bytes.Join(lines[:head], nil)
	return append(out, bytes.Join(lines[len(lines)-tail:], nil)...)
}
