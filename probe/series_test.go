package probe

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// hashProbe returns runs with the given hashes and byte counts.
type hashProbe struct {
	runs []Run
	n    int
}

func (h *hashProbe) Name() string { return "fake" }
func (h *hashProbe) Run(ctx context.Context, _ func(done, total int64)) (Run, error) {
	r := h.runs[h.n]
	h.n++
	return r, nil
}

func TestSeriesComparesDataAcrossPoints(t *testing.T) {
	p := &hashProbe{runs: []Run{
		{Bytes: 1 << 20, Rate: 1e6, Hash: "crc32:aaaa"},
		{Bytes: 1 << 20, Rate: 1e6, Hash: "crc32:aaaa"},
		{Bytes: 2 << 20, Rate: 1e6, Hash: "crc32:bbbb"}, // a timed run read more: not comparable
		{Bytes: 1 << 20, Rate: 1e6, Hash: "crc32:cccc"},
	}}
	s := NewSeries(p, Env{})
	var corrupt []bool
	for range p.runs {
		r, err := s.Run(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		corrupt = append(corrupt, r.Corrupt)
		if r.Corrupt && !strings.Contains(r.Detail, "crc32:cccc; the sweep's probe run 1 read crc32:aaaa") {
			t.Errorf("detail %q", r.Detail)
		}
	}
	if !slices.Equal(corrupt, []bool{false, false, false, true}) {
		t.Errorf("corrupt %v", corrupt)
	}
}

// failProbe fails every run.
type failProbe struct{}

func (failProbe) Name() string { return "fail" }
func (failProbe) Run(context.Context, func(done, total int64)) (Run, error) {
	return Run{}, errors.New("device vanished")
}

// A failed run is the series' error, not a run.
func TestSeriesReturnsTheProbesError(t *testing.T) {
	if _, err := NewSeries(failProbe{}, Env{}).Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "device vanished") {
		t.Errorf("error %v", err)
	}
}
