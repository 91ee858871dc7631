package report

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/units"
)

var errNoResults = errors.New("no results file given")

// Sweep is one results file, summarised for reporting.
type Sweep struct {
	// File is the path the results were read from; Label a short name
	// for side-by-side columns (unique among the files of a report).
	File, Label string
	// BoardName names the board (results.BoardID.String), or "".
	BoardName string

	// Header is the file's (Simulated, RealProbe: how it measured);
	// its Notes gain the model mode's last fit.
	results.Header
	Axes []Axis

	// State is a results.Status* (StatusUnfinished: no end record);
	// StateDetail says more.
	State, StateDetail string
	// Warnings are about the file (a cut-off last line) and the
	// measurements (baseline drift).
	Warnings []string
	// ProbeRuns counts every probe run recorded, warm-ups included;
	// Planned the plan's points.
	Sessions, ProbeRuns, Planned int
	// Missing are the labels of the points never finished.
	Missing []string
	// InProgress names the point whose visit was cut short, if any.
	InProgress string
	// Unit is the probe's unit ("" or "B/s" for bytes per second).
	Unit string

	Baseline *Point
	// Ranked are the ok points, best first; Excluded the points whose
	// numbers are not trusted (corrupt first, then not-held, then
	// failed); Eliminated the points the adaptive race dropped as
	// clearly slower than its leader (fewer runs, fastest first).
	Ranked, Excluded, Eliminated []*Point
	// Verdict is the ranking's decision.
	Verdict rank.Verdict
	// DriftPct is the baseline's last measurement against its first.
	DriftPct float64
	// BaselineVisits are the medians of each baseline measurement.
	BaselineVisits []float64

	// DTS is the winner's device-tree fragment and kernel parameters
	// (valid dts); DTSErr says why there is none.
	DTS, KernelParams, DTSErr string
	// ByteUnit is the unit byte rates are shown in (MiB/s by default).
	ByteUnit units.Display
}

// Axis is one swept setting: Name is REG.FIELD, module.param or a file
// path, Label the short name people read (ITC).
type Axis struct {
	Kind, Name, Label string
	Values            []string
	Original          string
}

// Point is a measured point (or the baseline).
type Point struct {
	// Label is "ITC=1 AHBBRST=0" in plan order, or "baseline".
	Key, Label string
	Settings   map[string]string // by axis name
	Ignored    []string
	Note       string
	// Original: the point's settings are the original ones (the noise
	// floor); Blocked names its changes that cannot be made permanent.
	Baseline, Original, Tied bool
	Blocked                  []string
	Rank                     int
	Status                   rank.Status
	Reason                   string
	Changed                  []string

	// Rates are the counted runs' rates (warm-ups, failed, not-held and
	// corrupt runs left out).
	Rates            []float64
	Median, Min, Max float64
	// Vs is the ranking's comparison with the baseline, or nil.
	Vs *rank.Comparison

	IRQsPerSec, IRQsPerMiB, HandlerAvgUS, HandlerMaxUS Num
	// CPUPct is the busy share of all CPUs' time during the runs;
	// CPUPerMiB busy CPU milliseconds per MiB moved.
	CPUPct, CPUPerMiB Num
}

// why is the point's reason with the settings that changed under it.
func (p *Point) why() string {
	if len(p.Changed) > 0 {
		return p.Reason + ": " + strings.Join(p.Changed, "; ")
	}
	return p.Reason
}

// Runs is the number of counted runs.
func (p *Point) Runs() int { return len(p.Rates) }

// pct is a signed percentage with one decimal, never "-0.0".
func pct(x float64) string {
	s := fmt.Sprintf("%+.1f", x)
	if s == "-0.0" {
		return "+0.0"
	}
	return s
}

// Num is a number that may not have been measured.
type Num struct {
	V  float64
	OK bool
}

func num(v float64, ok bool) Num {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Num{}
	}
	return Num{v, ok}
}

// Winner is the first ranked point, or nil.
func (s *Sweep) Winner() *Point {
	if len(s.Ranked) == 0 {
		return nil
	}
	return s.Ranked[0]
}

// winning is the point the charts and tables mark as the winner: the
// verdict's recommendation, or none where it keeps the original settings
// or decides nothing (the baseline is marked as the baseline either way).
func (s *Sweep) winning() *Point {
	if i := slices.IndexFunc(s.Ranked, func(p *Point) bool { return p.Key == s.Verdict.Point }); i >= 0 && s.Verdict.Kind == rank.VerdictApply {
		return s.Ranked[i]
	}
	return nil
}

// VerdictLines are the verdict's headline and details.
func (s *Sweep) VerdictLines() []string {
	return append([]string{s.Verdict.Headline()}, s.Verdict.DetailsIn(s.ByteUnit)...)
}

// Board describes the board: "imx6q usbh1 (usb@2184200)".
func (s *Sweep) Board() string {
	b := s.Profile + " " + s.Controller
	if s.Node != "" {
		b += " (" + s.Node + ")"
	}
	return b
}

// KernelText names what the sweep ran under: "kernel K", or the
// simulated controller (whose figures owe nothing to a kernel; older
// files name the host's kernel there, which is not shown).
func (s *Sweep) KernelText() string {
	switch {
	case s.RealProbe():
		return "SIMULATED controller, real probe on kernel " + cmp.Or(s.Kernel, "unknown")
	case s.Simulated():
		return "SIMULATED controller (no kernel)"
	}
	return "kernel " + cmp.Or(s.Kernel, "unknown")
}

// kernelCell is KernelText for a table cell or a legend.
func (s *Sweep) kernelCell() string {
	switch {
	case s.RealProbe():
		return "SIMULATED, real probe on " + cmp.Or(s.Kernel, "unknown")
	case s.Simulated():
		return "SIMULATED"
	}
	return cmp.Or(s.Kernel, "unknown")
}

// RateUnit is the unit rates are shown in.
func (s *Sweep) RateUnit() string { return s.ByteUnit.Unit(s.Unit) }

// Rate renders a rate in RateUnit without the unit.
func (s *Sweep) Rate(r float64) string {
	return fmt.Sprintf("%.2f", s.RateValue(r))
}

// RateValue converts a rate to RateUnit (Display.In).
func (s *Sweep) RateValue(r float64) float64 { return s.ByteUnit.In(r, s.Unit) }

// Amount is what figures per amount moved are per: MiB, MB or Mbit.
func (s *Sweep) Amount() string { return s.ByteUnit.Amount() }

// Per converts n, per MiB as the files hold it, to per Amount.
func (s *Sweep) Per(n Num) Num {
	if n.OK {
		n.V = s.ByteUnit.Per(n.V)
	}
	return n
}

// PlanString is "grid over ITC=1,8,64 × AHBBRST=0,2,3,7, 5 runs per point
// (1 warm-up)".
func (s *Sweep) PlanString() string {
	ax := mapf(s.Axes, func(a Axis) string { return a.Label + "=" + strings.Join(a.Values, ",") })
	p := fmt.Sprintf("%s over %s, %d runs per point", s.Plan.Mode, strings.Join(ax, " × "), s.Plan.Repeats)
	if s.Plan.Warmup > 0 {
		p += fmt.Sprintf(" (+%d warm-up)", s.Plan.Warmup)
	}
	return p
}

// Originals is "ITC=8 AHBBRST=2".
func (s *Sweep) Originals() string {
	return strings.Join(mapf(s.Axes, func(a Axis) string { return a.Label + "=" + a.Original }), " ")
}

// all are the points but the baseline: ranked, excluded, eliminated.
func (s *Sweep) all() []*Point {
	return append(append(append([]*Point{}, s.Ranked...), s.Excluded...), s.Eliminated...)
}

// measured are the points with counted runs: ranked, then eliminated.
func (s *Sweep) measured() []*Point {
	return append(append([]*Point{}, s.Ranked...), s.Eliminated...)
}

// notices are the labelled lines a report has before a file's points.
func (s *Sweep) notices() (out [][2]string) {
	for _, x := range s.Warnings {
		out = append(out, [2]string{"warning", x})
	}
	if s.InProgress != "" {
		out = append(out, [2]string{"cut short", s.InProgress})
	}
	if len(s.Missing) > 0 {
		out = append(out, [2]string{"not measured", strings.Join(s.Missing, "; ")})
	}
	return out
}

// Counts of the excluded points by status.
func (s *Sweep) Counts() (notHeld, corrupt, other int) {
	notHeld = count(s.Excluded, func(p *Point) bool { return p.Status == rank.StatusNotHeld })
	corrupt = count(s.Excluded, func(p *Point) bool { return p.Status == rank.StatusCorrupt })
	return notHeld, corrupt, len(s.Excluded) - notHeld - corrupt
}

// withBaseline is pts after the baseline, when there is one.
func (s *Sweep) withBaseline(pts []*Point) []*Point {
	if s.Baseline == nil {
		return pts
	}
	return append([]*Point{s.Baseline}, pts...)
}

func mapf[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

func count[T any](xs []T, f func(T) bool) (n int) {
	for _, x := range xs {
		if f(x) {
			n++
		}
	}
	return n
}

// uniqueLabels labels files by name, with the directories that tell them apart.
func uniqueLabels(ss []*Sweep) {
	for depth := 1; depth < 8; depth++ {
		seen := map[string]bool{}
		for _, s := range ss {
			s.Label = tail(s.File, depth)
			seen[s.Label] = true
		}
		if len(seen) == len(ss) {
			return // no two alike
		}
	}
	for i, s := range ss {
		s.Label = fmt.Sprintf("%d:%s", i+1, tail(s.File, 1))
	}
}

// tail is the last n elements of path, without the extension.
func tail(path string, n int) string {
	path = strings.TrimSuffix(path, filepath.Ext(path))
	parts := strings.Split(filepath.ToSlash(path), "/")
	if len(parts) > n {
		parts = parts[len(parts)-n:]
	}
	return strings.Join(parts, "/")
}

// Effect is one axis on its own: the rate at each of its values.
type Effect struct {
	Axis   Axis
	Values []EffectValue
	// Spread is the largest minus the smallest value's Pct (percentage
	// points of the baseline); the axes are sorted by it.
	Spread float64
	// How says how the values were summarised.
	How string
}

// EffectValue is the rate at one value of an axis.
type EffectValue struct {
	Value string
	// Points is the number of measured points with this value (ranked
	// or eliminated by the adaptive race); 0 with Baseline set means the
	// baseline stands for it (one factor at a time: the original value).
	Points   int
	Baseline bool
	// Median is the median of those points' medians, Pct it against
	// the baseline's median.
	Median, Pct            float64
	HasPct, Original, Best bool
}

// Effects summarises each axis on its own. A grid (or adaptive race)
// gives each value the median over every ranked point with that value,
// whatever the other axes were; one factor at a time gives each value
// the points that changed only that axis from the original settings,
// and the original value the baseline.
func (s *Sweep) Effects() []Effect {
	var out []Effect
	for _, a := range s.Axes {
		e := Effect{Axis: a, How: "median over the measured points with that value"}
		if s.Plan.Mode == plan.ModeOFAT {
			e.How = "the points that changed this axis alone; the original value is the baseline"
		}
		byVal := map[string][]float64{}
		for _, p := range s.measured() {
			v, ok := p.Settings[a.Name]
			if ok && len(p.Rates) > 0 && (s.Plan.Mode != plan.ModeOFAT || s.varies(p, a)) {
				byVal[v] = append(byVal[v], p.Median)
			}
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range a.Values {
			ev := EffectValue{Value: v, Original: v == a.Original}
			meds := byVal[v]
			switch {
			case len(meds) > 0:
				ev.Points = len(meds)
				ev.Median = rank.Median(meds)
			case s.Plan.Mode == plan.ModeOFAT && ev.Original && s.Baseline != nil:
				ev.Baseline = true
				ev.Median = s.Baseline.Median
			default:
				e.Values = append(e.Values, ev)
				continue
			}
			if s.Baseline != nil && s.Baseline.Median > 0 {
				ev.Pct = (ev.Median/s.Baseline.Median - 1) * 100
				ev.HasPct = true
				lo, hi = math.Min(lo, ev.Pct), math.Max(hi, ev.Pct)
			}
			e.Values = append(e.Values, ev)
		}
		best := -1
		for i, ev := range e.Values {
			if (ev.Points > 0 || ev.Baseline) && (best < 0 || ev.Median > e.Values[best].Median) {
				best = i
			}
		}
		if best >= 0 {
			e.Values[best].Best = true
		}
		if hi >= lo {
			e.Spread = hi - lo
		}
		out = append(out, e)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Spread > out[j].Spread })
	return out
}

// varies reports whether p changed axis a for its own sake, not as another
// axis's condition ("AHBBRST=0 so that TXPBURST takes effect").
func (s *Sweep) varies(p *Point, a Axis) bool {
	v := p.Settings[a.Name]
	return v != a.Original && !strings.Contains(p.Note, a.Label+"="+v+" so that")
}
