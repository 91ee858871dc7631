package results

import (
	"encoding/json"
	"io"
	"os"
)

// IsFile reports whether the file at path starts with a citune results
// header (whatever follows: a sweep that died after its header is one
// too). Output writers use it to never replace a sweep's measurements
// with something else.
func IsFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var h struct {
		Type   string `json:"type"`
		Format string `json:"format"`
	}
	// A header holds the plan, a snapshot and the points: large, but
	// never this large.
	if err := json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&h); err != nil {
		return false
	}
	return h.Type == TypeHeader && h.Format == Format
}
