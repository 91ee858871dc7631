// Package report turns sweep results files (sweep/results/README.md) into what
// people read: a terminal table of the baseline against the best point,
// CSV, Markdown for commit messages and mailing lists, and one
// self-contained HTML page with inline SVG charts (rate per point with
// its spread, a heat map of two axes, rate against interrupts per MiB)
// and the device-tree fragment of the winner, and LAVA test-case signals
// (lava.go) for a board farm.
//
// Load reads and summarises one results file; every renderer takes one
// or more of them, so that several files (two boards, two kernels) are
// compared side by side. Load refuses files that are not sweep results
// and damaged files with an error that says so; a file that an
// interrupted or killed sweep left behind is reported with what it has.
package report
