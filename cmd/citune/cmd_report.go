package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/citune/citune/report"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/undo"
	"github.com/citune/citune/units"
)

func init() {
	register(&command{name: "report", summary: "tables and charts of sweep results (--html --csv --markdown --lava)",
		usage: "report [--point SETTINGS]... [--top N] [--html FILE] [--csv FILE] [--markdown | --lava] [--fleet] RESULTS.jsonl...", run: runReport,
		examples: []string{
			"citune report usbh1.jsonl",
			"citune report --top 3 --point 'AHBBRST=0 TXPBURST=16' usbh1.jsonl",
			"citune report --html usbh1.html --csv usbh1.csv usbh1.jsonl",
			"citune report --units MB/s --markdown board-a.jsonl board-b.jsonl",
		},
	})
}

type reportOpts struct {
	points              listFlag
	top, width          int
	units, html, csvOut string
	md, lava, fleet     bool
	force               bool
}

func runReport(a *app, args []string) error {
	fs := a.flags("report")
	var ro reportOpts
	fs.Var(&ro.points, "point", "also show this point: its `SETTINGS` (\"ITC=1 AHBBRST=0\") or #N, the point ranked N (repeatable)")
	fs.IntVar(&ro.top, "top", 0, "show the `N` best points (default: every point)")
	fs.StringVar(&ro.units, "units", "", unitsUsage("--json gives all three"))
	fs.IntVar(&ro.width, "width", 0, "fit the table to `N` columns (default: the terminal's width, else 80)")
	fs.StringVar(&ro.html, "html", "", "write one self-contained HTML page with charts to `FILE`")
	fs.StringVar(&ro.csvOut, "csv", "", "write every point as CSV to `FILE` (- for stdout, instead of the table)")
	fs.BoolVar(&ro.md, "markdown", false, "print Markdown (for a commit message or a mailing list) instead of the table")
	fs.BoolVar(&ro.fleet, "fleet", false, "compare the files board by board, grouped by SoC, controller and plan (automatic when their headers name two or more boards)")
	minGain := minGainFlag(fs)
	fs.BoolVar(&ro.lava, "lava", false, "print LAVA test-case signals (one test case per point, the winner and its gain) instead of the table")
	fs.BoolVar(&ro.force, "force", false, "replace an existing --html or --csv file (a results file is never replaced)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	a.minGain = *minGain
	files := fs.Args()
	if len(files) == 0 {
		return usageErr("usage: citune %s", commands["report"].usage)
	}
	if ro.top < 0 {
		return usageErr("report: --top must be at least 1")
	}
	if ro.md && ro.lava {
		return usageErr("report: --markdown or --lava, not both")
	}
	if err := ro.checkOutputs(files); err != nil {
		return err
	}
	ss, ranked, err := a.loadReports(files, ro.units)
	if err != nil {
		return err
	}
	if a.g.json {
		return writeJSON(a.env.stdout, report.JSON(ss))
	}
	ro.top = cmp.Or(ro.top, max(ranked, 1)) // 0: every point
	// A terminal's own width; a file or pipe gets 80 columns (a serial
	// console's).
	cols := cmp.Or(max(ro.width, 0), a.env.cols, 80)
	o := report.Options{Points: ro.points, Top: ro.top, Fleet: ro.fleet, Width: cols, ASCII: !utf8Locale(a.env.getenv)}
	return a.writeReports(ss, o, &ro)
}

// loadReports reads the results files (deciding as `citune dts`), refuses
// flags contradicting them, and counts the most ranked points of one.
func (a *app) loadReports(files []string, unitsFlag string) ([]*report.Sweep, int, error) {
	unit, err := byteUnit(unitsFlag, a.env.getenv)
	if err != nil {
		return nil, 0, err
	}
	opt := report.LoadOptions{Decide: func(path string, res *results.Results) (rank.Ranking, string, string, error) {
		rk, in, err := a.decideResults(path, res)
		if err != nil {
			return rk, "", "", err
		}
		d := dtsout.BuildDTS(in)
		return rk, d.String(), d.KernelParams(), nil
	}}
	var ss []*report.Sweep
	ranked := 0
	for _, f := range files {
		s, err := report.Load(f, opt)
		if err != nil {
			return nil, 0, err
		}
		if err := a.reportFlags(s); err != nil {
			return nil, 0, err
		}
		s.ByteUnit = unit
		ranked = max(ranked, len(s.Ranked))
		ss = append(ss, s)
	}
	return ss, ranked, nil
}

// writeReports renders everything before writing anything, so that a bad
// --point leaves no half-written files.
func (a *app) writeReports(ss []*report.Sweep, o report.Options, ro *reportOpts) error {
	var page, table, csv bytes.Buffer
	if ro.html != "" {
		if err := report.WriteHTML(&page, ss, o); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if ro.csvOut != "" {
		if err := report.WriteCSV(&csv, ss); err != nil {
			return err
		}
	}
	var err error
	switch {
	case ro.lava:
		err = report.WriteLAVA(&table, ss)
	case ro.md:
		err = report.WriteMarkdown(&table, ss, o)
	case ro.csvOut != "-":
		err = report.WriteText(&table, ss, o)
	}
	if err != nil {
		return withCode(exitUsage, err)
	}
	if ro.html != "" {
		if err := writeOutput(ro.html, page.Bytes(), ro.force); err != nil {
			return err
		}
		fmt.Fprintf(a.env.stderr, "wrote %s\n", ro.html)
	}
	switch ro.csvOut {
	case "":
	case "-":
		if _, err := a.env.stdout.Write(csv.Bytes()); err != nil {
			return err
		}
	default:
		if err := writeOutput(ro.csvOut, csv.Bytes(), ro.force); err != nil {
			return err
		}
		fmt.Fprintf(a.env.stderr, "wrote %s\n", ro.csvOut)
	}
	// Text from the results files (probe, kernel, point names, values)
	// is shown escaped: no escape sequence in a shared file reaches the
	// terminal.
	_, err = io.WriteString(a.env.stdout, textwrap.Escape(table.String()))
	return err
}

// checkOutputs refuses, before anything is read or written, an --html or
// --csv file that is an input, the other output, or not to be written.
func (ro *reportOpts) checkOutputs(files []string) error {
	var outs []string
	for _, o := range []string{ro.html, ro.csvOut} {
		if o == "" || o == "-" {
			continue
		}
		for _, in := range slices.Concat(files, outs) {
			if undo.SameFile(o, in) {
				return usageErr("report: %s is both read and written: give the output another name", o)
			}
		}
		outs = append(outs, o)
	}
	for _, o := range outs {
		if err := checkOutput(o, ro.force); err != nil {
			return err
		}
	}
	return nil
}

// unitsUsage is the help of every --units flag, ending in tail.
func unitsUsage(tail string) string {
	return "`UNIT` of byte rates shown: MiB/s (what hdparm prints as \"MB/sec\"), MB/s (SI, as dd prints)\nor Mbit/s (as iperf3 prints) (default $CITUNE_UNITS, else MiB/s; " + tail + ")"
}

// byteUnit resolves --units (or $CITUNE_UNITS).
func byteUnit(flagVal string, getenv func(string) string) (units.Display, error) {
	v := cmp.Or(flagVal, getenv("CITUNE_UNITS"))
	if d, ok := units.ParseDisplay(v); ok {
		return d, nil
	}
	return "", usageErr("--units %q: want MiB/s, MB/s or Mbit/s", v)
}
