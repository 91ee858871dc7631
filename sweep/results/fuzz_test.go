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
	seeds, _ := filepath.Glob(filepath.Join("..", "..", "report", "testdata", "*.jsonl"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
			f.Add(b[:len(b)/2])
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
