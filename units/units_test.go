package units_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/citune/citune/units"
)

// Sizes print in the form --size reads back, the unit glued on.
func TestSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0B", 512: "512B", 4096: "4KiB", 64 << 20: "64MiB",
		3 << 29: "1.5GiB", 12_900_000: "12.3MiB", 5 << 40: "5TiB", 2 << 50: "2048TiB"} {
		got := units.Size(n).String()
		if got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
		if back, err := units.ParseSize(got); n%1024 == 0 && (err != nil || back != n) {
			t.Errorf("ParseSize(%q) = %d, %v", got, back, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"4096": 4096, "512K": 512 << 10, "1M": 1 << 20, "2GiB": 2 << 30, "1MB": 1e6, "1.5k": 1536, "1.5M": 3 << 19, "2G": 2 << 30, "all": -1} {
		if got, err := units.ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "M", "1Q", "1.3", "x1", "0.1", "-1"} {
		if _, err := units.ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) gave no error", s)
		}
	}
}

func TestRateFactor(t *testing.T) {
	for s, want := range map[string]float64{"B/s": 1, "MB/s": 1e6, "MiB/s": 1 << 20, "Mb/s": 1e6, "Mbit/s": 1e6 / 8, " gbps ": 1e9 / 8} {
		if f, ok := units.RateFactor(s); !ok || f != want {
			t.Errorf("RateFactor(%q) = %v, %v; want %v", s, f, ok, want)
		}
	}
	if _, ok := units.RateFactor("fps"); ok {
		t.Error("fps is a byte rate")
	}
}

// Byte rates are shown in the unit asked for (MiB/s when it is unknown);
// a probe's own unit is shown as it is; tables with the unit in a heading
// get the same number and unit apart.
func TestDisplay(t *testing.T) {
	for _, c := range []struct {
		rate     float64
		unit     string
		display  units.Display
		want     string
		num      float64
		wantUnit string
	}{
		{32 << 20, "", units.MiBps, "32.00 MiB/s", 32, "MiB/s"},
		{32 << 20, "B/s", units.MBps, "33.55 MB/s", 33.554432, "MB/s"},
		{1e6, "", units.Mbitps, "8.00 Mbit/s", 8, "Mbit/s"},
		{1 << 20, "", "furlongs/s", "1.00 MiB/s", 1, "MiB/s"},
		{1 << 20, "", "", "1.00 MiB/s", 1, "MiB/s"},
		{59.94, "fps", units.MBps, "59.94 fps", 59.94, "fps"},
	} {
		d := c.display
		if got := d.Rate(c.rate, c.unit); got != c.want {
			t.Errorf("%q.Rate(%v, %q) = %q, want %q", d, c.rate, c.unit, got, c.want)
		}
		if got, u := d.In(c.rate, c.unit), d.Unit(c.unit); math.Abs(got-c.num) > 1e-9 || u != c.wantUnit {
			t.Errorf("%q.In, Unit(%v, %q) = %v %q", d, c.rate, c.unit, got, u)
		}
	}
}

// Figures per amount moved follow the display unit: interrupts per MiB
// become per MB (SI) or per Mbit.
func TestPer(t *testing.T) {
	for d, want := range map[units.Display][2]any{units.MiBps: {"MiB", 1000.0}, "": {"MiB", 1000.0},
		units.MBps: {"MB", 953.67431640625}, units.Mbitps: {"Mbit", 119.20928955078125}} {
		if d.Amount() != want[0] || math.Abs(d.Per(1000)-want[1].(float64)) > 1e-9 {
			t.Errorf("%q: Amount %q Per(1000) %v, want %v", d, d.Amount(), d.Per(1000), want)
		}
	}
}

// A rate for machines names its unit in its keys; a unit of its own
// comes with its value.
func TestRateOf(t *testing.T) {
	b, _ := json.Marshal(units.RateOf(1e6, "B/s"))
	if string(b) != `{"bytes_per_s":1000000,"mib_s":0.95367431640625,"mb_s":1,"mbit_s":8}` {
		t.Errorf("byte rate: %s", b)
	}
	b, _ = json.Marshal(units.RateOf(25, "fps"))
	if string(b) != `{"value":25,"unit":"fps"}` {
		t.Errorf("own unit: %s", b)
	}
}

func TestParseDisplay(t *testing.T) {
	for s, want := range map[string]units.Display{"": units.MiBps, "MiB/s": units.MiBps, "mb": units.MBps, "MBps": units.MBps, "Mbit/s": units.Mbitps, "mbitps": units.Mbitps} {
		if d, ok := units.ParseDisplay(s); !ok || d != want {
			t.Errorf("ParseDisplay(%q) = %q, %v", s, d, ok)
		}
	}
	if _, ok := units.ParseDisplay("GB/s"); ok {
		t.Error("GB/s accepted")
	}
}
