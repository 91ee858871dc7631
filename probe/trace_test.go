package probe

import "testing"

func TestParseTraceLines(t *testing.T) {
	trace := []byte(`# tracer: nop
   odd[7]name-55   [003] d.h1.  77.000000100: irq_handler_entry: irq=40 name=2184200.usb
   odd[7]name-55   [003] d.h1.  77.000002600: irq_handler_exit: irq=40 ret=handled
          <idle>-0 [001] d.h1. 78.000010: irq_handler_entry: irq=40 name=2184200.usb
          <idle>-0 [001] d.h1. 78.000017: irq_handler_exit: irq=400 ret=handled
          <idle>-0 [001] d.h1. 78.000019: irq_handler_exit: irq=40 ret=handled
          <idle>-0 [001] d.h1. 78.x00020: irq_handler_entry: irq=40 name=2184200.usb
          <idle>-0 [002] d.h1. 79.000030: irq_handler_entry: irq=40 name=2184200.usb
          <idle>-0 [002] d.h1. 79.000031: softirq_entry: vec=1
`)
	h := parseTrace(trace, 40)
	// 2.5 µs on CPU 3 (nanosecond timestamps, a task name with brackets),
	// 9 µs on CPU 1 (another IRQ's exit between); a malformed timestamp
	// and an entry without exit do not count.
	if h.events != 2 || !near(h.avgUS(), 5.75) || !near(h.maxUS, 9) {
		t.Errorf("got %+v, want 2 events, avg 5.75 µs, max 9 µs", h)
	}
	for _, line := range []string{
		"", "#", "[1] 2.0: irq_handler_entry: irq=", "x 2.0: irq_handler_entry: irq=1",
		"[a] 2.0: irq_handler_entry: irq=1", "[1] 2: irq_handler_entry: irq=1", "[1] .5: irq_handler_exit: irq=1",
		"[1] 2.0: irq_handler_return: irq=1", "[1] 2.0: irq_handler_exit: irq=1234567890",
	} {
		if ev, ok := parseTraceLine([]byte(line)); ok {
			t.Errorf("%q parsed as %+v", line, ev)
		}
	}
}

func BenchmarkParseTrace(b *testing.B) {
	line := "          <idle>-0       [000] d.h1.  1523.418021: irq_handler_entry: irq=32 name=2184200.usb\n" +
		"          <idle>-0       [000] d.h1.  1523.418033: irq_handler_exit: irq=32 ret=handled\n"
	var data []byte
	for range 1000 {
		data = append(data, line...)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if h := parseTrace(data, 32); h.events != 1000 {
			b.Fatal(h)
		}
	}
}
