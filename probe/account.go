package probe

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Env is the machine the probes run on (zero values: the real one).
type Env struct {
	// IRQ is the controller's line as /proc/interrupts names it
	// ("2184200.usb", from the profile), or an IRQ number. Empty: no
	// interrupt accounting.
	IRQ       string
	ProcRoot  string // /proc
	TraceRoot string // the tracefs mount; empty tries traceRoots
	NoTrace   bool   // no handler timing even where it is available
}

// userHZ is the unit of /proc/stat on every architecture citune runs on.
const userHZ = 100

// irqCount is one line of /proc/interrupts.
type irqCount struct {
	label string // "40", "NMI"
	total uint64 // summed over all CPUs
}

// ErrNoIRQ is wrapped when /proc/interrupts has no line of that name.
var ErrNoIRQ = errors.New("no such interrupt line")

// parseInterrupts sums the per-CPU counts of the line of /proc/interrupts
// whose label is name ("40") or whose device list names it ("2184200.usb",
// comma-separated on shared lines).
func parseInterrupts(data []byte, name string) (irqCount, error) {
	ncpu := -1
	// A number names a line by its label only: descriptions hold
	// hardware IRQ numbers too ("GPC  40 Level").
	_, err := strconv.ParseUint(name, 10, 32)
	numeric := err == nil
	for line := range strings.Lines(string(data)) {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if ncpu < 0 {
			ncpu = 0
			for _, f := range fields {
				if strings.HasPrefix(f, "CPU") {
					ncpu++
				}
			}
			if ncpu > 0 {
				continue // the header
			}
		}
		label, ok := strings.CutSuffix(fields[0], ":")
		if !ok {
			continue
		}
		var total uint64
		i := 1
		for ; i < len(fields) && (ncpu == 0 || i <= ncpu); i++ {
			v, err := strconv.ParseUint(fields[i], 10, 64)
			if err != nil {
				break
			}
			total += v
		}
		if label == name || !numeric && slices.ContainsFunc(fields[i:], func(f string) bool { return slices.Contains(strings.Split(f, ","), name) }) {
			return irqCount{label: label, total: total}, nil
		}
	}
	return irqCount{}, fmt.Errorf("%w %q in /proc/interrupts", ErrNoIRQ, name)
}

// cpuTicks are the aggregate "cpu" line of /proc/stat, in USER_HZ ticks.
type cpuTicks struct {
	user, nice, system, idle, iowait, irq, softirq, steal uint64
}

// parseStat reads the aggregate cpu line of /proc/stat.
func parseStat(data []byte) (cpuTicks, error) {
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || f[0] != "cpu" {
			continue
		}
		var v [8]uint64
		for i := 1; i < len(f) && i <= len(v); i++ {
			n, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return cpuTicks{}, fmt.Errorf("/proc/stat: bad cpu field %q", f[i])
			}
			v[i-1] = n
		}
		return cpuTicks{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]}, nil
	}
	return cpuTicks{}, errors.New("/proc/stat has no aggregate cpu line")
}

// sub is the CPU time between two samples, in seconds.
func (b cpuTicks) sub(a cpuTicks) CPUTimes {
	s := func(x, y uint64) float64 { return float64(max(x, y)-y) / userHZ } // 0 when the counter went back
	c := CPUTimes{
		User:    s(b.user, a.user) + s(b.nice, a.nice),
		System:  s(b.system, a.system),
		IRQ:     s(b.irq, a.irq),
		SoftIRQ: s(b.softirq, a.softirq),
		Idle:    s(b.idle, a.idle) + s(b.iowait, a.iowait),
	}
	c.Total = c.User + c.System + c.IRQ + c.SoftIRQ + c.Idle + s(b.steal, a.steal)
	return c
}

// accountant measures the machine around runs.
type accountant struct {
	env      Env
	irqLabel string // the /proc/interrupts label of the line, "" if none
	tr       *tracer
	notes    []string
}

type sample struct {
	irqs   uint64
	irqOK  bool
	cpu    cpuTicks
	cpuOK  bool
	traced bool
	at     time.Time
}

func newAccountant(env Env) *accountant {
	a := &accountant{env: env}
	if env.IRQ == "" {
		a.notes = append(a.notes, "no controller interrupt line known (no profile, or give --irq LINE): no interrupt accounting")
	} else if data, err := os.ReadFile(a.path("interrupts")); err != nil {
		a.notes = append(a.notes, fmt.Sprintf("no interrupt accounting: %v", err))
	} else if c, err := parseInterrupts(data, env.IRQ); err != nil {
		a.notes = append(a.notes, fmt.Sprintf("interrupt line %s is not in /proc/interrupts (is the controller's driver bound?): no interrupt accounting", env.IRQ))
	} else {
		a.irqLabel = c.label
	}
	if _, err := os.ReadFile(a.path("stat")); err != nil {
		a.notes = append(a.notes, fmt.Sprintf("no CPU accounting: %v", err))
	}
	if a.irqLabel != "" && !env.NoTrace {
		if n, err := strconv.Atoi(a.irqLabel); err == nil {
			var err error
			if a.tr, err = startTracer(env.TraceRoot, n); err != nil {
				a.notes = append(a.notes, "no interrupt handler time: "+err.Error())
			}
		}
	}
	return a
}

func (a *accountant) path(name string) string {
	return filepath.Join(procRootOr(a.env.ProcRoot), name)
}

func (a *accountant) begin() sample {
	var s sample
	if a.tr != nil {
		s.traced = a.tr.enable() == nil
	}
	s.irqs, s.irqOK = a.irqs()
	s.at = time.Now()
	if data, err := os.ReadFile(a.path("stat")); err == nil {
		s.cpu, err = parseStat(data)
		s.cpuOK = err == nil
	}
	return s
}

func (a *accountant) irqs() (uint64, bool) {
	if a.irqLabel == "" {
		return 0, false
	}
	data, err := os.ReadFile(a.path("interrupts"))
	if err != nil {
		return 0, false
	}
	c, err := parseInterrupts(data, a.irqLabel)
	return c.total, err == nil
}

type window struct {
	irqs, events uint64
	irqOK, hOK   bool
	perSec       float64
	perMiB       float64
	cpu          CPUTimes
	avgUS, maxUS float64
}

// end accounts the window since begin, relating interrupts to the bytes
// of all probes that ran in it.
func (a *accountant) end(s sample, bytes int64) window {
	var w window
	el := time.Since(s.at)
	if n, ok := a.irqs(); ok && s.irqOK && n >= s.irqs {
		w.irqOK, w.irqs = true, n-s.irqs
		if el > 0 {
			w.perSec = float64(w.irqs) / el.Seconds()
		}
		if bytes > 0 {
			w.perMiB = float64(w.irqs) / (float64(bytes) / (1 << 20))
		}
	}
	if data, err := os.ReadFile(a.path("stat")); err == nil && s.cpuOK {
		if c, err := parseStat(data); err == nil {
			w.cpu = c.sub(s.cpu)
		}
	}
	if s.traced {
		h, err := a.tr.collect()
		if err != nil {
			a.note("interrupt handler time: " + err.Error())
		} else {
			w.hOK, w.avgUS, w.maxUS, w.events = true, h.avgUS(), h.maxUS, h.events
		}
	}
	return w
}

// apply puts the window's accounting into r, unless it is simulated.
func (w window) apply(r *Run) {
	if r.Simulated {
		return
	}
	if w.irqOK {
		r.IRQs, r.IRQsPerSec, r.IRQsPerMiB = w.irqs, w.perSec, w.perMiB
	}
	r.CPU = w.cpu
	if w.hOK {
		r.HandlerAvgUS, r.HandlerMaxUS, r.HandlerEvents = w.avgUS, w.maxUS, w.events
	}
}

func (a *accountant) note(s string) {
	if !slices.Contains(a.notes, s) {
		a.notes = append(a.notes, s)
	}
}

func (a *accountant) close() {
	if a.tr != nil {
		if err := a.tr.close(); err != nil {
			a.note("removing the trace instance: " + err.Error())
		}
	}
}
