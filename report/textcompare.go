package report

// This file holds the text report of several sweeps side by side.

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/sweep/rank"
)

// compareRows is every point label of the files, in the first file's
// ranking order, then the others' new ones.
func compareRows(ss []*Sweep) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		for _, p := range append(s.measured(), s.Excluded...) {
			if !seen[p.Label] {
				seen[p.Label] = true
				out = append(out, p.Label)
			}
		}
	}
	return out
}

func byLabel(s *Sweep, label string) *Point {
	all := s.all()
	if i := slices.IndexFunc(all, func(p *Point) bool { return p.Label == label }); i >= 0 {
		return all[i]
	}
	return nil
}

// cell is one file's entry for a point: "28.7 +11.7 %".
func cell(s *Sweep, p *Point) string {
	switch {
	case p == nil:
		return "-"
	case p.Status == rank.StatusCorrupt:
		return "CORRUPT"
	case p.Status == rank.StatusEliminated && len(p.Rates) > 0:
		return s.Rate(p.Median) + " " + p.Vs.Short() + " elim."
	case p.Status != rank.StatusOK:
		return string(p.Status)
	}
	c := s.Rate(p.Median)
	if p.Vs != nil {
		c += " " + p.Vs.Short()
	}
	if p.Rank > 0 {
		c += " #" + strconv.Itoa(p.Rank)
	}
	return c
}

// summaryTable has a column per file: board, kernel, baseline, best.
func summaryTable(ss []*Sweep, o Options) (*table, error) {
	t := &table{head: append([]string{""}, mapf(ss, func(s *Sweep) string { return s.Label })...)}
	row := func(name string, f func(s *Sweep) string) { addRow(t, ss, name, f) }
	summarySweepRows(row)
	summaryWinnerRows(row, ss[0].Amount())
	for _, name := range o.Points {
		var err error
		row(name, func(s *Sweep) string {
			p, e := s.Find(name)
			if e != nil {
				if err == nil && !strings.Contains(e.Error(), "no such point") {
					err = e
				}
				return "-"
			}
			return cell(s, p)
		})
		if err != nil {
			return nil, err
		}
	}
	return t, nil
}

// summaryRow adds a row of the summary table with f's cell per sweep.
type summaryRow func(name string, f func(s *Sweep) string)

// summarySweepRows are the summary's rows that describe each sweep.
func summarySweepRows(row summaryRow) {
	row("file", func(s *Sweep) string { return s.File })
	row("board", func(s *Sweep) string { return s.Board() })
	row("kernel", func(s *Sweep) string { return s.kernelCell() })
	row("probe", func(s *Sweep) string { return s.Probe })
	row("plan", func(s *Sweep) string { return s.PlanString() })
	row("state", func(s *Sweep) string {
		nh, cor, _ := s.Counts()
		st := fmt.Sprintf("%s, %d ranked, %d not-held, %d corrupt", s.State, len(s.Ranked), nh, cor)
		if n := len(s.Eliminated); n > 0 {
			st += fmt.Sprintf(", %d eliminated", n)
		}
		return st
	})
	row("original", func(s *Sweep) string { return s.Originals() })
	row("baseline", func(s *Sweep) string {
		if s.Baseline == nil {
			return "-"
		}
		return fmt.Sprintf("%s %s (%d runs)", s.Rate(s.Baseline.Median), s.RateUnit(), s.Baseline.Runs())
	})
}

// summaryWinnerRows are the summary's rows of each sweep's winner.
func summaryWinnerRows(row summaryRow, amount string) {
	row("verdict", func(s *Sweep) string {
		switch v := s.Verdict; v.Kind {
		case rank.VerdictApply:
			return "apply " + rank.SettingsString(v.Changes)
		case rank.VerdictKeep:
			return "keep the original"
		}
		return "no decision"
	})
	winner := func(name, none string, f func(s *Sweep, w *Point) string) {
		row(name, func(s *Sweep) string {
			if w := s.Winner(); w != nil {
				return f(s, w)
			}
			return none
		})
	}
	winner("best", "-", func(_ *Sweep, w *Point) string { return w.Label })
	winner("best rate", "-", func(s *Sweep, w *Point) string { return s.Rate(w.Median) + " " + s.RateUnit() + " " + w.Vs.Short() })
	winner("95 % CI", "", func(_ *Sweep, w *Point) string { return w.Vs.Range() })
	both := func(name string, f func(s *Sweep, p *Point) Num, fmtf func(Num) string) {
		row(name, func(s *Sweep) string {
			var parts []string
			if s.Baseline != nil {
				parts = append(parts, fmtf(f(s, s.Baseline)))
			}
			if w := s.Winner(); w != nil {
				parts = append(parts, fmtf(f(s, w)))
			}
			if strings.Join(parts, "") == "" {
				return ""
			}
			return strings.Join(parts, " -> ")
		})
	}
	both("irq/s", func(_ *Sweep, p *Point) Num { return p.IRQsPerSec }, fn)
	both("irq/"+amount, func(s *Sweep, p *Point) Num { return s.Per(p.IRQsPerMiB) }, fn)
	both("handler avg µs", func(_ *Sweep, p *Point) Num { return p.HandlerAvgUS }, f1)
	both("handler max µs", func(_ *Sweep, p *Point) Num { return p.HandlerMaxUS }, f1)
	both("CPU %", func(_ *Sweep, p *Point) Num { return p.CPUPct }, f1)
}

func matrixTable(ss []*Sweep) *table {
	t := &table{head: append([]string{"point"}, mapf(ss, func(s *Sweep) string { return s.Label + " " + s.RateUnit() })...)}
	addRow(t, ss, "baseline", func(s *Sweep) string {
		if s.Baseline != nil {
			return s.Rate(s.Baseline.Median)
		}
		return "-"
	})
	for _, l := range compareRows(ss) {
		addRow(t, ss, l, func(s *Sweep) string { return cell(s, byLabel(s, l)) })
	}
	return t
}

func addRow(t *table, ss []*Sweep, name string, f func(*Sweep) string) {
	t.add(append([]string{name}, mapf(ss, f)...)...)
}

func writeTextCompare(w io.Writer, ss []*Sweep, o Options) error {
	fmt.Fprintf(w, "%d results files side by side\n\n", len(ss))
	st, err := summaryTable(ss, o)
	if err != nil {
		return err
	}
	st.textFit(w, "", o.Width)
	fmt.Fprintf(w, "\nevery point (median, difference to the file's own baseline, rank):\n")
	matrixTable(ss).textFit(w, "  ", o.Width)
	writeFileNotesText(w, ss, o.textWidth())
	return nil
}

// writeFileNotesText lists each file's notices and points not ranked.
func writeFileNotesText(w io.Writer, ss []*Sweep, width int) {
	for _, s := range ss {
		var lines []string
		for _, n := range s.notices() {
			lines = append(lines, wrap("  "+n[0]+": ", n[1], width))
		}
		for _, p := range s.Excluded {
			lines = append(lines, wrap("  "+excludedStatus(p)+" "+p.Label+": ", p.why(), width))
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s:\n%s", s.Label, strings.Join(lines, ""))
		}
	}
}
