// Package sweeptest has fakes for testing sweeps without a board: a
// workload on the simulated controller, measured by the sim probe and so
// by the one throughput model (package simmodel), with hooks to
// interrupt, fail or corrupt chosen runs; and a module loader that edits
// a /proc and /sys tree.
package sweeptest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/soc"
)

// Landscape is a simulated workload: each run is one run of the sim
// probe (probe.SimProbe) on Target's simulated controller, which reads
// the controller's settings before every transfer, lets the simulated
// ehci-hcd write USBCMD back, and asks package simmodel for the time,
// interrupts and CPU. It follows Target.Simulator() when a simulated module
// reload replaces it.
type Landscape struct {
	Target *soc.Target
	// Workload, BusLoad and Noise configure the probe (Noise 0: the
	// model's default spread; negative: none). Bytes is the bytes per
	// run (default 16 MiB); Seed seeds the probe's noise.
	Workload simmodel.Workload
	BusLoad  float64
	Noise    float64
	Bytes    int64
	Seed     uint64
	// Extra multiplies the rate (tests add factors for file axes).
	Extra func() float64
	// VisitShift is the spread (log-normal) of a shift every run of a
	// visit shares: a board whose rate moves a little each time settings
	// are applied (caches, the disk's state). A visit starts where the
	// controller's registers differ from the last run's.
	VisitShift float64
	// Drift is the amplitude of the model's slow drift of the rate
	// (simmodel: a sine over DefaultDriftRuns runs; 0 the model's
	// default, negative none).
	Drift float64
	// FirstRun multiplies the rate of a visit's first run (0: 1): a
	// board whose first transfer after a change is slower (a cold
	// cache, a disk spinning up).
	FirstRun float64
	// Before is called at the start of every run with its number
	// (1-based); a test cancels its context there to interrupt a point.
	Before func(n int)
	// Corrupt marks run n as failing its integrity check.
	Corrupt func(n int) bool
	// Fail makes run n fail with an error.
	Fail func(n int) error
	// Block makes runs wait for ctx (to test cancellation of a run).
	Block bool

	mu    sync.Mutex
	Runs  int
	probe *probe.SimProbe
	// lastRegs and shift are the last run's registers and its visit's
	// shift; visits counts the visits for the shift's generator.
	lastRegs string
	shift    float64
	visits   uint64
	// firstRegs are the registers of the last run FirstRun looked at.
	firstRegs string
}

// Name implements probe.Probe.
func (l *Landscape) Name() string { return "landscape" }

// Run implements probe.Probe (progress is not called).
func (l *Landscape) Run(ctx context.Context, _ func(done, total int64)) (probe.Run, error) {
	l.mu.Lock()
	l.Runs++
	n := l.Runs
	p := l.simProbe()
	l.mu.Unlock()
	if l.Before != nil {
		l.Before(n)
	}
	if err := ctx.Err(); err != nil {
		return probe.Run{}, err
	}
	if l.Block {
		<-ctx.Done()
		return probe.Run{}, ctx.Err()
	}
	if l.Fail != nil {
		if err := l.Fail(n); err != nil {
			return probe.Run{}, err
		}
	}
	run, err := p.Run(ctx, nil)
	if err != nil {
		return run, err
	}
	scale := func(f float64) {
		run.Rate *= f
		run.Elapsed = time.Duration(float64(run.Elapsed) / f)
	}
	if l.Extra != nil {
		scale(l.Extra())
	}
	if l.FirstRun > 0 && l.firstOfVisit() {
		scale(l.FirstRun)
	}
	if l.VisitShift > 0 {
		scale(l.visitShift())
	}
	if l.Corrupt != nil && l.Corrupt(n) {
		run.Corrupt, run.Detail = true, "block at offset 0x1200000 differs from the first run"
	}
	return run, nil
}

// simProbe is the landscape's sim probe, made at first use (l.mu held).
func (l *Landscape) simProbe() *probe.SimProbe {
	if l.probe == nil {
		l.probe = &probe.SimProbe{Ctl: l.Target, Map: l.Target.Profile.Map, Size: cmp.Or(l.Bytes, 16<<20), Seed: l.Seed,
			Workload: l.Workload, BusLoad: l.BusLoad, Noise: l.Noise, Drift: l.Drift}
	}
	return l.probe
}

// ReloadTime is the sim probe's modelled module reload time, so that a
// landscape is a sweep.ReloadModel for a sweep.SimClock, as the sim
// probe is for `citune --sim sweep`.
func (l *Landscape) ReloadTime() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.simProbe().ReloadTime()
}

// NominalReloadTime is the model's reload time without noise.
func (l *Landscape) NominalReloadTime() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.simProbe().NominalReloadTime()
}

// Modules builds a fake /proc/modules and /sys/module tree under root:
// loaded modules with their parameters, and built-in ones (a
// /sys/module directory without initstate).
func Modules(root string, loaded map[string]map[string]string, builtin ...string) error {
	for _, m := range builtin {
		if err := os.MkdirAll(filepath.Join(root, "sys/module", m, "parameters"), 0o755); err != nil {
			return err
		}
	}
	l := &Loader{Root: root, Defaults: loaded}
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "proc/modules"), nil, 0o644); err != nil {
		return err
	}
	for _, m := range slices.Sorted(maps.Keys(loaded)) {
		if err := l.Load(context.Background(), m, nil); err != nil {
			return err
		}
	}
	l.Calls = nil
	return nil
}

// Loader is a fake host.ModuleLoader over a tree made by Modules.
// Loading a module writes its /proc/modules line, initstate and
// parameters (Defaults, overridden by the load's parameters) and creates
// the Creates paths; removing it removes them.
type Loader struct {
	Root     string
	Defaults map[string]map[string]string
	// Creates are paths (under Root) that appear when the last module
	// is loaded (the probe's device).
	Creates []string
	// OnLoad is called after a module is loaded.
	OnLoad func(module string, params map[string]string)
	// Fail makes loading the named module fail.
	Fail map[string]error

	mu    sync.Mutex
	Calls []string
}

func (l *Loader) p(s string) string { return filepath.Join(l.Root, s) }

// Load implements host.ModuleLoader.
func (l *Loader) Load(ctx context.Context, module string, params []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Calls = append(l.Calls, strings.TrimSpace("modprobe "+module+" "+strings.Join(params, " ")))
	if err := l.Fail[module]; err != nil {
		return err
	}
	ps := map[string]string{}
	maps.Copy(ps, l.Defaults[module])
	for _, kv := range params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("modprobe %s: bad parameter %q", module, kv)
		}
		if _, known := l.Defaults[module][k]; !known {
			return fmt.Errorf("modprobe %s: unknown parameter %s", module, k)
		}
		ps[k] = v
	}
	dir := l.p("sys/module/" + module)
	if err := os.MkdirAll(filepath.Join(dir, "parameters"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "initstate"), []byte("live\n"), 0o644); err != nil {
		return err
	}
	for k, v := range ps {
		if err := os.WriteFile(filepath.Join(dir, "parameters", k), []byte(v+"\n"), 0o644); err != nil {
			return err
		}
	}
	b, _ := os.ReadFile(l.p("proc/modules"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" || strings.Fields(s)[0] == module })
	lines = append(lines, module+" 16384 0 - Live 0x00000000")
	if err := os.WriteFile(l.p("proc/modules"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		return err
	}
	for _, c := range l.Creates {
		if err := os.MkdirAll(filepath.Dir(l.p(c)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(l.p(c), nil, 0o644); err != nil {
			return err
		}
	}
	if l.OnLoad != nil {
		l.OnLoad(module, ps)
	}
	return nil
}

// Unload implements host.ModuleLoader.
func (l *Loader) Unload(ctx context.Context, module string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Calls = append(l.Calls, "rmmod "+module)
	if err := os.RemoveAll(l.p("sys/module/" + module)); err != nil {
		return err
	}
	b, err := os.ReadFile(l.p("proc/modules"))
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines = slices.DeleteFunc(lines, func(s string) bool { return s == "" || strings.Fields(s)[0] == module })
	for _, c := range l.Creates {
		os.Remove(l.p(c))
	}
	return os.WriteFile(l.p("proc/modules"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// CallLog returns the calls so far.
func (l *Loader) CallLog() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.Calls)
}

// regsKey is the controller's registers now, as a key.
func (l *Landscape) regsKey() (string, bool) {
	snap, err := soc.Take(l.Target.Profile.Map, l.Target)
	return fmt.Sprint(snap.Registers), err == nil
}

// firstOfVisit says whether this run is the first at the controller's
// registers (a new visit).
func (l *Landscape) firstOfVisit() bool {
	key, ok := l.regsKey()
	if !ok {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	first := key != l.firstRegs
	l.firstRegs = key
	return first
}

// visitShift is the current visit's shift factor, drawn anew when the
// controller's registers changed since the last run.
func (l *Landscape) visitShift() float64 {
	key, ok := l.regsKey()
	if !ok {
		return 1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if key != l.lastRegs || l.shift == 0 {
		l.lastRegs = key
		l.visits++
		rng := rand.New(rand.NewPCG(l.Seed, 1<<62|l.visits))
		l.shift = math.Exp(l.VisitShift * rng.NormFloat64())
	}
	return l.shift
}
