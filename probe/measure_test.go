package probe

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProbe returns the given rates in turn; failAt (1-based) fails.
type fakeProbe struct {
	name   string
	rates  []float64
	failAt int
	n      int
	active *atomic.Int32 // probes running at the same moment
	seen   *atomic.Int32 // the most seen
}

func (f *fakeProbe) Name() string { return f.name }

func (f *fakeProbe) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	f.n++
	if f.active != nil {
		n := f.active.Add(1)
		for {
			old := f.seen.Load()
			if n <= old || f.seen.CompareAndSwap(old, n) {
				break
			}
		}
		// wait until the other probe of the window is running too
		for f.seen.Load() < 2 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		defer f.active.Add(-1)
	}
	if progress != nil {
		progress(1<<20, 1<<20)
	}
	if f.n == f.failAt {
		return Run{Bytes: 512}, errors.New("device gone")
	}
	return Run{Bytes: 1 << 20, Elapsed: time.Second, Rate: f.rates[(f.n-1)%len(f.rates)], Hash: "crc32:0000abcd"}, nil
}

func TestMeasureStats(t *testing.T) {
	p := &fakeProbe{name: "fake", rates: []float64{100, 10, 20, 30, 40}}
	var calls int
	res, err := Measure(context.Background(), p, Options{Repeat: 4, Warmup: 1, Progress: func(Progress) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 5 || !res.Runs[0].Warmup || res.Runs[1].Warmup || calls != 5 {
		t.Fatalf("runs %+v, %d progress calls", res.Runs, calls)
	}
	s := res.Stats
	want := Stats{N: 4, Unit: "B/s", Min: 10, Median: 25, Mean: 25, Max: 40, StdDev: math.Sqrt(500.0 / 3)}
	want.CV = want.StdDev / 25
	if s.N != want.N || s.Min != want.Min || s.Median != want.Median || s.Mean != want.Mean || s.Max != want.Max || !near(s.StdDev, want.StdDev) || !near(s.CV, want.CV) || s.Unit != "B/s" {
		t.Errorf("stats %+v, want %+v", s, want)
	}
	if res.Hash != "crc32:0000abcd" {
		t.Errorf("hash %q", res.Hash)
	}
}

func TestMeasureKeepsResultsWhenARepeatFails(t *testing.T) {
	p := &fakeProbe{name: "fake", rates: []float64{10, 20}, failAt: 3}
	res, err := Measure(context.Background(), p, Options{Repeat: 5})
	if err == nil || !strings.Contains(err.Error(), "fake: run 3: device gone") {
		t.Fatalf("error %v", err)
	}
	if len(res.Runs) != 3 || res.Runs[2].Err != "device gone" || res.Runs[2].Bytes != 512 || res.Stats.N != 2 || res.Stats.Mean != 15 {
		t.Errorf("result %+v", res)
	}
	if p.n != 3 {
		t.Errorf("ran %d times after the failure, want it to stop", p.n)
	}
}

func TestMeasureAllRunsTogether(t *testing.T) {
	var active, seen atomic.Int32
	a := &fakeProbe{name: "a", rates: []float64{10}, active: &active, seen: &seen}
	b := &fakeProbe{name: "b", rates: []float64{20}, active: &active, seen: &seen, failAt: 2}
	rs, err := MeasureAll(context.Background(), []Probe{a, b}, Options{Repeat: 3})
	if err == nil || !strings.Contains(err.Error(), "b: run 2: device gone") {
		t.Fatalf("error %v", err)
	}
	if seen.Load() != 2 {
		t.Errorf("at most %d probes ran at once, want 2", seen.Load())
	}
	if len(rs) != 2 || len(rs[0].Runs) != 3 || rs[0].Stats.Mean != 10 || len(rs[1].Runs) != 2 || rs[1].Stats.N != 1 {
		t.Fatalf("results %+v", rs)
	}
	if !strings.Contains(strings.Join(rs[0].Notes, "\n"), "counted over all probes running together") {
		t.Errorf("notes %q", rs[0].Notes)
	}
}

// CmdOptions.Probe takes the rate from exactly one source and checks it.
func TestCmdOptions(t *testing.T) {
	tests := map[string]struct {
		o    CmdOptions
		want string
	}{
		"no parser":      {CmdOptions{}, "say how to find the rate"},
		"two parsers":    {CmdOptions{Parse: "iperf3", Regex: "x", Unit: "MB/s"}, "say how to find the rate"},
		"unknown parser": {CmdOptions{Parse: "fio"}, "--parse knows iperf3 only"},
		"regex no unit":  {CmdOptions{Regex: "([0-9]+)"}, "a unit is needed"},
		"regex 2 groups": {CmdOptions{Regex: "(a)(b)", Unit: "fps"}, "has 2 groups"},
		"bad regex":      {CmdOptions{Regex: "(", Unit: "fps"}, "--regex: error parsing regexp"},
		"sender alone":   {CmdOptions{Sender: true, Regex: "x", Unit: "fps"}, "--sender goes with --parse iperf3"},
		"no command":     {CmdOptions{Parse: "iperf3"}, "no command given"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if name != "no command" {
				tc.o.Argv = []string{"true"}
			}
			p, err := tc.o.Probe()
			if p != nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%v, error %v, want a usage error containing %q", p, err, tc.want)
			}
		})
	}
	p, err := CmdOptions{Argv: []string{"fio", "--output-format=json", "job.fio"}, Timeout: time.Second, JSONPath: "jobs.0.read.bw_bytes", Unit: "B/s"}.Probe()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Name(); got != "cmd fio --output-format=json job.fio [json jobs.0.read.bw_bytes B/s]" || p.Timeout != time.Second {
		t.Errorf("name %q, timeout %v", got, p.Timeout)
	}
	p, err = CmdOptions{Argv: []string{"iperf3", "-c", "host", "-J"}, Parse: "iperf3", Sender: true}.Probe()
	if err != nil {
		t.Fatal(err)
	}
	if ip, ok := p.Parse.(*Iperf3Parser); !ok || !ip.Sender {
		t.Errorf("iperf3 --sender: parser %#v", p.Parse)
	}
}

// stuckProbe's run never returns by itself (it ignores its context),
// like a write stuck in the kernel.
type stuckProbe struct {
	started chan struct{}
	release chan struct{}
}

func (s *stuckProbe) Name() string { return "stuck" }
func (s *stuckProbe) Run(ctx context.Context, _ func(done, total int64)) (Run, error) {
	close(s.started)
	<-s.release
	return Run{}, nil
}

// Measure returns once its context is cancelled, also when a probe's run
// does not: the test hangs (and the test binary's -timeout ends it) if it
// waited.
func TestMeasureReturnsOnCancelWhileARunIsStuck(t *testing.T) {
	sp := &stuckProbe{started: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(sp.release) })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-sp.started
		cancel()
	}()
	res, err := MeasureAll(ctx, []Probe{sp, &fakeProbe{name: "ok", rates: []float64{1e6, 1e6, 1e6}}}, Options{Repeat: 3})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if len(res[0].Runs) != 1 || !strings.Contains(res[0].Runs[0].Err, "left to finish on its own") {
		t.Errorf("stuck probe's runs %+v", res[0].Runs)
	}
}
