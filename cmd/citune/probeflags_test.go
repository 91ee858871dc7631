package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/soc/sim"
)

func isUsage(err error) bool {
	var ee *exitErr
	return errors.As(err, &ee) && ee.code == exitUsage
}

func dataFile(t *testing.T) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "data.bin")
	if err := os.WriteFile(path, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// parseProbeFlags learns the command's flags from the probes' words
// without building a probe: no simulator, map or target is needed.
func TestParseProbeFlagsOnly(t *testing.T) {
	var sim bool
	extra := func(fs *flag.FlagSet) { fs.BoolVar(&sim, "sim", sim, "") }
	if err := parseProbeFlags([]string{"sim", "--sim", "--size", "8M"}, extra); err != nil {
		t.Fatal(err)
	}
	if !sim {
		t.Error("the command's flag among the probe's words was not set")
	}
	if err := parseProbeFlags([]string{"read", "--size", "1M", "/nonexistent/disk", "--also", "sim"}, extra); err != nil {
		t.Errorf("a target that does not exist is not looked at: %v", err)
	}
	for _, words := range [][]string{{"nosuch"}, {"sim", "--nosuchflag"}, {}} {
		if err := parseProbeFlags(words, extra); !isUsage(err) {
			t.Errorf("%q: %v, want a usage error", words, err)
		}
	}
}

func TestParseProbes(t *testing.T) {
	dir, path := dataFile(t)
	repeat, json := 3, false
	d := probeDeps{Flags: func(fs *flag.FlagSet) {
		// registered once per probe: the defaults are the current values
		fs.IntVar(&repeat, "repeat", repeat, "")
		fs.BoolVar(&json, "json", json, "")
	}}
	ps, err := parseProbes(strings.Fields("read --bs 64K "+path+" --repeat 5 --also cmd --timeout 1s --parse iperf3 iperf3 -c host -J --also write --size 1M --json "+dir), d)
	if err != nil {
		t.Fatal(err)
	}
	if repeat != 5 || !json || len(ps) != 3 {
		t.Fatalf("repeat %d json %v, %d probes", repeat, json, len(ps))
	}
	if rp := ps[0].(*probe.ReadProbe); rp.BS != 64<<10 || rp.Path != path || rp.Verify != probe.VerifyWarmup {
		t.Errorf("read probe %+v", rp)
	}
	cp := ps[1].(*probe.CmdProbe)
	if !reflect.DeepEqual(cp.Argv, []string{"iperf3", "-c", "host", "-J"}) || cp.Timeout != time.Second {
		t.Errorf("cmd probe %+v", cp)
	}
	if wp := ps[2].(*probe.WriteProbe); wp.Size != 1<<20 || wp.BS != 1<<20 || wp.Path != dir {
		t.Errorf("write probe %+v", wp)
	}
	if _, err := parseProbe([]string{"read", "-h"}, probeDeps{}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v", err)
	}
}

// Every kind's flags reach their fields, defaults included.
func TestProbeFlagsFields(t *testing.T) {
	dir, path := dataFile(t)
	s := sim.New(sim.Config{Map: regs.ChipIdea(), Size: 0x200})
	d := probeDeps{Sim: s, Map: regs.ChipIdea()}
	tests := map[string]struct {
		words string
		want  probe.Probe
	}{
		"read defaults": {"read " + path, &probe.ReadProbe{Path: path, BS: 1 << 20, Verify: probe.VerifyWarmup}},
		"read all":      {"read --bs 1M --size all --full-hash " + path, &probe.ReadProbe{Path: path, BS: 1 << 20, Size: -1, Verify: probe.VerifyFull}},
		"read every flag": {"read --bs 4K --duration 2s --offset 8K --buffered --no-hash --small-pages " + path,
			&probe.ReadProbe{Path: path, BS: 4 << 10, Dur: 2 * time.Second, Offset: 8 << 10, Buffered: true, Verify: probe.VerifyNone, SmallPages: true}},
		"read after --":  {"read --bs 4K -- " + path, &probe.ReadProbe{Path: path, BS: 4 << 10, Verify: probe.VerifyWarmup}},
		"read hash":      {"read --expect-hash crc32:1a2b3c4d " + path, &probe.ReadProbe{Path: path, BS: 1 << 20, ExpectHash: "crc32:1a2b3c4d", Verify: probe.VerifyWarmup}},
		"write defaults": {"write " + dir, &probe.WriteProbe{Path: dir, BS: 1 << 20, Size: probe.DefaultWriteSize}},
		"write every flag": {"write --bs 256K --size 2M --offset 1M --buffered --small-pages " + dir + "/new",
			&probe.WriteProbe{Path: dir + "/new", BS: 256 << 10, Size: 2 << 20, Offset: 1 << 20, Buffered: true, SmallPages: true}},
		"sim defaults": {"sim", &probe.SimProbe{Ctl: s, Map: d.Map, Size: probe.DefaultSimSize, Seed: 1, Qmult: simmodel.DefaultQmult, Buffers: simmodel.DefaultBuffers}},
		"sim write":    {"sim --size 1M --seed 9 --write", &probe.SimProbe{Ctl: s, Map: d.Map, Size: 1 << 20, Seed: 9, Write: true, Qmult: simmodel.DefaultQmult, Buffers: simmodel.DefaultBuffers}},
		"sim gadget": {"sim --workload gadget-in --qmult 3 --xfer 8K --bus-load 0.3 --noise -1 --non-burst on",
			&probe.SimProbe{Ctl: s, Map: d.Map, Size: probe.DefaultSimSize, Seed: 1, Xfer: 8 << 10, Workload: simmodel.GadgetIn, Qmult: 3, BusLoad: 0.3, Noise: -1, NonBurst: simmodel.NonBurstOn, Buffers: simmodel.DefaultBuffers}},
		"sim storage": {"sim --workload gadget-storage --num-buffers 8 --non-burst off",
			&probe.SimProbe{Ctl: s, Map: d.Map, Size: probe.DefaultSimSize, Seed: 1, Workload: simmodel.GadgetStorage, Qmult: simmodel.DefaultQmult, Buffers: 8, NonBurst: simmodel.NonBurstOff}},
	}
	for name, tc := range tests {
		p, err := parseProbe(strings.Fields(tc.words), d)
		if err != nil {
			t.Errorf("%s: %v", name, err)
		} else if !reflect.DeepEqual(p, tc.want) {
			t.Errorf("%s: %+v, want %+v", name, p, tc.want)
		}
	}
	p, err := parseProbe([]string{"read", "--small-pages", path}, d)
	if err != nil || !strings.Contains(p.Name(), "small-pages") {
		t.Errorf("read --small-pages: %v, name %q does not say small-pages: a results file would mix both", err, p.Name())
	}
}

func TestProbeWordsErrors(t *testing.T) {
	dir, path := dataFile(t)
	s := sim.New(sim.Config{Map: regs.ChipIdea(), Size: 0x200})
	tests := map[string]struct {
		words string
		want  string
		usage bool
	}{
		"no kind":          {"", "no probe kind given (cmd, read, sim, write)", true},
		"unknown kind":     {"raed " + path, `unknown probe kind "raed" (cmd, read, sim, write)`, true},
		"unknown flag":     {"read --nope " + path, "probe read: flag provided but not defined: -nope", true},
		"nonexistent":      {"read " + filepath.Join(dir, "nope"), "does not exist", false},
		"directory":        {"read " + dir, "is a directory", false},
		"unaligned bs":     {"read --bs 1000 " + path, "--bs 1000 is not a multiple of 512", true},
		"unaligned offset": {"read --offset 100 " + path, "--offset 100 is not a multiple of 512", true},
		"size and time":    {"read --size 1M --duration 1s " + path, "not both", true},
		"full and none":    {"read --full-hash --no-hash " + path, "probe read: give --full-hash or --no-hash, not both", true},
		"hash, no hashing": {"read --expect-hash crc32:0 --no-hash " + path, "drop --no-hash", true},
		"no target":        {"read --bs 1M", "probe read: no target given", true},
		"two targets":      {"read " + path + " " + path, "probe read: one target expected", true},
		"bad size":         {"read --size lots " + path, `"lots" is not a size`, true},
		"existing file":    {"write " + path, "already exists", false},
		"missing dir":      {"write " + filepath.Join(dir, "no", "such", "file"), "does not exist", false},
		"unaligned size":   {"write --size 1000 " + dir, "positive multiple of 512", true},
		"write no target":  {"write", "probe write: no target given", true},
		"character device": {"write /dev/null", "neither a regular file nor a block device", false},
		"no parser":        {"cmd -- true", "say how to find the rate", true},
		"two parsers":      {"cmd --parse iperf3 --regex x --unit MB/s -- true", "say how to find the rate", true},
		"unknown parser":   {"cmd --parse fio -- fio x", "--parse knows iperf3 only", true},
		"regex no unit":    {"cmd --regex ([0-9]+) -- true", "a unit is needed", true},
		"regex 2 groups":   {"cmd --regex (a)(b) --unit fps -- true", "has 2 groups", true},
		"bad regex":        {"cmd --regex ( --unit fps -- true", "--regex: error parsing regexp", true},
		"no command":       {"cmd --parse iperf3", "no command given", true},
		"sender alone":     {"cmd --sender --regex x --unit fps -- true", "--sender goes with --parse iperf3", true},
		"cmd unknown flag": {"cmd --parse iperf3 --nope -- true", "flag provided but not defined: -nope", true},
		"sim target":       {"sim x", `probe sim takes no target (got ["x"])`, true},
		"sim bad workload": {"sim --workload bogus", `probe sim: --workload: unknown workload "bogus"`, true},
		"sim non-burst":    {"sim --non-burst maybe", `probe sim: --non-burst "maybe": want soc, on or off`, true},
		"sim qmult 0":      {"sim --workload gadget-in --qmult 0", "probe sim: --qmult 0: give 1 to 100", true},
		"sim qmult read":   {"sim --qmult 3", "--qmult is g_ncm's queue: it applies to gadget-in and gadget-out, not read", true},
		"sim write read":   {"sim --write --workload read", "--write is --workload write: it cannot go with --workload read", true},
		"sim write gadget": {"sim --write --workload gadget-in", "it cannot go with --workload gadget-in", true},
		"sim buffers read": {"sim --num-buffers 4", "--num-buffers is f_mass_storage's: it applies to gadget-storage, not read", true},
		"sim buffers 0":    {"sim --workload gadget-storage --num-buffers 0", "--num-buffers 0: f_mass_storage takes 2 to 32", true},
		"sim size":         {"sim --size 0", "--size must be positive", true},
	}
	d := probeDeps{Sim: s, Map: regs.ChipIdea()}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := parseProbe(strings.Fields(tc.words), d)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if isUsage(err) != tc.usage {
				t.Errorf("usage error: %v, want %v", !tc.usage, tc.usage)
			}
		})
	}
	if _, err := parseProbe([]string{"sim"}, probeDeps{}); !isUsage(err) || !strings.Contains(err.Error(), "--sim") {
		t.Errorf("no simulated controller: %v", err)
	}
	p, err := parseProbe([]string{"cmd", "--json-path", "jobs.0.read.bw_bytes", "--unit", "B/s", "--", "fio", "--output-format=json", "job.fio"}, d)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Name(); got != "cmd fio --output-format=json job.fio [json jobs.0.read.bw_bytes B/s]" {
		t.Errorf("name %q", got)
	}
}

// FuzzProbeWords: any words give probes or an error, never a panic nor
// a nil probe; building accepts nothing the flags-only pass refused.
// (Building only stats paths: nothing is opened or written.)
func FuzzProbeWords(f *testing.F) {
	for _, s := range []string{"read --bs 4K -- x", "cmd --parse iperf3 iperf3 -c h", "sim x --also read", "write -- --", "read x --size", "sim --workload gadget-in --qmult 3"} {
		f.Add(s)
	}
	d := probeDeps{Sim: sim.New(sim.Config{Map: regs.ChipIdea(), Size: 0x200}), Map: regs.ChipIdea()}
	f.Fuzz(func(t *testing.T, s string) {
		words := strings.Fields(s)
		ferr := parseProbeFlags(words, nil)
		if ferr == nil && (len(words) == 0 || kinds[words[0]] == nil) {
			t.Fatalf("%q: accepted without a kind", words)
		}
		ps, err := parseProbes(words, d)
		if err == nil && ferr != nil {
			t.Fatalf("%q: built, but the flags-only pass said %v", words, ferr)
		}
		for _, p := range ps {
			if p == nil {
				t.Fatalf("%q: a nil probe", words)
			}
		}
	})
}
