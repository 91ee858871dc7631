package rank

import "testing"

// The SI units are the same rate: MB/s is 10^6 bytes per second, Mbit/s
// eight times that, MiB/s 2^20 bytes; a probe's own unit stays as it is.
func TestRateOf(t *testing.T) {
	for _, unit := range []string{"", "B/s"} {
		r := RateOf(31_250_000, unit)
		if r.Unit != "B/s" || r.Value != 31_250_000 || r.MBps == nil || *r.MBps != 31.25 || *r.Mbitps != 250 || *r.MiBps != 31_250_000.0/(1<<20) {
			t.Errorf("unit %q: %+v", unit, r)
		}
	}
	if r := RateOf(12, "fps"); r.Unit != "fps" || r.Value != 12 || r.MiBps != nil || r.MBps != nil || r.Mbitps != nil {
		t.Errorf("fps rate converted to bytes: %+v", r)
	}
}
