package main

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/probe"
)

// hashProbe returns runs with the given hashes and byte counts.
type hashProbe struct {
	runs []probe.Run
	n    int
}

func (h *hashProbe) Name() string { return "fake" }
func (h *hashProbe) Run(ctx context.Context, _ func(done, total int64)) (probe.Run, error) {
	r := h.runs[h.n]
	h.n++
	return r, nil
}

func TestProbeAdapterComparesDataAcrossPoints(t *testing.T) {
	p := &hashProbe{runs: []probe.Run{
		{Bytes: 1 << 20, Rate: 1e6, Hash: "crc32:aaaa"},
		{Bytes: 1 << 20, Rate: 1e6, Hash: "crc32:aaaa"},
		{Bytes: 2 << 20, Rate: 1e6, Hash: "crc32:bbbb"}, // a timed run read more: not comparable
		{Bytes: 1 << 20, Rate: 1e6, Hash: "crc32:cccc"},
	}}
	pa := &probeAdapter{p: p}
	var corrupt []bool
	for range p.runs {
		r, err := pa.Measure(context.Background())
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

func TestAbsArgsAndOptionsFromTheJournal(t *testing.T) {
	args := []string{"citune", "--profile", "imx6q", "--mem-file", "regs.bin", "sweep", "--sys-root=root", "--modprobe", "./fake/modprobe",
		"--rmmod", "rmmod", "--reload", "a,b", "--axis", "modparam:ehci_hcd.park=0,1", "--out", "r.jsonl", "--", "read", "--sys-root", "x"}
	got := absArgs(args)
	abs := func(p string) string { a, _ := filepath.Abs(p); return a }
	want := slices.Clone(args)
	want[4] = abs("regs.bin")
	want[6] = "--sys-root=" + abs("root")
	want[8] = abs("./fake/modprobe")
	if !slices.Equal(got, want) {
		t.Errorf("absArgs\n got %q\nwant %q", got, want)
	}
	o := sweepOptsFromCommand(got)
	if o.sysRoot != abs("root") || o.modprobe != abs("./fake/modprobe") || o.rmmod != "rmmod" || o.reload != "a,b" || o.reloadTimeout != defaultReloadTimeout {
		t.Errorf("options %+v", o)
	}
	if o := sweepOptsFromCommand([]string{"citune", "set", "ITC=1"}); o.sysRoot != "/" || o.modprobe != "modprobe" {
		t.Errorf("defaults %+v", o)
	}
}
