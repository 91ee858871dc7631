package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/citune/citune/report"
	"github.com/citune/citune/sweep/dtsout"
)

func init() {
	register(&command{
		name:    "report",
		summary: "tables and charts of sweep results (--html --csv --markdown --lava)",
		usage:   "report [--point SETTINGS]... [--top N] [--html FILE] [--csv FILE] [--markdown | --lava] [--fleet] RESULTS.jsonl...",
		run:     runReport,
	})
}

// pointFlags collects repeated --point flags.
type pointFlags []string

func (p *pointFlags) String() string     { return strings.Join(*p, "; ") }
func (p *pointFlags) Set(s string) error { *p = append(*p, s); return nil }

func runReport(a *app, args []string) error {
	fs := a.flags("report")
	var points pointFlags
	fs.Var(&points, "point", "also show this point: its `SETTINGS` (\"ITC=1 AHBBRST=0\") or #N, the point ranked N (repeatable)")
	top := fs.Int("top", 0, "show the `N` best points (default: every point)")
	units := fs.String("units", "", "`UNIT` of byte rates: MiB/s, or the SI MB/s or Mbit/s that dd, hdparm and iperf3\nprint (default $CITUNE_UNITS, else MiB/s; --json gives all three)")
	width := fs.Int("width", 0, "fit the table to `N` columns (default: the terminal's width, else 80)")
	html := fs.String("html", "", "write one self-contained HTML page with charts to `FILE`")
	csvOut := fs.String("csv", "", "write every point as CSV to `FILE` (- for stdout, instead of the table)")
	md := fs.Bool("markdown", false, "print Markdown (for a commit message or a mailing list) instead of the table")
	fleet := fs.Bool("fleet", false, "compare the files board by board, grouped by SoC, controller and plan (automatic when their headers name two or more boards)")
	lava := fs.Bool("lava", false, "print LAVA test-case signals (one test case per point, the winner and its gain) instead of the table")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return usageErr("usage: citune %s", commands["report"].usage)
	}
	if *top < 0 {
		return usageErr("report: --top must be at least 1")
	}
	unit, err := byteUnit(*units, a.env.getenv)
	if err != nil {
		return err
	}
	opt := report.LoadOptions{DTS: func(path string) (string, string, error) {
		in, err := a.dtsFromResults(path)
		if err != nil {
			return "", "", err
		}
		d := dtsout.BuildDTS(in)
		return d.String(), d.KernelParams(), nil
	}}
	var ss []*report.Sweep
	ranked := 0
	for _, f := range files {
		s, err := report.Load(f, opt)
		if err != nil {
			return err
		}
		if err := a.reportFlags(s); err != nil {
			return err
		}
		s.ByteUnit = unit
		ranked = max(ranked, len(s.Ranked))
		ss = append(ss, s)
	}
	if a.g.json {
		return writeJSON(a.env.stdout, reportJSON(ss))
	}
	if *top == 0 {
		// Every point.
		*top = max(ranked, 1)
	}
	// A terminal's own width; a file or pipe gets 80 columns (a serial
	// console's).
	cols := *width
	if cols <= 0 {
		cols = a.env.cols
	}
	if cols <= 0 {
		cols = 80
	}
	o := report.Options{Points: points, Top: *top, Fleet: *fleet, Width: cols, ASCII: !utf8Locale(a.env.getenv)}
	// Render everything before writing anything, so that a bad --point
	// leaves no half-written files.
	var page, table, csv bytes.Buffer
	if *html != "" {
		if err := report.WriteHTML(&page, ss, o); err != nil {
			return withCode(exitUsage, err)
		}
	}
	if *csvOut != "" {
		if err := report.WriteCSV(&csv, ss); err != nil {
			return err
		}
	}
	switch {
	case *md && *lava:
		return usageErr("report: --markdown or --lava, not both")
	case *lava:
		err = report.WriteLAVA(&table, ss)
	case *md:
		err = report.WriteMarkdown(&table, ss, o)
	case *csvOut != "-":
		err = report.WriteText(&table, ss, o)
	}
	if err != nil {
		return withCode(exitUsage, err)
	}
	if *html != "" {
		if err := writeOutput(*html, page.Bytes(), true); err != nil {
			return err
		}
		fmt.Fprintf(a.env.stderr, "wrote %s\n", *html)
	}
	switch *csvOut {
	case "":
	case "-":
		if _, err := a.env.stdout.Write(csv.Bytes()); err != nil {
			return err
		}
	default:
		if err := writeOutput(*csvOut, csv.Bytes(), true); err != nil {
			return err
		}
		fmt.Fprintf(a.env.stderr, "wrote %s\n", *csvOut)
	}
	_, err = a.env.stdout.Write(table.Bytes())
	return err
}

// byteUnit resolves --units (or $CITUNE_UNITS): mib, mb, mbit or the unit
// itself, case ignored.
func byteUnit(flagVal string, getenv func(string) string) (string, error) {
	v := flagVal
	if v == "" {
		v = getenv("CITUNE_UNITS")
	}
	switch strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(v, "/s"), "ps")) {
	case "", "mib":
		return "MiB/s", nil
	case "mb":
		return "MB/s", nil
	case "mbit":
		return "Mbit/s", nil
	}
	return "", usageErr("--units %q: want MiB/s, MB/s or Mbit/s", v)
}
