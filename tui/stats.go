package tui

import (
	"fmt"
	"slices"

	"github.com/citune/citune/sweep/rank"
)

// The statistics are the sweep's: the TUI, sweep and report agree.

// fmtSpread renders the spread of xs: half their range relative to their
// median, in percent; or "1 run".
func fmtSpread(xs []float64) string {
	switch len(xs) {
	case 0:
		return "--"
	case 1:
		return "1 run"
	}
	lo, hi := slices.Min(xs), slices.Max(xs)
	spread := 0.0
	if m := rank.Median(xs); m != 0 {
		spread = (hi - lo) / 2 / m * 100
	}
	return fmt.Sprintf("+-%.1f%%", spread)
}

// fmtRate renders rate r of unit as `citune sweep` and `report` do.
func (s *shared) fmtRate(r float64, unit string) string {
	return s.cfg.ByteUnit.Rate(r, unit)
}

// amount is what interrupts and CPU are counted per (MiB, MB, Mbit).
func (s *shared) amount() string { return s.cfg.ByteUnit.Amount() }

// compare is B against A, the sweep's comparison.
func compare(a, b []float64) rank.Comparison {
	return rank.Compare(b, a)
}
