package probe

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Interrupt handler time comes from the irq:irq_handler_entry and
// irq:irq_handler_exit trace events, recorded in a tracefs instance of
// citune's own (instances/citune-PID) filtered to the controller's IRQ,
// so that other users of the global trace buffer are not disturbed.

var (
	traceRoots  = []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"}
	traceEvents = []string{"irq_handler_entry", "irq_handler_exit"}
)

type tracer struct {
	dir    string // the instance directory
	irq    int
	raw    rawLayout // the binary page layout (traceraw.go), unless rawErr
	rawErr error
}

// handlerStats are interrupt handler durations.
type handlerStats struct {
	events uint64
	sumNS  int64
	maxUS  float64
}

// add counts one handler run of d ns.
func (h *handlerStats) add(d int64) {
	h.events++
	h.sumNS += d
	h.maxUS = max(h.maxUS, float64(d)/1e3)
}

// avgUS is the mean run, 0 for none.
func (h handlerStats) avgUS() float64 {
	if h.events == 0 {
		return 0
	}
	return float64(h.sumNS) / float64(h.events) / 1e3
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
	t.raw, t.rawErr = readRawLayout(t.dir)
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
	if t.rawErr == nil {
		return collectRaw(t.dir, t.raw, t.irq)
	}
	return collectText(t.dir, t.irq)
}

func (t *tracer) close() error {
	t.disable()
	return os.Remove(t.dir)
}

// parseTrace pairs entry and exit events of irq on each CPU in tracefs'
// text output, lines like
//
//	<idle>-0  [001] d.h1.  1234.567890: irq_handler_entry: irq=40 name=2184200.usb
//
// Decision: a hand-written scanner, not a regular expression, which with
// a string per line costs about 5 µs of CPU per interrupt (thousands a
// second at ITC 1) competing with the handling it measures. This one
// allocates nothing per line.
func parseTrace(data []byte, irq int) handlerStats {
	var h handlerStats
	open := map[int]int64{} // CPU → entry timestamp (ns)
	for line := range bytes.Lines(data) {
		ev, ok := parseTraceLine(line)
		if !ok || ev.irq != irq {
			continue
		}
		if ev.entry {
			open[ev.cpu] = ev.ns
			continue
		}
		start, ok := open[ev.cpu]
		if !ok || ev.ns < start {
			continue
		}
		delete(open, ev.cpu)
		h.add(ev.ns - start)
	}
	return h
}

// traceEvent is one irq_handler_entry or irq_handler_exit line.
type traceEvent struct {
	cpu, irq int
	ns       int64 // the timestamp
	entry    bool
}

var handlerMark = []byte(": irq_handler_")

// parseTraceLine reads one line: the CPU is the last "[NNN]" before the
// timestamp, the timestamp the field before ": irq_handler_", then
// "entry: irq=N" or "exit: irq=N".
func parseTraceLine(line []byte) (ev traceEvent, ok bool) {
	k := bytes.Index(line, handlerMark)
	if k < 0 || line[0] == '#' {
		return ev, false
	}
	rest := line[k+len(handlerMark):]
	switch {
	case bytes.HasPrefix(rest, []byte("entry: irq=")):
		ev.entry, rest = true, rest[len("entry: irq="):]
	case bytes.HasPrefix(rest, []byte("exit: irq=")):
		rest = rest[len("exit: irq="):]
	default:
		return ev, false
	}
	if ev.irq, ok = leadingInt(rest); !ok {
		return ev, false
	}
	head := line[:k]
	sp := bytes.LastIndexByte(head, ' ')
	if ev.ns, ok = parseTimestamp(head[sp+1:]); !ok {
		return ev, false
	}
	head = head[:max(sp, 0)]
	for {
		r := bytes.LastIndexByte(head, ']')
		if r < 0 {
			return ev, false
		}
		l := bytes.LastIndexByte(head[:r], '[')
		if l >= 0 {
			if cpu, ok := leadingInt(head[l+1 : r]); ok && l+1+digits(head[l+1:r]) == r {
				ev.cpu = cpu
				return ev, true
			}
		}
		head = head[:r]
	}
}

// leadingInt parses the decimal digits (at most 9) at the start of b.
func leadingInt(b []byte) (int, bool) {
	n := digits(b)
	if n == 0 || n > 9 {
		return 0, false
	}
	v := 0
	for _, c := range b[:n] {
		v = v*10 + int(c-'0')
	}
	return v, true
}

func digits(b []byte) int {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n
}

// parseTimestamp reads "SECONDS.FRACTION" (tracefs prints 6 digits of
// fraction by default, 9 with some clocks) as nanoseconds.
func parseTimestamp(b []byte) (int64, bool) {
	dot := bytes.IndexByte(b, '.')
	if dot <= 0 || dot > 12 || digits(b[:dot]) != dot {
		return 0, false
	}
	frac := b[dot+1:]
	if n := digits(frac); n == 0 || n != len(frac) || n > 9 {
		return 0, false
	}
	var sec, ns int64
	for _, c := range b[:dot] {
		sec = sec*10 + int64(c-'0')
	}
	for i := range 9 {
		ns *= 10
		if i < len(frac) {
			ns += int64(frac[i] - '0')
		}
	}
	return sec*1e9 + ns, true
}
