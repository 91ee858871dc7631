package units

import (
	"fmt"
	"strings"
)

// Display is a unit byte rates are shown in (--units): MiB/s, MB/s or
// Mbit/s. An empty or unknown Display is MiB/s.
type Display string

// The display units.
const (
	MiBps  Display = "MiB/s"
	MBps   Display = "MB/s"
	Mbitps Display = "Mbit/s"
)

// Displays are the display units with their size in bytes per second.
var Displays = map[Display]float64{MiBps: 1 << 20, MBps: 1e6, Mbitps: 1e6 / 8}

// amounts are the amounts moved that per-amount figures of a display use:
// interrupts and CPU per MiB, per MB (SI), per Mbit.
var amounts = map[Display]string{MiBps: "MiB", MBps: "MB", Mbitps: "Mbit"}

func (d Display) known() Display {
	if _, ok := Displays[d]; ok {
		return d
	}
	return MiBps
}

// IsByteRate says whether unit (a probe's: "" or "B/s" for bytes per
// second, or its own such as "fps") is a byte rate.
func IsByteRate(unit string) bool { return unit == "" || unit == "B/s" }

// Unit is the unit a rate of unit is shown in: d for a byte rate, else
// unit itself. Tables that carry the unit in a heading use it with In.
func (d Display) Unit(unit string) string {
	if !IsByteRate(unit) {
		return unit
	}
	return string(d.known())
}

// In is rate r of unit as a number in d.Unit(unit).
func (d Display) In(r float64, unit string) float64 {
	if !IsByteRate(unit) {
		return r
	}
	return r / Displays[d.known()]
}

// Rate renders rate r of unit: "31.25 MiB/s", "12.00 fps".
func (d Display) Rate(r float64, unit string) string {
	return fmt.Sprintf("%.2f %s", d.In(r, unit), d.Unit(unit))
}

// Amount is the amount per-amount figures are given per: MiB, MB, Mbit.
func (d Display) Amount() string { return amounts[d.known()] }

// Per converts a figure per MiB (irq/MiB, ms CPU/MiB, as results files
// record them) to a figure per d.Amount().
func (d Display) Per(perMiB float64) float64 {
	return perMiB * Displays[d.known()] / (1 << 20)
}

// Rate is a rate as the --json outputs give it: in bytes per second with
// the same in MiB/s, MB/s and Mbit/s, or, for a probe with a unit of its
// own, the value in that unit. The one place that converts a rate for
// machines (`citune probe --json`, `citune report --json`).
type Rate struct {
	BytesPerS *float64 `json:"bytes_per_s,omitempty"`
	MiBps     *float64 `json:"mib_s,omitempty"`
	MBps      *float64 `json:"mb_s,omitempty"`
	Mbitps    *float64 `json:"mbit_s,omitempty"`
	Value     *float64 `json:"value,omitempty"` // in Unit, a unit of its own
	Unit      string   `json:"unit,omitempty"`
}

// RateOf is v in unit ("" or "B/s" for bytes per second).
func RateOf(v float64, unit string) Rate {
	if !IsByteRate(unit) {
		return Rate{Value: &v, Unit: unit}
	}
	p := func(f float64) *float64 { return &f }
	return Rate{BytesPerS: p(v), MiBps: p(v / Displays[MiBps]), MBps: p(v / Displays[MBps]), Mbitps: p(v / Displays[Mbitps])}
}

// ParseDisplay reads a --units value: mib, mb, mbit, with or without /s
// or ps, any case; "" is MiB/s.
func ParseDisplay(s string) (Display, bool) {
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "/s"), "ps")) {
	case "", "mib":
		return MiBps, true
	case "mb":
		return MBps, true
	case "mbit":
		return Mbitps, true
	}
	return "", false
}
