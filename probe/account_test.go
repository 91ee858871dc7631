package probe

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseInterrupts(t *testing.T) {
	tests := map[string]struct {
		file, name string
		label      string
		total      uint64
	}{
		"imx6q usb host by device name": {"interrupts-imx6q.txt", "2184200.usb", "32", 1758 + 212 + 35 + 7},
		"imx6q usb otg, no interrupts":  {"interrupts-imx6q.txt", "2184000.usb", "31", 0},
		"imx6q by label":                {"interrupts-imx6q.txt", "32", "32", 2012},
		"label not hardware irq":        {"interrupts-imx6q.txt", "40", "", 0}, // 40 is GPC's number for line 32
		"two lines with one name":       {"interrupts-imx6q.txt", "2188000.ethernet", "29", 8870},
		"IPI line":                      {"interrupts-imx6q.txt", "IPI2", "IPI2", 4511 + 6123 + 5560 + 5212},
		"shared line, second device":    {"interrupts-x86.txt", "i801_smbus", "16", 11393},
		"shared line, first device":     {"interrupts-x86.txt", "ehci_hcd:usb1", "16", 11393},
		"named line without device":     {"interrupts-x86.txt", "LOC", "LOC", 1504224 + 1418866},
		"missing":                       {"interrupts-x86.txt", "2184200.usb", "", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := parseInterrupts(readTestdata(t, tc.file), tc.name)
			if tc.label == "" {
				if err == nil {
					t.Fatalf("found %+v, want an error", c)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.label != tc.label || c.total != tc.total {
				t.Errorf("got %+v, want label %s total %d", c, tc.label, tc.total)
			}
		})
	}
}

func TestParseStat(t *testing.T) {
	a, err := parseStat(readTestdata(t, "stat-before.txt"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseStat(readTestdata(t, "stat-after.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got := b.sub(a)
	want := CPUTimes{User: 0.13, System: 1.11, IRQ: 0.44, SoftIRQ: 0.34, Idle: 2.66 + 3.81}
	want.Total = want.User + want.System + want.IRQ + want.SoftIRQ + want.Idle
	for _, f := range []struct {
		name      string
		got, want float64
	}{{"user", got.User, want.User}, {"system", got.System, want.System}, {"irq", got.IRQ, want.IRQ}, {"softirq", got.SoftIRQ, want.SoftIRQ}, {"idle", got.Idle, want.Idle}, {"total", got.Total, want.Total}} {
		if !near(f.got, f.want) {
			t.Errorf("%s = %v, want %v", f.name, f.got, f.want)
		}
	}
	if _, err := parseStat([]byte("intr 1 2 3\n")); err == nil {
		t.Error("no cpu line: want an error")
	}
}

func TestParseTrace(t *testing.T) {
	h := parseTrace(readTestdata(t, "trace-irq.txt"), 32)
	// 12 us on CPU0, 9 us on CPU1, 24 us on CPU0 with another IRQ's
	// events between; a lone exit is ignored.
	if h.events != 3 || !near(h.avgUS(), 15) || !near(h.maxUS, 24) {
		t.Errorf("got %+v, want 3 events, avg 15 us, max 24 us", h)
	}
	if h := parseTrace(readTestdata(t, "trace-irq.txt"), 29); h.events != 1 || !near(h.maxUS, 11) {
		t.Errorf("irq 29: got %+v", h)
	}
}

// The accountant reads a proc root given to it; here the test changes
// the files between the samples.
func TestAccountantWindow(t *testing.T) {
	root := t.TempDir()
	put := func(name, file string) {
		if err := os.WriteFile(filepath.Join(root, name), readTestdata(t, file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put("interrupts", "interrupts-x86.txt")
	put("stat", "stat-before.txt")
	a := newAccountant(Env{IRQ: "ehci_hcd:usb2", ProcRoot: root, NoTrace: true})
	defer a.close()
	if len(a.notes) != 0 {
		t.Fatalf("notes: %q", a.notes)
	}
	s := a.begin()
	after := strings.Replace(string(readTestdata(t, "interrupts-x86.txt")), "  23:         44          5", "  23:        1068          5", 1)
	if err := os.WriteFile(filepath.Join(root, "interrupts"), []byte(after), 0o644); err != nil {
		t.Fatal(err)
	}
	put("stat", "stat-after.txt")
	w := a.end(s, 2<<20)
	var r Run
	w.apply(&r)
	if r.IRQs != 1024 || r.IRQsPerMiB != 512 || r.IRQsPerSec <= 0 {
		t.Errorf("irqs %d, per MiB %v, per second %v; want 1024, 512, > 0", r.IRQs, r.IRQsPerMiB, r.IRQsPerSec)
	}
	if !near(r.CPU.System, 1.11) {
		t.Errorf("cpu %+v", r.CPU)
	}
	sim := Run{Simulated: true, IRQs: 7}
	w.apply(&sim)
	if sim.IRQs != 7 || sim.CPU.System != 0 {
		t.Errorf("a simulated run took the machine's accounting: %+v", sim)
	}
}

func TestAccountantNotes(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "interrupts"), readTestdata(t, "interrupts-x86.txt"), 0o644)
	os.WriteFile(filepath.Join(root, "stat"), readTestdata(t, "stat-before.txt"), 0o644)
	for name, tc := range map[string]struct {
		env  Env
		want string
	}{
		"no line known": {Env{ProcRoot: root}, "no controller interrupt line known"},
		"line missing":  {Env{ProcRoot: root, IRQ: "2184200.usb"}, "interrupt line 2184200.usb is not in /proc/interrupts"},
		"no trace root": {Env{ProcRoot: root, IRQ: "16", TraceRoot: filepath.Join(root, "nowhere")}, "no interrupt handler time"},
	} {
		t.Run(name, func(t *testing.T) {
			a := newAccountant(tc.env)
			defer a.close()
			if !strings.Contains(strings.Join(a.notes, "\n"), tc.want) {
				t.Errorf("notes %q, want one containing %q", a.notes, tc.want)
			}
		})
	}
}

// TestTraceLive times the handler of a real interrupt line where the
// machine allows (root, tracefs mounted).
func TestTraceLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	data, err := os.ReadFile("/proc/interrupts")
	if err != nil {
		t.Skip(err)
	}
	// The local timer's line is not traced by irq_handler_*; take the
	// busiest numbered line instead.
	var best string
	var most uint64
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		label := strings.TrimSuffix(f[0], ":")
		c, err := parseInterrupts(data, label)
		if err == nil && c.total > most && strings.Trim(label, "0123456789") == "" {
			best, most = label, c.total
		}
	}
	if best == "" {
		t.Skip("no numbered interrupt line")
	}
	a := newAccountant(Env{IRQ: best})
	defer a.close()
	if a.tr == nil {
		t.Skipf("no tracing here: %q", a.notes)
	}
	s := a.begin()
	time.Sleep(200 * time.Millisecond) // let some interrupts happen
	w := a.end(s, 0)
	t.Logf("irq %s: %d interrupts, %d handler runs, avg %.1f us, max %.1f us", best, w.irqs, w.events, w.avgUS, w.maxUS)
	if _, err := os.Stat(a.tr.dir); err != nil {
		t.Fatalf("trace instance: %v", err)
	}
	a.close()
	if _, err := os.Stat(a.tr.dir); err == nil {
		t.Errorf("trace instance %s left behind", a.tr.dir)
	}
	a.tr = nil
}

func FuzzProcInterrupts(f *testing.F) {
	for _, name := range []string{"interrupts-imx6q.txt", "interrupts-x86.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, "2184200.usb")
	}
	f.Add([]byte("CPU0\n 1: 99999999999999999999999 x\n"), "1")
	f.Fuzz(func(t *testing.T, b []byte, name string) {
		parseInterrupts(b, name)
		parseStat(b)
		parseTrace(b, 1)
	})
}

// TestAccountantNoteOnce: a note the accountant already has is not added
// again (each run's failure to time the handler says the same).
func TestAccountantNoteOnce(t *testing.T) {
	a := newAccountant(Env{ProcRoot: t.TempDir(), NoTrace: true})
	n := len(a.notes)
	a.note("interrupt handler time: gone")
	a.note("interrupt handler time: gone")
	a.note("removing the trace instance: gone")
	if len(a.notes) != n+2 || a.notes[n] != "interrupt handler time: gone" {
		t.Errorf("notes %q: want the two notes once each after the first %d", a.notes, n)
	}
}
