package simmodel

import (
	"math"
	"math/rand/v2"
	"time"
)

// Reload is the time one reload of the driver stack takes on a board, up
// to the block device being back (README.md, term 10): fitted to the
// emulated i.MX6Q board, one figure for every SoC.
type Reload struct {
	// Unload is rmmod of the stack; Load modprobe of it (the
	// controller's probe included); Enumerate the attached disk's
	// enumeration up to usb-storage binding it; Scan the SCSI scan and
	// sd attaching the disk after DelayUse.
	Unload, Load, Enumerate, Scan time.Duration
	// DelayUse is usb-storage's delay_use: it waits this long before it
	// scans a new device (1 s by default, drivers/usb/storage/usb.c).
	DelayUse time.Duration
	// Spread is the log-normal spread of the variable parts (all but
	// DelayUse); a draw is clipped at ±ReloadClip spreads.
	Spread float64
}

// ReloadClip bounds a reload time's draw, in spreads either side.
const ReloadClip = 2.5

// DefaultReload is the reload of the emulated board's stack (README.md):
// about 3.3 s, between 2.6 s and 4.4 s.
var DefaultReload = Reload{Unload: 700 * time.Millisecond, Load: 650 * time.Millisecond,
	Enumerate: 750 * time.Millisecond, Scan: 200 * time.Millisecond, DelayUse: time.Second, Spread: 0.15}

// variable is the part of the reload that varies from one to the next.
func (r Reload) variable() time.Duration { return r.Unload + r.Load + r.Enumerate + r.Scan }

// Nominal is the reload time without noise (the median of the draws),
// what a plan's estimate counts per reload.
func (r Reload) Nominal() time.Duration { return r.variable() + r.DelayUse }

// Range is the least and the most a draw can give (the bounds the probe's
// and the sweep's tests hold the draws to).
func (r Reload) Range() (lo, hi time.Duration) {
	f := math.Exp(ReloadClip * r.Spread)
	v := float64(r.variable())
	return r.DelayUse + time.Duration(v/f), r.DelayUse + time.Duration(v*f)
}

// Time draws one reload's time from rng (seeded by the caller); without
// rng it is Nominal.
func (r Reload) Time(rng *rand.Rand) time.Duration {
	if rng == nil || r.Spread <= 0 {
		return r.Nominal()
	}
	z := math.Max(-ReloadClip, math.Min(ReloadClip, rng.NormFloat64()))
	return r.DelayUse + time.Duration(float64(r.variable())*math.Exp(r.Spread*z))
}
