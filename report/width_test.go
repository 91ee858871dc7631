package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func textReport(t *testing.T, o Options, names ...string) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, load(t, names...), o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// pointHead is the heading line of the point table.
func pointHead(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, " #  point") {
			return l
		}
	}
	t.Fatalf("no point table in\n%s", out)
	return ""
}

// On an 80-column console the report fits: the point table drops its
// least needed columns (95 % CI, min, max, irq/s, handler times) but
// keeps the median, the gain, interrupts and CPU, and the baseline row
// loses the settings the plan line already gives.
func TestTextFitsEightyColumns(t *testing.T) {
	full := textReport(t, Options{}, "grid")
	out := textReport(t, Options{Width: 80}, "grid")
	for i, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("line %d is %d columns wide: %q", i+1, w, l)
		}
	}
	head := pointHead(t, out)
	for _, gone := range []string{"95 % CI", " min ", " max ", "irq/s", "handler"} {
		if strings.Contains(head, gone) {
			t.Errorf("80 columns: heading keeps %q: %q", gone, head)
		}
		if !strings.Contains(pointHead(t, full), gone) {
			t.Errorf("full width: heading lacks %q", gone)
		}
	}
	for _, kept := range []string{"runs", "median MiB/s", "vs baseline", "irq/MiB", "CPU %", "CPU ms/MiB"} {
		if !strings.Contains(head, kept) {
			t.Errorf("80 columns: heading lost %q: %q", kept, head)
		}
	}
	if !strings.Contains(out, "\n    baseline           20         24.48") || strings.Contains(out, "baseline (ITC=8") {
		t.Errorf("baseline row at 80 columns:\n%s", out)
	}
	if !strings.Contains(out, "!!! CORRUPT DATA at 1 point (below): a probe run's data failed its integrity\n    check\n") {
		t.Errorf("the corrupt-data line is not wrapped under its mark:\n%s", out)
	}
	// A long cell wraps inside its column.
	if !strings.Contains(out, "run 2 failed its integrity check: block at\n                                 offset 0x1200000") {
		t.Errorf("the reason of the corrupt point does not wrap in its column:\n%s", out)
	}
}

// Narrower still, the rate heading loses "median", then the run count
// and CPU go; the rates and gains stay.
func TestTextFitsSixtyColumns(t *testing.T) {
	out := textReport(t, Options{Width: 60}, "grid")
	head := pointHead(t, out)
	if ansi.StringWidth(head) > 60 {
		t.Errorf("point table heading %d columns wide: %q", ansi.StringWidth(head), head)
	}
	for _, gone := range []string{"median", "runs", "CPU %"} {
		if strings.Contains(head, gone) {
			t.Errorf("60 columns: heading keeps %q: %q", gone, head)
		}
	}
	for _, kept := range []string{"MiB/s", "vs baseline"} {
		if !strings.Contains(head, kept) {
			t.Errorf("60 columns: heading lost %q: %q", kept, head)
		}
	}
	if !strings.Contains(out, "1=  ITC=1 AHBBRST=3  27.34      +11.9 %") {
		t.Errorf("winner row at 60 columns:\n%s", out)
	}
	// The plan line wraps under its label.
	if !strings.Contains(out, "plan: grid over ITC=1,8,64 × AHBBRST=0,2,3,7, 5 runs per\n      point") {
		t.Errorf("plan line at 60 columns:\n%s", out)
	}
}

// For a terminal without UTF-8 every character is ASCII, with × as x
// and µ as u.
func TestTextASCII(t *testing.T) {
	full := textReport(t, Options{}, "grid")
	if !strings.Contains(full, "×") || !strings.Contains(full, "µs") {
		t.Fatalf("the UTF-8 report has no × or µ to replace:\n%s", full)
	}
	out := textReport(t, Options{ASCII: true}, "grid")
	for i := 0; i < len(out); i++ {
		if out[i] >= 0x80 {
			t.Fatalf("byte %#x at %d in the ASCII report: %q", out[i], i, out[max(0, i-20):min(len(out), i+20)])
		}
	}
	if !strings.Contains(out, "ITC=1,8,64 x AHBBRST=0,2,3,7") || !strings.Contains(out, "handler avg/max us") {
		t.Errorf("ASCII report:\n%s", out)
	}
	if got := asciiOnly("10 µs – 20 μs — ±2 % − é"); got != "10 us - 20 us - ~2 % - ?" {
		t.Errorf("asciiOnly = %q", got)
	}
	if err := WriteText(failWriter{}, load(t, "grid"), Options{ASCII: true}); err == nil {
		t.Error("a failing writer gave no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errFail }

var errFail = bytes.ErrTooLarge
