package probe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// Interrupt handler time comes from the irq:irq_handler_entry and
// irq:irq_handler_exit trace events, recorded in a tracefs instance of
// citune's own (instances/citune-PID), filtered to the controller's IRQ
// number, so that other users of the global trace buffer are not
// disturbed.

var traceRoots = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}

var traceEvents = []string{"irq_handler_entry", "irq_handler_exit"}

type tracer struct {
	dir string // the instance directory
	irq int
}

// handlerStats are interrupt handler durations.
type handlerStats struct {
	events       uint64
	avgUS, maxUS float64
}

func startTracer(root string, irq int) (*tracer, error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("tracing interrupt handlers needs root")
	}
	roots := traceRoots
	if root != "" {
		roots = []string{root}
	}
	dir := ""
	for _, r := range roots {
		if st, err := os.Stat(filepath.Join(r, "instances")); err == nil && st.IsDir() {
			dir = r
			break
		}
	}
	if dir == "" {
		return nil, fmt.Errorf("tracefs is not mounted at %s (mount -t tracefs nodev %s)", roots[0], roots[0])
	}
	if _, err := os.Stat(filepath.Join(dir, "events/irq/irq_handler_entry")); err != nil {
		return nil, errors.New("the kernel has no irq:irq_handler_entry trace event")
	}
	t := &tracer{dir: filepath.Join(dir, "instances", fmt.Sprintf("citune-%d", os.Getpid())), irq: irq}
	if err := os.Mkdir(t.dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("creating trace instance %s: %w", t.dir, err)
	}
	os.WriteFile(filepath.Join(t.dir, "buffer_size_kb"), []byte("4096\n"), 0o644)
	for _, ev := range traceEvents {
		if err := t.write("events/irq/"+ev+"/filter", fmt.Sprintf("irq == %d\n", irq)); err != nil {
			t.close()
			return nil, err
		}
	}
	return t, nil
}

func (t *tracer) write(name, s string) error {
	if err := os.WriteFile(filepath.Join(t.dir, name), []byte(s), 0o644); err != nil {
		return fmt.Errorf("tracefs: %w", err)
	}
	return nil
}

// enable clears the instance's buffer and starts recording.
func (t *tracer) enable() error {
	if err := t.write("trace", ""); err != nil {
		return err
	}
	for _, ev := range traceEvents {
		if err := t.write("events/irq/"+ev+"/enable", "1\n"); err != nil {
			return err
		}
	}
	return nil
}

func (t *tracer) disable() {
	for _, ev := range traceEvents {
		t.write("events/irq/"+ev+"/enable", "0\n")
	}
}

// collect stops recording and measures the recorded handler runs.
func (t *tracer) collect() (handlerStats, error) {
	t.disable()
	data, err := os.ReadFile(filepath.Join(t.dir, "trace"))
	if err != nil {
		return handlerStats{}, fmt.Errorf("tracefs: %w", err)
	}
	return parseTrace(data, t.irq), nil
}

func (t *tracer) close() error {
	t.disable()
	return os.Remove(t.dir)
}

// traceLine matches an irq handler event in tracefs' text output:
//
//	<idle>-0  [001] d.h1.  1234.567890: irq_handler_entry: irq=40 name=2184200.usb
var traceLine = regexp.MustCompile(`\[(\d+)\](?:\s+\S+)?\s+(\d+\.\d+): irq_handler_(entry|exit): irq=(\d+)`)

// parseTrace pairs entry and exit events of irq on each CPU.
func parseTrace(data []byte, irq int) handlerStats {
	var h handlerStats
	open := map[string]float64{} // CPU → entry timestamp
	var sum float64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		m := traceLine.FindSubmatch(line)
		if m == nil {
			continue
		}
		if n, err := strconv.Atoi(string(m[4])); err != nil || n != irq {
			continue
		}
		ts, err := strconv.ParseFloat(string(m[2]), 64)
		if err != nil {
			continue
		}
		cpu := string(m[1])
		if string(m[3]) == "entry" {
			open[cpu] = ts
			continue
		}
		start, ok := open[cpu]
		if !ok || ts < start {
			continue
		}
		delete(open, cpu)
		us := (ts - start) * 1e6
		h.events++
		sum += us
		h.maxUS = max(h.maxUS, us)
	}
	if h.events > 0 {
		h.avgUS = sum / float64(h.events)
	}
	return h
}
