// Package units is the one place sizes and rates are parsed and
// formatted: byte counts ("64MiB", the form --size and --bs accept),
// byte rates in the unit --units picks (MiB/s, or the SI MB/s and Mbit/s
// that dd, hdparm -t's MB/sec aside, and iperf3 print), the figures per
// amount moved that follow the same unit (irq/MiB, ms CPU/MB), and a rate
// for machines (Rate). Standard library only.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Size is a byte count. String renders it with a binary unit in the form
// ParseSize reads back: "512B", "64MiB", "1.5GiB".
type Size int64

func (n Size) String() string {
	const k = 1024
	if n < k && n > -k {
		return fmt.Sprintf("%dB", int64(n))
	}
	names := []string{"KiB", "MiB", "GiB", "TiB"}
	v, i := float64(n)/k, 0
	for math.Abs(v) >= k && i < len(names)-1 {
		v /= k
		i++
	}
	if v == math.Trunc(v) {
		return fmt.Sprintf("%d%s", int64(v), names[i])
	}
	return fmt.Sprintf("%.1f%s", v, names[i])
}

// ParseSize reads a byte count as dd does: a number with an optional
// suffix K, M, G, T (powers of 1024; also KiB, MiB, ...) or kB, MB, GB, TB
// (powers of 1000). "all" is -1.
func ParseSize(s string) (int64, error) {
	if s == "all" {
		return -1, nil
	}
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	num, suffix := s[:i], s[i:]
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || num == "" {
		return 0, fmt.Errorf("%q is not a size (like 4096, 512K, 1M, 2G)", s)
	}
	mult := map[string]float64{
		"": 1, "B": 1,
		"K": 1 << 10, "k": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20,
		"G": 1 << 30, "GiB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40,
		"kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	}[suffix]
	if mult == 0 {
		return 0, fmt.Errorf("%q: unknown size suffix %q (K, M, G, T or kB, MB, GB, TB)", s, suffix)
	}
	b := v * mult
	if b != math.Trunc(b) || b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return int64(b), nil
}

var rateFactors = map[string]float64{
	"b/s": 1, "bytes/s": 1, "byte/s": 1,
	"kb/s": 1e3, "mb/s": 1e6, "gb/s": 1e9,
	"kib/s": 1 << 10, "mib/s": 1 << 20, "gib/s": 1 << 30,
	"bit/s": 1.0 / 8, "bps": 1.0 / 8, "bits/s": 1.0 / 8,
	"kbit/s": 1e3 / 8, "kbps": 1e3 / 8,
	"mbit/s": 1e6 / 8, "mbps": 1e6 / 8,
	"gbit/s": 1e9 / 8, "gbps": 1e9 / 8,
}

// RateFactor is the size of a rate unit a tool prints in bytes per
// second (B/s, kB/s, MB/s, GB/s decimal; KiB/s, MiB/s, GiB/s; bit/s,
// kbit/s, Mbit/s, Gbit/s, also bps, Mbps), case ignored, so "Mb/s" means
// megabytes and bits must be spelled "bit" or "bps". ok is false for a
// unit of its own (fps).
func RateFactor(name string) (f float64, ok bool) {
	f, ok = rateFactors[strings.ToLower(strings.TrimSpace(name))]
	return f, ok
}
