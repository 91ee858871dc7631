// Package sweeptest has fakes for testing sweeps without a board: a
// simulated throughput landscape that reads the controller's settings
// (and plays the driver's USBCMD write-back on the simulated
// controller), and a module loader that edits a /proc and /sys tree.
package sweeptest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// Landscape is a simulated workload. Each run reads the controller's
// settings through Target.Acc and returns a rate:
//
//	Base × burst × ITC × streaming × noise
//
// burst: with SBUSCFG.AHBBRST = 0, f(TXPBURST)·f(RXPBURST) where f(w) =
// 1 − 0.04·|log2(w/16)| (16 words is best; 0 words counts as 0.85);
// otherwise by AHBBRST: 1 → 0.88, 2 → 0.92, 3 → 0.95, 5 → 0.90,
// 6 → 0.93, 7 → 0.955.
// ITC (micro-frames): 0 → 0.985, 1 → 1, 2 → 0.97, 4 → 0.95, 8 → 0.93,
// 16 → 0.88, 32 → 0.78, 64 → 0.55.
// streaming: USBMODE.SDIS = 1 → 0.9.
// noise: log-normal with standard deviation Noise.
//
// Interrupts per MiB are 8000/ITC (12000 at ITC 0); busy CPU is 0.5 ms
// per MiB plus 2 µs per interrupt. The best settings are AHBBRST=0,
// TXPBURST=RXPBURST=16, ITC=1, SDIS=0.
type Landscape struct {
	Target *soc.Target
	Base   float64 // bytes per second at the best settings (default 30e6)
	Noise  float64 // relative run-to-run noise (default 0.01)
	Bytes  int64   // bytes per run (default 64 MiB)
	Rand   *rand.Rand
	// Extra multiplies the rate (tests add factors for file axes).
	Extra func() float64
	// Before is called at the start of every run with its number
	// (1-based); a test cancels its context there to interrupt a point.
	Before func(n int)
	// Corrupt marks run n as failing its integrity check.
	Corrupt func(n int) bool
	// Fail makes run n fail with an error.
	Fail func(n int) error
	// Block makes runs wait for ctx (to test cancellation of a run).
	Block bool

	mu   sync.Mutex
	Runs int
}

// Measure implements sweep.Prober.
func (l *Landscape) Measure(ctx context.Context) (probe.Run, error) {
	l.mu.Lock()
	l.Runs++
	n := l.Runs
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
	base, noise, size := l.Base, l.Noise, l.Bytes
	if base == 0 {
		base = 30e6
	}
	if noise == 0 {
		noise = 0.01
	}
	if size == 0 {
		size = 64 << 20
	}
	acc := l.Target.Acc
	m := l.Target.Profile.Map
	f, itc, err := Factor(m, acc)
	if err != nil {
		return probe.Run{}, err
	}
	if l.Extra != nil {
		f *= l.Extra()
	}
	if l.Target.Sim != nil {
		l.Target.Sim.Transfer()
	}
	z := 0.0
	if l.Rand != nil {
		z = l.Rand.NormFloat64()
	}
	rate := base * f * math.Exp(noise*z)
	mib := float64(size) / (1 << 20)
	ipm := 12000.0
	if itc > 0 {
		ipm = 8000 / float64(itc)
	}
	busy := mib * (0.5e-3 + ipm*2e-6)
	run := probe.Run{Bytes: size, Elapsed: time.Duration(float64(size) / rate * 1e9), Rate: rate, Simulated: true,
		IRQs: uint64(ipm * mib), IRQsPerMiB: ipm, CPU: probe.CPUTimes{System: busy, Total: busy}}
	if l.Corrupt != nil && l.Corrupt(n) {
		run.Corrupt, run.Detail = true, "block at offset 0x1200000 differs from the first run"
	}
	return run, nil
}

func field(m *regs.Map, acc regs.Accessor, name string) (uint32, bool, error) {
	ref, err := m.Lookup(name)
	if err != nil || ref.Field == nil {
		return 0, false, nil
	}
	v, err := acc.Read32(ref.Reg.Offset)
	if err != nil {
		return 0, false, err
	}
	return ref.Field.Get(v), true, nil
}

// Factor is the landscape's rate factor (1 at the best settings) for the
// controller's current settings, and its ITC.
func Factor(m *regs.Map, acc regs.Accessor) (float64, uint32, error) {
	get := func(n string) (uint32, bool) {
		v, ok, err := field(m, acc, n)
		if err != nil {
			panic(err)
		}
		return v, ok
	}
	var f float64 = 1
	var itc uint32
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = p.(error)
			}
		}()
		ahb, _ := get("SBUSCFG.AHBBRST")
		if ahb == 0 {
			tx, _ := get("BURSTSIZE.TXPBURST")
			rx, _ := get("BURSTSIZE.RXPBURST")
			f *= burst(tx) * burst(rx)
		} else {
			f *= map[uint32]float64{1: 0.88, 2: 0.92, 3: 0.95, 4: 0.5, 5: 0.90, 6: 0.93, 7: 0.955}[ahb]
		}
		itc, _ = get("USBCMD.ITC")
		if x, ok := map[uint32]float64{0: 0.985, 1: 1, 2: 0.97, 4: 0.95, 8: 0.93, 16: 0.88, 32: 0.78, 64: 0.55}[itc]; ok {
			f *= x
		} else {
			f *= 0.5
		}
		if sdis, ok := get("USBMODE.SDIS"); ok && sdis == 1 {
			f *= 0.9
		}
		return nil
	}()
	return f, itc, err
}

func burst(w uint32) float64 {
	if w == 0 {
		return 0.85
	}
	return 1 - 0.04*math.Abs(math.Log2(float64(w)/16))
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
	var names []string
	for m := range loaded {
		names = append(names, m)
	}
	sort.Strings(names)
	if err := os.MkdirAll(filepath.Join(root, "proc"), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(root, "proc/modules"), nil, 0o644); err != nil {
		return err
	}
	for _, m := range names {
		if err := l.Load(context.Background(), m, nil); err != nil {
			return err
		}
	}
	l.Calls = nil
	return nil
}

// Loader is a fake sweep.ModuleLoader over a tree made by Modules.
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

// Load implements sweep.ModuleLoader.
func (l *Loader) Load(ctx context.Context, module string, params []string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.Calls = append(l.Calls, strings.TrimSpace("modprobe "+module+" "+strings.Join(params, " ")))
	if err := l.Fail[module]; err != nil {
		return err
	}
	ps := map[string]string{}
	for k, v := range l.Defaults[module] {
		ps[k] = v
	}
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

// Unload implements sweep.ModuleLoader.
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
