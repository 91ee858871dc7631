package report

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseFiles: results files from elsewhere are untrusted input. Two
// of them (a board and a damaged copy of another) parse without a
// panic, and a report of both, fleet included, renders in every format;
// its JSON is valid.
func FuzzParseFiles(f *testing.F) {
	// One small real file (its first lines: the header, a visit), so that
	// the fuzzer mutates quickly; the seed tests above read the big ones.
	if b, err := os.ReadFile(filepath.Join("testdata", "killed.jsonl")); err == nil {
		if lines := bytes.SplitAfterN(b, []byte("\n"), 6); len(lines) == 6 {
			small := bytes.Join(lines[:5], nil)
			f.Add(small, small[:len(small)/2])
		}
	}
	f.Add([]byte(`{"type":"header","format":"citune-sweep"}`), []byte("\x1b]0;x\x07"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		var ss []*Sweep
		for i, data := range [][]byte{a, b} {
			s, err := Parse([]string{"a.jsonl", "b.jsonl"}[i], data, LoadOptions{Decide: stubDTS})
			if err == nil {
				ss = append(ss, s)
			}
		}
		if len(ss) == 0 {
			return
		}
		for _, fleet := range []bool{false, true} {
			o := Options{Width: 80, Fleet: fleet}
			_ = WriteText(io.Discard, ss, o)
			_ = WriteMarkdown(io.Discard, ss, o)
			_ = WriteHTML(io.Discard, ss, o)
		}
		_ = WriteCSV(io.Discard, ss)
		_ = WriteLAVA(io.Discard, ss)
		var buf bytes.Buffer
		if err := json.NewEncoder(&buf).Encode(JSON(ss)); err != nil {
			t.Fatalf("report --json: %v", err)
		}
		if !json.Valid(buf.Bytes()) {
			t.Fatal("report --json is not valid JSON")
		}
	})
}
