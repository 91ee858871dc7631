package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// LoadOptions say how to make what a results file does not hold.
type LoadOptions struct {
	// Decide ranks the results read from path and makes the device-tree
	// fragment (valid dts) and kernel parameters of its verdict:
	// `citune report` passes the code of `citune dts --results`, so that
	// both print the same, and each file is ranked once. Without it the
	// file is ranked with every setting taken as permanent and the
	// report has no fragment.
	Decide func(path string, res *results.Results) (rk rank.Ranking, fragment, kernelParams string, err error)
}

// Load reads and summarises one results file.
func Load(path string, opt LoadOptions) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, opt)
}

// Parse summarises the results file data, read from name.
func Parse(name string, data []byte, opt LoadOptions) (*Sweep, error) {
	warnings, err := check(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	res, err := results.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var rk rank.Ranking
	var frag, params, dtsErr string
	err = errors.New("not made here (run citune dts --results " + name + ")")
	if opt.Decide != nil {
		rk, frag, params, err = opt.Decide(name, res)
	}
	if err != nil {
		// No fragment: ranked here, every setting taken as permanent.
		dtsErr = err.Error()
		rk = res.Rank(rank.Policy{MinGainPct: res.Header.Plan.MinGainPct()})
	}
	s := summarise(res, rk)
	s.File = name
	s.Label = tail(name, 1)
	s.Warnings = append(warnings, s.Warnings...)
	if m := res.Header.SimulatedMark(); m != "" {
		// First, in every format: a simulated sweep says so at its top.
		s.Warnings = append([]string{m}, s.Warnings...)
	}
	switch {
	case s.Winner() == nil:
		s.DTSErr = "no point was ranked: nothing to make permanent"
	case dtsErr != "":
		s.DTSErr = dtsErr
	default:
		s.DTS, s.KernelParams = frag, params
	}
	return s, nil
}

// check finds what results.Read would report obscurely or not at all: an
// empty file, a file of another kind, a damaged line, a header cut off,
// and a last line left incomplete (reported, not an error).
func check(data []byte) (warnings []string, err error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("empty: not a citune sweep results file, or the sweep stopped before it wrote its header")
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if n := len(lines); n > 0 && len(lines[n-1]) == 0 {
		lines = lines[:n-1]
	}
	cut := !bytes.HasSuffix(data, []byte("\n"))
	first := bytes.TrimSpace(lines[0])
	var head struct {
		Type    string `json:"type"`
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if jerr := json.Unmarshal(first, &head); jerr != nil {
		if bytes.HasPrefix(first, []byte(`{"type":"header"`)) {
			if cut && len(lines) == 1 {
				return nil, fmt.Errorf("truncated: the file ends inside its header record (%d bytes); the sweep was killed before it measured anything", len(data))
			}
			return nil, fmt.Errorf("damaged: the header record (line 1) is incomplete: %v", jerr)
		}
		return nil, fmt.Errorf("not a citune sweep results file: line 1 is not a JSON record (it starts %q)", preview(first))
	}
	switch {
	case head.Type != results.TypeHeader && head.Format != results.Format:
		return nil, fmt.Errorf("not a citune sweep results file: line 1 is JSON but not a sweep header (no \"format\": %q; `citune sweep --out` writes them)", results.Format)
	case head.Format != results.Format:
		return nil, fmt.Errorf("not a citune sweep results file: its header says format %q, not %q", head.Format, results.Format)
	case !results.Readable(head.Version):
		return nil, fmt.Errorf("results file version %d: this citune reads %s", head.Version, results.VersionsRead)
	}
	for i, l := range lines {
		last := i == len(lines)-1
		l = bytes.TrimSpace(l)
		if len(l) == 0 || (last && cut) {
			continue
		}
		if !json.Valid(l) {
			return nil, fmt.Errorf("damaged: line %d is not a complete JSON record (it starts %q); a results file is only ever appended to, whole lines at a time", i+1, preview(l))
		}
	}
	if cut {
		warnings = append(warnings, fmt.Sprintf("the last line (%d) is cut off, as a crash or kill -9 while writing leaves it; it was left out", len(lines)))
	}
	return warnings, nil
}

func preview(b []byte) string {
	s := string(b)
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// acc accumulates a point's counted runs.
type acc struct {
	rates, ips, ipm, cpuMiB []float64
	busy, total             float64
	// The handler's time: the sum of its averages weighted by their
	// events, the events, the maximum.
	hSum, hEvents, hMax float64
}

func (a *acc) add(r results.Measurement) {
	a.rates = append(a.rates, r.Rate)
	if r.IRQsPerSec > 0 {
		a.ips = append(a.ips, r.IRQsPerSec)
	} else if r.IRQs > 0 && r.Elapsed > 0 {
		a.ips = append(a.ips, float64(r.IRQs)/r.Elapsed.Seconds())
	}
	if x, ok := r.PerMiBIRQs(); ok && x > 0 {
		a.ipm = append(a.ipm, x)
	}
	if x, ok := r.PerMiBCPU(); ok {
		a.cpuMiB = append(a.cpuMiB, x)
	}
	if r.CPU.Total > 0 {
		a.busy += r.CPU.Busy()
		a.total += r.CPU.Total
	}
	if r.HandlerAvgUS > 0 || r.HandlerEvents > 0 {
		w := float64(r.HandlerEvents)
		if w == 0 {
			w = 1
		}
		a.hSum += r.HandlerAvgUS * w
		a.hEvents += w
		a.hMax = math.Max(a.hMax, r.HandlerMaxUS)
	}
}

func (a *acc) fill(p *Point) {
	p.Rates = a.rates
	if len(a.rates) > 0 {
		p.Median = rank.Median(a.rates)
		p.Min, p.Max = slices.Min(a.rates), slices.Max(a.rates)
	}
	med := func(xs []float64) Num {
		if len(xs) == 0 {
			return Num{}
		}
		return num(rank.Median(xs), true)
	}
	p.IRQsPerSec, p.IRQsPerMiB, p.CPUPerMiB = med(a.ips), med(a.ipm), med(a.cpuMiB)
	if a.total > 0 {
		p.CPUPct = num(a.busy/a.total*100, true)
	}
	if a.hEvents > 0 {
		p.HandlerAvgUS = num(a.hSum/a.hEvents, true)
		p.HandlerMaxUS = num(a.hMax, a.hMax > 0)
	}
}

func counted(r results.RunRecord) bool {
	return !r.Screen && results.Counts(r)
}

// summarise ranks the points as the sweep does and adds what the runs say.
func summarise(res *results.Results, rk rank.Ranking) *Sweep {
	h := res.Header
	s := &Sweep{Header: h, Axes: axesOf(h), BoardName: h.Board.String(),
		Sessions: res.Sessions(), ProbeRuns: res.ProbeRuns(), Planned: len(h.Points)}
	accs, base := s.countRuns(res)
	s.baseline(rk, base, h.Originals)
	notes := map[string]string{}
	for _, pi := range h.Points {
		notes[pi.Key] = pi.Note
	}
	s.ranked(rk, accs, notes)
	s.Verdict = rk.Verdict
	s.excluded(rk, accs, notes)
	s.missing(h.Points)
	s.inProgress(res)
	s.lastState(res)
	s.modelNotes(res)
	return s
}

// countRuns gathers the counted runs per point (and the baseline's in
// base) from the closed visits whose status was ok, in visit order, and
// takes the unit from the first runs that name one.
func (s *Sweep) countRuns(res *results.Results) (accs map[string]*acc, base *acc) {
	accs = map[string]*acc{}
	base = &acc{}
	bad := map[string]bool{}
	// screened are a point's screening runs, counted once a later visit
	// admits them (PointRecord.ScreenAdmitted), as results.Store does.
	screened := map[string][]results.Measurement{}
	for _, v := range res.VisitsInOrder() {
		if s.Unit == "" {
			for _, r := range v.Runs {
				if r.Run.Unit != "" {
					s.Unit = r.Run.Unit
				}
			}
		}
		a := base
		if !v.Point.Baseline {
			if bad[v.Point.Point] {
				continue
			}
			if v.Point.Status != rank.StatusOK {
				bad[v.Point.Point] = true
				continue
			}
			a = accs[v.Point.Point]
			if a == nil {
				a = &acc{}
				accs[v.Point.Point] = a
			}
		} else if v.Point.Status != rank.StatusOK {
			continue
		}
		k := v.Point.Point
		if sc := screened[k]; v.Point.ScreenAdmitted && !v.Point.Baseline {
			for _, m := range sc {
				a.add(m)
			}
			delete(screened, k)
		}
		for _, r := range v.Runs {
			switch {
			case counted(r):
				a.add(r.Run)
			case r.Screen && !v.Point.Baseline:
				if r.Screen = false; counted(r) {
					screened[k] = append(screened[k], r.Run)
				}
			}
		}
	}
	return accs, base
}

// baseline fills in the baseline point, warning of a drift of 2 % or more.
func (s *Sweep) baseline(rk rank.Ranking, base *acc, originals map[string]string) {
	s.DriftPct = rk.Baseline.DriftPct
	s.BaselineVisits = rk.Baseline.Visits
	if rk.Baseline.Runs == 0 {
		return
	}
	b := &Point{Key: results.BaselineKey, Label: "baseline", Settings: originals, Baseline: true, Status: rank.StatusOK}
	base.fill(b)
	s.Baseline = b
	if len(rk.Baseline.Visits) >= 2 && math.Abs(rk.Baseline.DriftPct) >= 2 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the baseline drifted %+.1f %% between its first and last measurement: the system changed during the sweep, differences of that size are not the settings' doing", rk.Baseline.DriftPct))
	}
}

// ranked fills in the ranked points, best first.
func (s *Sweep) ranked(rk rank.Ranking, accs map[string]*acc, notes map[string]string) {
	for _, r := range rk.Ranked {
		p := &Point{Key: r.Key, Label: s.label(r.Settings), Settings: r.Settings, Ignored: r.Ignored, Rank: r.Rank, Tied: r.Tied,
			Original: r.Original, Blocked: r.Blocked, Status: rank.StatusOK, Note: notes[r.Key]}
		if a := accs[r.Key]; a != nil {
			a.fill(p)
		}
		p.Median = r.Median
		if c := r.VsBaseline; c != nil && c.Valid() {
			p.Vs = c
		}
		s.Ranked = append(s.Ranked, p)
	}
}

// excluded fills in the points left out of the ranking: the excluded
// (corrupt, not held, failed; in that order, then by label) and those
// the adaptive race eliminated (best median first).
func (s *Sweep) excluded(rk rank.Ranking, accs map[string]*acc, notes map[string]string) {
	for _, x := range rk.Excluded {
		p := &Point{Key: x.Key, Label: s.label(x.Settings), Settings: x.Settings, Status: x.Status, Reason: x.Reason, Changed: x.Changed, Note: notes[x.Key]}
		if x.Status != rank.StatusEliminated {
			s.Excluded = append(s.Excluded, p)
			continue
		}
		// The adaptive race's dropped points: their runs are good, there
		// are just fewer of them.
		if a := accs[x.Key]; a != nil {
			a.fill(p)
		}
		if c := x.VsBaseline; c != nil && c.Valid() {
			p.Vs = c
		}
		p.Blocked = x.Blocked
		s.Eliminated = append(s.Eliminated, p)
	}
	order := map[rank.Status]int{rank.StatusCorrupt: 0, rank.StatusNotHeld: 1, rank.StatusFailed: 2}
	slices.SortStableFunc(s.Excluded, func(a, b *Point) int {
		return cmp.Or(cmp.Compare(order[a.Status], order[b.Status]), strings.Compare(a.Label, b.Label))
	})
	sort.SliceStable(s.Eliminated, func(i, j int) bool { return s.Eliminated[i].Median > s.Eliminated[j].Median })
}

// missing lists the points planned but not finished.
func (s *Sweep) missing(planned []results.PointInfo) {
	done := map[string]bool{}
	for _, p := range s.all() {
		done[p.Key] = true
	}
	for _, pi := range planned {
		if !done[pi.Key] {
			s.Missing = append(s.Missing, s.label(pi.Settings))
		}
	}
}

// inProgress names the last visit when it has runs but no point record.
func (s *Sweep) inProgress(res *results.Results) {
	n := len(res.Runs)
	if n == 0 {
		return
	}
	last := res.Runs[n-1]
	for _, p := range res.Points {
		if p.Session == last.Session && p.Visit == last.Visit {
			return
		}
	}
	runs := count(res.Runs, func(r results.RunRecord) bool { return r.Session == last.Session && r.Visit == last.Visit })
	name := "the baseline"
	if !last.Baseline {
		name = last.Point
		for _, pi := range res.Header.Points {
			if pi.Key == last.Point {
				name = s.label(pi.Settings)
			}
		}
	}
	s.InProgress = fmt.Sprintf("%s (%d run%s recorded, not counted)", name, runs, plural(runs))
}

// droppedBy is the eliminated points' title and why they are not ranked.
func (s *Sweep) droppedBy() (title, why string) {
	if s.Plan.Mode == plan.ModeModel {
		return "not confirmed by the model search", "Screened only, predicted below the top set the model confirmed (or not permanent); not ranked."
	}
	return "dropped by the adaptive race", "Clearly slower than its leader; fewer runs, not ranked."
}

// modelNotes adds a model-mode sweep's last fit to the notes; once the
// sweep is complete the points it never measured are its design's
// choice, counted in a note, not listed as missing.
func (s *Sweep) modelNotes(res *results.Results) {
	ms := res.Models()
	if len(ms) == 0 {
		return
	}
	s.Notes = append(s.Notes, ms[len(ms)-1].String())
	if s.State == results.StatusComplete && len(s.Missing) > 0 && ms[len(ms)-1].Fallback == "" {
		s.Notes = append(s.Notes, fmt.Sprintf("%d of the %d points not measured: the model predicted them below its top set", len(s.Missing), s.Planned))
		s.Missing = nil
	}
}

// lastState is the last session's state, warning of a restore that failed.
func (s *Sweep) lastState(res *results.Results) {
	// The last session's end decides (an earlier one killed with -9
	// has none, and a resume finished the sweep).
	if len(res.Ends) == 0 || res.Ends[len(res.Ends)-1].Session < res.Sessions() {
		s.State = results.StatusUnfinished
		s.StateDetail = "no end record: the sweep was killed, or is still running"
		return
	}
	e := res.Ends[len(res.Ends)-1]
	s.State = e.Status
	s.StateDetail = e.Error
	if !e.Restored && e.RestoreError != "" {
		s.Warnings = append(s.Warnings, "the original settings were not restored at the end: "+e.RestoreError+" (run `citune restore`)")
	}
	if e.OutOfBudget > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the adaptive race's budget (%d probe runs, of the grid's %d) ran out with %d point%s still racing: ranked on the runs they had",
			e.Budget, e.GridRuns, e.OutOfBudget, plural(e.OutOfBudget)))
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// axesOf lists the plan's axes with short labels (unique among them).
func axesOf(h results.Header) []Axis {
	var axes []Axis
	count := map[string]int{}
	for _, a := range h.Plan.Axes {
		ax := Axis{Kind: string(a.Kind), Name: a.Name, Values: a.Values, Original: h.Originals[a.Name]}
		switch a.Kind {
		case plan.KindRegister:
			ax.Label = a.Name[strings.Index(a.Name, ".")+1:] // the field
		case plan.KindFile:
			ax.Label = filepath.Base(a.Name)
		default:
			ax.Label = a.Name
		}
		count[ax.Label]++
		axes = append(axes, ax)
	}
	for i := range axes {
		if count[axes[i].Label] > 1 {
			axes[i].Label = axes[i].Name
		}
	}
	return axes
}

// label renders settings in plan order with the axes' short names.
func (s *Sweep) label(set map[string]string) string {
	var out []string
	seen := map[string]bool{}
	for _, a := range s.Axes {
		if v, ok := set[a.Name]; ok {
			out = append(out, a.Label+"="+v)
			seen[a.Name] = true
		}
	}
	var rest []string
	for k, v := range set {
		if !seen[k] {
			rest = append(rest, k+"="+v)
		}
	}
	sort.Strings(rest)
	return strings.Join(append(out, rest...), " ")
}
