package report

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/textwrap"
)

// WriteCSV writes one row per point (the baseline first) of every file:
// the file's board and kernel, the point's settings (a column per axis),
// status, rates, the difference to the baseline with its interval,
// interrupts, handler time and CPU. Empty cells were not measured.
func WriteCSV(w io.Writer, ss []*Sweep) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	names, head := csvHead(ss)
	cw := csv.NewWriter(w)
	if err := cw.Write(escapeCells(head)); err != nil {
		return err
	}
	for _, s := range ss {
		for _, p := range s.withBaseline(s.all()) {
			if err := cw.Write(escapeCells(csvRecord(s, p, names))); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// escapeCells neutralises escape sequences a results file from elsewhere
// carries (kernel, probe, axis names and values): a CSV goes to terminals
// (`--csv -`) as often as to spreadsheets.
func escapeCells(rec []string) []string {
	for i, c := range rec {
		rec[i] = textwrap.Escape(c)
	}
	return rec
}

// csvHead returns the axis names of the files (the union, by name) and
// the header line; axis columns have short labels where they stay unique.
func csvHead(ss []*Sweep) (names, head []string) {
	label := map[string]string{}
	count := map[string]int{}
	for _, s := range ss {
		for _, a := range s.Axes {
			if _, ok := label[a.Name]; ok {
				continue
			}
			names = append(names, a.Name)
			label[a.Name] = a.Label
			count[a.Label]++
		}
	}
	head = []string{"file", "profile", "controller", "kernel", "simulated", "probe", "point", "baseline", "rank", "tied", "status", "reason"}
	for _, n := range names {
		if count[label[n]] > 1 {
			head = append(head, n)
		} else {
			head = append(head, label[n])
		}
	}
	amount := strings.ToLower(ss[0].Amount())
	head = append(head, "runs", "median", "min", "max", "unit", "diff_pct", "ci_lo_pct", "ci_hi_pct", "significant",
		"irqs_per_s", "irqs_per_"+amount, "handler_avg_us", "handler_max_us", "cpu_pct", "cpu_ms_per_"+amount, "change", "verdict")
	return names, head
}

// csvRecord is point p as a CSV line, with its settings of the axes names.
func csvRecord(s *Sweep, p *Point, names []string) []string {
	g := func(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
	n := func(x Num, prec int) string {
		if !x.OK {
			return ""
		}
		return g(x.V, prec)
	}
	rank := ""
	if p.Rank > 0 {
		rank = strconv.Itoa(p.Rank)
	}
	kernel := s.Kernel
	if s.Simulated() && !s.RealProbe() {
		kernel = "" // older files name the host's: no part in the figures
	}
	rec := []string{s.File, s.Profile, s.Controller, kernel, strconv.FormatBool(s.Simulated()), s.Probe, p.Label, strconv.FormatBool(p.Baseline), rank,
		strconv.FormatBool(p.Tied), string(p.Status), p.why()}
	rec = append(rec, mapf(names, func(n string) string { return p.Settings[n] })...)
	if p.Runs() > 0 {
		rec = append(rec, strconv.Itoa(p.Runs()), g(s.RateValue(p.Median), 3), g(s.RateValue(p.Min), 3), g(s.RateValue(p.Max), 3), s.RateUnit())
	} else {
		rec = append(rec, "0", "", "", "", s.RateUnit())
	}
	change := ""
	if d := p.Vs; d != nil {
		lo, hi, sig := "", "", ""
		if d.HasCI() {
			lo, hi, sig = g(d.Lo, 2), g(d.Hi, 2), strconv.FormatBool(d.Significant)
		}
		rec = append(rec, g(d.Pct, 2), lo, hi, sig)
		change = d.Change
	} else {
		rec = append(rec, "", "", "", "")
	}
	return append(rec, n(p.IRQsPerSec, 0), n(s.Per(p.IRQsPerMiB), 1), n(p.HandlerAvgUS, 2), n(p.HandlerMaxUS, 2), n(p.CPUPct, 2), n(s.Per(p.CPUPerMiB), 3),
		change, csvVerdict(s, p))
}

// csvVerdict is the point's part in the verdict: "recommended" (apply),
// "best on the bench" (faster, cannot be made permanent), "original
// settings" (the kept baseline, or the original settings as a point).
func csvVerdict(s *Sweep, p *Point) string {
	v := s.Verdict
	switch {
	case v.Kind == rank.VerdictApply && !p.Baseline && p.Key == v.Point:
		return "recommended"
	case v.Bench != nil && !p.Baseline && p.Key == v.Bench.Point:
		return "best on the bench"
	case p.Baseline && v.Kind == rank.VerdictKeep:
		return "kept"
	case p.Original:
		return "original settings"
	}
	return ""
}
