package probe

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/citune/citune/units"
)

// Options control Measure.
type Options struct {
	// Repeat is the number of measured runs (at least 1); Warmup runs
	// come first and are reported but not counted in the statistics.
	Repeat, Warmup int
	Env            Env
	// Progress, if not nil, is called as runs advance, serialized.
	Progress func(Progress)
}

// Progress reports how far a run has got.
type Progress struct {
	Probe  int    // index into the probes given to MeasureAll
	Name   string // the probe's Name
	Run    int    // 1-based, warm-up runs included
	Runs   int    // warm-up plus measured runs
	Warmup bool
	Done   int64 // bytes done in this run
	Total  int64 // bytes planned, 0 when unknown
}

// Result is everything measured for one probe.
type Result struct {
	Probe     string `json:"probe"`
	Simulated bool   `json:"simulated,omitempty"`
	// Runs holds every run in order, warm-up and failed runs included.
	Runs  []Run `json:"runs"`
	Stats Stats `json:"stats"`
	// Hash and Sample are what all successful runs that had one agreed on.
	Hash    string   `json:"hash,omitempty"`
	Sample  string   `json:"sample,omitempty"`
	Corrupt bool     `json:"corrupt,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	Err     string   `json:"error,omitempty"`
}

// Stats summarise the measured (not warm-up, not failed) runs.
type Stats struct {
	N int `json:"n"`
	// Unit of the rates: "B/s" or the probe's own, such as "fps"
	// (statsjson.go).
	Unit   string  `json:"unit,omitempty"`
	Min    float64 `json:"min_bytes_per_s"`
	Median float64 `json:"median_bytes_per_s"`
	Mean   float64 `json:"mean_bytes_per_s"`
	Max    float64 `json:"max_bytes_per_s"`
	StdDev float64 `json:"stddev_bytes_per_s"` // sample standard deviation
	CV     float64 `json:"cv"`                 // StdDev / Mean
	// Means over the runs.
	IRQsPerSec   float64  `json:"irqs_per_s"`
	IRQsPerMiB   float64  `json:"irqs_per_mib"`
	CPU          CPUTimes `json:"cpu_s"`                   // seconds, by kind
	CPUPerGiB    float64  `json:"cpu_s_per_gib,omitempty"` // busy seconds (all CPUs) per GiB
	HandlerAvgUS float64  `json:"handler_avg_us,omitempty"`
	HandlerMaxUS float64  `json:"handler_max_us,omitempty"`
	IntegrityCPU float64  `json:"integrity_cpu_s,omitempty"` // mean per run, not in CPU
}

// ErrCorrupt is wrapped when an integrity check fails.
var ErrCorrupt = errors.New("data integrity check failed")

// Measure runs p Warmup+Repeat times with accounting around every run.
// A run that fails or finds corrupt data (ErrCorrupt) ends it; the
// Result holds every run made.
func Measure(ctx context.Context, p Probe, o Options) (Result, error) {
	rs, err := MeasureAll(ctx, []Probe{p}, o)
	return rs[0], err
}

// MeasureAll runs several probes at the same time (two disks, or a disk
// and a network link), repeat by repeat, each reported separately. The
// interrupts and CPU time of a repeat are those of the whole window and
// relate to the bytes of all probes together. A probe that fails is not
// run again; the others go on.
func MeasureAll(ctx context.Context, ps []Probe, o Options) ([]Result, error) {
	total := max(o.Warmup, 0) + max(o.Repeat, 1)
	acc := newAccountant(o.Env)
	defer acc.close()
	m := newMeasurement(ps, o, total)
	for k := 0; k < total; k++ {
		if ctx.Err() != nil {
			m.errs = append(m.errs, ctx.Err())
			break
		}
		warm := k < o.Warmup
		// Several probes at once need processors of their own (oneProc).
		inflight := func() {}
		if n := m.activeCount(); n > 1 {
			inflight = runsInFlight(n)
		}
		s := acc.begin()
		ch, started := m.start(ctx, k, warm)
		runs, runErrs := m.collect(ctx, ch, started)
		inflight()
		var bytes int64
		for i := range ps {
			if m.active[i] {
				bytes += runs[i].Bytes
			}
		}
		w := acc.end(s, bytes)
		for i := range ps {
			if m.active[i] {
				m.record(i, runs[i], runErrs[i], warm, w)
			}
		}
	}
	m.finish(acc.notes)
	return m.results, errors.Join(m.errs...)
}

// measurement is the state of one MeasureAll across its repeats.
type measurement struct {
	ps          []Probe
	o           Options
	total       int // runs per probe, warm-up included
	results     []Result
	active      []bool // the probe has not failed yet
	refs, srefs []*Run // each probe's first good run with full or sample marks
	errs        []error
	pmu         sync.Mutex // serialises the progress callbacks
}

type runOut struct {
	i   int
	r   Run
	err error
}

func newMeasurement(ps []Probe, o Options, total int) *measurement {
	m := &measurement{ps: ps, o: o, total: total,
		results: make([]Result, len(ps)), active: make([]bool, len(ps)),
		refs: make([]*Run, len(ps)), srefs: make([]*Run, len(ps))}
	for i, p := range ps {
		m.results[i].Probe = p.Name()
		m.active[i] = true
	}
	return m
}

func (m *measurement) activeCount() int {
	n := 0
	for _, a := range m.active {
		if a {
			n++
		}
	}
	return n
}

// start starts run k of every active probe, each in a goroutine, and
// returns the channel their runs arrive on and how many started.
func (m *measurement) start(ctx context.Context, k int, warm bool) (chan runOut, int) {
	ch := make(chan runOut, len(m.ps))
	started := 0
	for i, p := range m.ps {
		if !m.active[i] {
			continue
		}
		var progress func(done, total int64)
		if m.o.Progress != nil {
			pr := Progress{Probe: i, Name: m.results[i].Probe, Run: k + 1, Runs: m.total, Warmup: warm}
			progress = func(done, total int64) {
				m.pmu.Lock()
				defer m.pmu.Unlock()
				pr.Done, pr.Total = done, total
				m.o.Progress(pr)
			}
		}
		rctx := ctx
		if warm {
			rctx = WarmupContext(ctx)
		}
		started++
		go func() {
			r, err := p.Run(rctx, progress)
			ch <- runOut{i, r, err}
		}()
	}
	return ch, started
}

// collect waits for every run, but not past a cancellation: a probe stuck
// in the kernel is left behind (the cancellation contract).
func (m *measurement) collect(ctx context.Context, ch chan runOut, started int) ([]Run, []error) {
	runs := make([]Run, len(m.ps))
	runErrs := make([]error, len(m.ps))
	got := make([]bool, len(m.ps))
	for range started {
		select {
		case o := <-ch:
			runs[o.i], runErrs[o.i], got[o.i] = o.r, o.err, true
		case <-ctx.Done():
			for len(ch) > 0 { // what arrived meanwhile (this is the only receiver)
				o := <-ch
				runs[o.i], runErrs[o.i], got[o.i] = o.r, o.err, true
			}
			for i := range m.ps {
				if m.active[i] && !got[i] {
					runErrs[i] = fmt.Errorf("stopped: %w (the run did not return and was left to finish on its own)", ctx.Err())
					runs[i] = Run{Err: runErrs[i].Error()}
				}
			}
			return runs, runErrs
		}
	}
	return runs, runErrs
}

// record adds probe i's run r to its result with the window's
// accounting and the integrity check; an error or corrupt data ends the
// probe.
func (m *measurement) record(i int, r Run, err error, warm bool, w window) {
	r.Warmup = warm
	w.apply(&r)
	// The integrity check's time is citune's, not the system's.
	r.CPU.User = max(0, r.CPU.User-r.IntegrityCPU)
	res := &m.results[i]
	res.Simulated = res.Simulated || r.Simulated
	n := len(res.Runs) + 1
	if err != nil {
		r.Err = cmp.Or(r.Err, err.Error())
		res.Runs = append(res.Runs, r)
		res.Err = fmt.Sprintf("run %d: %v", n, err)
		m.errs = append(m.errs, fmt.Errorf("%s: run %d: %w", res.Probe, n, err))
		m.active[i] = false
		return
	}
	m.compare(i, &r, n)
	r.marks, r.smarks = nil, nil // keep memory down; the references have their own
	res.Runs = append(res.Runs, r)
	if r.Corrupt {
		res.Corrupt = true
		res.Err = fmt.Sprintf("run %d: %v: %s", n, ErrCorrupt, r.Detail)
		m.errs = append(m.errs, fmt.Errorf("%s: run %d: %w: %s", res.Probe, n, ErrCorrupt, r.Detail))
		m.active[i] = false
	}
}

// compare checks run n of probe i against its references, and makes it
// one where there is none yet and it is good.
func (m *measurement) compare(i int, r *Run, n int) {
	refs, srefs := m.refs, m.srefs
	if !r.Corrupt && refs[i] != nil {
		if off, differ := firstDiff(refs[i], r, refs[i].marks, r.marks); differ {
			r.Corrupt = true
			r.Detail = fmt.Sprintf("run %d read different data than run %d: the first difference is in the %s block at byte offset %d", n, refs[i].seq, units.Size(r.markSize), off)
		}
	}
	if !r.Corrupt && srefs[i] != nil {
		if off, differ := firstDiff(srefs[i], r, srefs[i].smarks, r.smarks); differ {
			r.Corrupt = true
			r.Detail = fmt.Sprintf("run %d read different data than run %d in the sampled bytes: the first difference is in the %s block at byte offset %d", n, srefs[i].seq, units.Size(r.markSize), off)
		}
	}
	r.seq = n
	if refs[i] == nil && !r.Corrupt && len(r.marks) > 0 {
		ref := *r
		ref.smarks = nil
		refs[i] = &ref
	}
	if srefs[i] == nil && !r.Corrupt && len(r.smarks) > 0 {
		ref := *r
		ref.marks = nil
		srefs[i] = &ref
	}
}

// finish summarises every probe's runs and adds the notes.
func (m *measurement) finish(notes []string) {
	results := m.results
	for i := range results {
		results[i].Stats = summarise(results[i].Runs)
		results[i].Hash = commonHash(results[i].Runs, func(r Run) string { return r.Hash })
		results[i].Sample = commonHash(results[i].Runs, func(r Run) string { return r.Sample })
		// Simulated runs model their own interrupts and CPU.
		if !allSimulated(results[i].Runs) {
			results[i].Notes = append([]string(nil), notes...)
		}
		if len(m.ps) > 1 {
			results[i].Notes = append(results[i].Notes, "interrupts and CPU time are counted over all probes running together")
		}
	}
}

// firstDiff returns the byte offset of the first block whose marks (am
// of a, bm of b) differ.
func firstDiff(a, b *Run, am, bm []uint32) (int64, bool) {
	if a.markSize != b.markSize || a.markBase != b.markBase || a.markSize == 0 {
		return 0, false
	}
	n := min(len(am), len(bm))
	for i := 0; i < n; i++ {
		if am[i] != bm[i] {
			j := int64(i)
			if a.markSpan > 0 { // a timed run wraps round
				perPass := (a.markSpan + a.markSize - 1) / a.markSize
				j %= perPass
			}
			return a.markBase + j*a.markSize, true
		}
	}
	return 0, false
}

func commonHash(runs []Run, of func(Run) string) string {
	h := ""
	for _, r := range runs {
		if r.Err != "" || of(r) == "" {
			continue
		}
		if h == "" {
			h = of(r)
		} else if h != of(r) {
			return ""
		}
	}
	return h
}

func summarise(runs []Run) Stats {
	s := Stats{Unit: "B/s"}
	var rates []float64
	var bytes int64
	var hEvents uint64
	var hSum float64
	for _, r := range runs {
		if r.Warmup || r.Err != "" {
			continue
		}
		s.Unit = cmp.Or(r.Unit, s.Unit)
		rates = append(rates, r.Rate)
		bytes += r.Bytes
		s.IRQsPerSec += r.IRQsPerSec
		s.IRQsPerMiB += r.IRQsPerMiB
		s.CPU.User += r.CPU.User
		s.CPU.System += r.CPU.System
		s.CPU.IRQ += r.CPU.IRQ
		s.CPU.SoftIRQ += r.CPU.SoftIRQ
		s.CPU.Idle += r.CPU.Idle
		s.CPU.Total += r.CPU.Total
		s.IntegrityCPU += r.IntegrityCPU
		hEvents += r.HandlerEvents
		hSum += r.HandlerAvgUS * float64(r.HandlerEvents)
		s.HandlerMaxUS = max(s.HandlerMaxUS, r.HandlerMaxUS)
	}
	s.N = len(rates)
	if s.N == 0 {
		return s
	}
	busy := s.CPU.User + s.CPU.System + s.CPU.IRQ + s.CPU.SoftIRQ
	if bytes > 0 {
		s.CPUPerGiB = busy / (float64(bytes) / (1 << 30))
	}
	n := float64(s.N)
	s.IRQsPerSec /= n
	s.IntegrityCPU /= n
	s.IRQsPerMiB /= n
	s.CPU = CPUTimes{User: s.CPU.User / n, System: s.CPU.System / n, IRQ: s.CPU.IRQ / n, SoftIRQ: s.CPU.SoftIRQ / n, Idle: s.CPU.Idle / n, Total: s.CPU.Total / n}
	if hEvents > 0 {
		s.HandlerAvgUS = hSum / float64(hEvents)
	}
	sort.Float64s(rates)
	s.Min, s.Max = rates[0], rates[len(rates)-1]
	if len(rates)%2 == 1 {
		s.Median = rates[len(rates)/2]
	} else {
		s.Median = (rates[len(rates)/2-1] + rates[len(rates)/2]) / 2
	}
	for _, v := range rates {
		s.Mean += v
	}
	s.Mean /= n
	if s.N > 1 {
		var ss float64
		for _, v := range rates {
			ss += (v - s.Mean) * (v - s.Mean)
		}
		s.StdDev = math.Sqrt(ss / (n - 1))
	}
	if s.Mean != 0 {
		s.CV = s.StdDev / s.Mean
	}
	return s
}

func allSimulated(runs []Run) bool {
	return len(runs) > 0 && !slices.ContainsFunc(runs, func(r Run) bool { return !r.Simulated })
}
