package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Writer appends records to a results file, one JSON line each, flushed
// and synced before Write returns.
type Writer struct {
	w    io.Writer
	sync func() error
}

// NewWriter writes to w; if w has a Sync method it is called after every
// record.
func NewWriter(w io.Writer) *Writer {
	wr := &Writer{w: w}
	if s, ok := w.(interface{ Sync() error }); ok {
		wr.sync = s.Sync
	}
	return wr
}

// Write appends one record.
func (w *Writer) Write(rec any) error {
	b, err := json.Marshal(rec)
	if err == nil {
		_, err = w.w.Write(append(b, '\n'))
	}
	if err == nil && w.sync != nil {
		err = w.sync()
	}
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// ErrExists is wrapped by CreateFile when the file holds measurements.
var ErrExists = errors.New("exists and holds measurements")

// CreateFile creates a new results file; an existing one is an error
// (use OpenAppend to resume).
//
// O_EXCL never follows a symlink. A file that holds no measurement yet
// (empty, or only the header of a sweep that stopped before its first
// run) is replaced: there is nothing in it to lose.
func CreateFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		fi, lerr := os.Lstat(path)
		if lerr == nil && fi.IsDir() {
			return nil, fmt.Errorf("results file %s is a directory: give a file name", path)
		}
		if lerr == nil && fi.Mode().IsRegular() && holdsNoRun(path) {
			return os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|oNoFollow, 0)
		}
		return nil, fmt.Errorf("results file %s: %w", path, ErrExists)
	}
	return f, err
}

// holdsNoRun reports whether a results file has no run record: empty, or
// a header (and events) only.
func holdsNoRun(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if bytes.Contains(line, []byte(`"type":"run"`)) || bytes.Contains(line, []byte(`"type":"point"`)) {
			return false
		}
	}
	return true
}

// OpenAppend opens an existing results file for appending, first cutting
// off a last line that a crash left incomplete.
func OpenAppend(path string) (*os.File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if n := len(b); n > 0 && b[n-1] != '\n' {
		cut := bytes.LastIndexByte(b, '\n') + 1
		if err := os.Truncate(path, int64(cut)); err != nil {
			return nil, err
		}
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|oNoFollow, 0)
}

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
