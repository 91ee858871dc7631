package report

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// LAVA's test shell turns console lines of the form
//
//	<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=name RESULT=pass MEASUREMENT=31.20 UNITS=MiB/s>
//
// into test cases (what its lava-test-case helper prints), and
// <LAVA_SIGNAL_TESTSET START name> / <LAVA_SIGNAL_TESTSET STOP> into test
// sets. The fields are split at spaces and "=", so names and units carry
// neither; results are pass, fail, skip or unknown; a measurement is a
// plain decimal. WriteLAVA prints them itself: the board needs no parser.
//
// Decisions:
//   - One test case per point, named after its settings in plan order
//     ("ITC-1_AHBBRST-3"), the same on every board and run, so LAVA's
//     charts follow it across a farm. The status and reason are a log
//     line before the signal, not part of the name (which would change).
//   - ok and eliminated points (good runs, fewer of them) pass with their
//     median; not-held, corrupt and failed points fail without one: their
//     numbers are not trusted and would end up on LAVA's charts.
//   - Points an interrupted sweep never finished are skip.
//   - "sweep" passes only when the sweep completed; "winner" when a point
//     was ranked (measurement: its median); "winner-gain" carries its gain
//     in %. A gain that is not significant still passes: finding that no
//     setting helps is a result, and the log line says so.
//   - With several files each is a test set named after its board (when
//     each names a different one) or else after the file.

// lavaName turns a point label into a LAVA test case name: letters,
// digits, '.', '_' and '-' only, at most 100 characters (the length LAVA's
// database keeps); a longer name is cut and ends in a hash of the whole.
func lavaName(label string) string {
	var b strings.Builder
	for _, r := range label {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		case r == '=':
			b.WriteByte('-')
		default:
			b.WriteByte('_')
		}
	}
	n := b.String()
	if n == "" {
		n = "point"
	}
	if len(n) > 100 {
		h := fnv.New32a()
		h.Write([]byte(label))
		n = fmt.Sprintf("%s-%08x", n[:91], h.Sum32())
	}
	return n
}

// WriteLAVA prints LAVA test-case signals for the points, the winner and
// its gain of each results file.
func WriteLAVA(w io.Writer, ss []*Sweep) error {
	if len(ss) == 0 {
		return errNoResults
	}
	uniqueLabels(ss)
	// A set is named after the board when every file names a different
	// one, else after the file.
	names := map[string]bool{}
	for _, s := range ss {
		names[s.BoardName] = true
	}
	byBoard := len(names) == len(ss) && !names[""]
	for _, s := range ss {
		if len(ss) > 1 {
			set := s.Label
			if byBoard {
				set = s.BoardName
			}
			fmt.Fprintf(w, "<LAVA_SIGNAL_TESTSET START %s>\n", lavaName(set))
		}
		writeLAVA(w, s)
		if len(ss) > 1 {
			fmt.Fprintf(w, "<LAVA_SIGNAL_TESTSET STOP>\n")
		}
	}
	return nil
}

func writeLAVA(w io.Writer, s *Sweep) {
	// Names are unique per file: two labels could sanitise alike.
	lw := &lavaWriter{w: w, s: s, units: strings.ReplaceAll(s.RateUnit(), " ", "_"),
		used: map[string]int{"baseline": 1, "sweep": 1, "winner": 1, "winner-gain": 1}}
	lw.log("%s: %s, %s", s.File, s.Board(), s.KernelText())
	if s.BoardName != "" {
		lw.log("board: %s", s.BoardName)
	}
	lw.log("plan: %s; original settings %s", s.PlanString(), s.Originals())
	lw.log("state: %s", stateLine(s))
	for _, x := range s.Warnings {
		lw.log("warning: %s", x)
	}
	lw.points()
	lw.verdict()
}

// lavaWriter writes one sweep's log lines and test cases; used counts
// the test case names given, to keep them unique.
type lavaWriter struct {
	w     io.Writer
	s     *Sweep
	units string
	used  map[string]int
}

// log writes a line of the job's log, on one line (the console is line
// based).
func (lw *lavaWriter) log(format string, a ...any) {
	fmt.Fprintf(lw.w, "citune: %s\n", strings.Join(strings.Fields(fmt.Sprintf(format, a...)), " "))
}

// tc signals a test case, with p's median rate as its measurement when p
// is not nil.
func (lw *lavaWriter) tc(name, result string, p *Point) {
	if p != nil {
		fmt.Fprintf(lw.w, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s MEASUREMENT=%s UNITS=%s>\n", name, result, lw.s.Rate(p.Median), lw.units)
		return
	}
	fmt.Fprintf(lw.w, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=%s RESULT=%s>\n", name, result)
}

// name is the test case name of label, numbered when an earlier label
// sanitised alike.
func (lw *lavaWriter) name(label string) string {
	n := lavaName(label)
	lw.used[n]++
	if k := lw.used[n]; k > 1 {
		n = fmt.Sprintf("%s-%d", n, k)
	}
	return n
}

// points writes a test case for the baseline and for every point: ranked
// and eliminated ones pass, excluded ones fail, missing ones are skipped.
func (lw *lavaWriter) points() {
	s, log, tc, name := lw.s, lw.log, lw.tc, lw.name
	if s.Baseline != nil {
		log("baseline (%s): %s %s over %d runs", s.Originals(), s.Rate(s.Baseline.Median), s.RateUnit(), s.Baseline.Runs())
		tc("baseline", "pass", s.Baseline)
	} else {
		log("baseline: not measured to the end")
		tc("baseline", "skip", nil)
	}
	for _, p := range s.Ranked {
		rank := fmt.Sprintf("#%d", p.Rank)
		if p.Tied {
			rank += " (tied)"
		}
		log("%s: ok, %s %s over %d runs, %s, rank %s", p.Label, s.Rate(p.Median), s.RateUnit(), p.Runs(), vsText(p), rank)
		tc(name(p.Label), "pass", p)
	}
	for _, p := range s.Eliminated {
		if p.Runs() == 0 {
			log("%s: eliminated by the adaptive race before a counted run", p.Label)
			tc(name(p.Label), "skip", nil)
			continue
		}
		log("%s: eliminated by the adaptive race (clearly slower than its leader), %s %s over %d runs, %s", p.Label, s.Rate(p.Median), s.RateUnit(), p.Runs(), vsText(p))
		tc(name(p.Label), "pass", p)
	}
	for _, p := range s.Excluded {
		log("%s: %s: %s", p.Label, strings.ToUpper(excludedStatus(p)), cmp.Or(p.why(), "no reason recorded"))
		tc(name(p.Label), "fail", nil)
	}
	for _, l := range s.Missing {
		why := "the sweep stopped before it"
		if s.InProgress != "" && strings.HasPrefix(s.InProgress, l+" (") {
			why = "cut short: " + s.InProgress
		}
		log("%s: not measured (%s)", l, why)
		tc(name(l), "skip", nil)
	}
}

// verdict writes the test cases of the sweep's end, its winner and the
// winner's gain over the baseline.
func (lw *lavaWriter) verdict() {
	s, log, tc := lw.s, lw.log, lw.tc
	if s.State == results.StatusComplete {
		tc("sweep", "pass", nil)
	} else {
		log("sweep: %s", cmp.Or(s.StateDetail, s.State))
		tc("sweep", "fail", nil)
	}
	win := s.Winner()
	if win == nil {
		log("winner: none, no point was ranked")
		tc("winner", "fail", nil)
		log("winner-gain: no winner")
		tc("winner-gain", "skip", nil)
		return
	}
	for _, l := range s.VerdictLines() {
		log("%s", l)
	}
	switch s.Verdict.Kind {
	case rank.VerdictApply:
		win = s.winning()
		log("winner: %s, %s %s", win.Label, s.Rate(win.Median), s.RateUnit())
		tc("winner", "pass", win)
		log("winner-gain: %s against the baseline", win.Vs.String())
		fmt.Fprintf(lw.w, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=winner-gain RESULT=pass MEASUREMENT=%.2f UNITS=%%>\n", win.Vs.Pct)
		return
	case rank.VerdictKeep:
		log("winner: the original settings, %s %s", s.Rate(s.Baseline.Median), s.RateUnit())
		tc("winner", "pass", s.Baseline)
	default:
		log("winner: none, no decision")
		tc("winner", "skip", nil)
	}
	log("winner-gain: none, nothing to make permanent")
	fmt.Fprintf(lw.w, "<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=winner-gain RESULT=pass MEASUREMENT=0.00 UNITS=%%>\n")
}

func vsText(p *Point) string {
	if p.Vs == nil {
		return "no baseline to compare with"
	}
	return p.Vs.String() + " against the baseline"
}
