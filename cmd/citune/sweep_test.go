package main

import (
	"flag"
	"io"
	"path/filepath"
	"slices"
	"testing"
)

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

// sweepOptsFromCommand recovers a sweep's flags from its command line
// (a journal entry's): what absArgs wrote still parses.
func sweepOptsFromCommand(cmd []string) *sweepOpts {
	o := &sweepOpts{}
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.register(fs)
	var g globals
	g.register(fs)
	for i, w := range cmd {
		if w == "sweep" {
			fs.Parse(cmd[i+1:])
			break
		}
	}
	return o
}
