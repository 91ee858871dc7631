// Package sweep measures settings and keeps only the numbers that were
// measured with the settings they claim.
//
// A sweep has axes of three kinds, mixed freely: register fields of the
// controller (written with a verified read-modify-write), files in sysfs
// or procfs, and kernel module parameters (applied by reloading the
// module stack, the only way a host port keeps ITC or park: ehci-hcd
// writes its cached USBCMD back whenever it switches the async schedule).
// The plan is validated as a whole before the first write; settings the
// hardware ignores (BURSTSIZE while SBUSCFG.AHBBRST is not 0) are grouped
// and said so.
//
// Every point is applied, read back, left to settle and probed; after
// every probe run the swept settings are read again. A point whose
// settings changed under it is recorded as not-held, with what changed,
// and is never ranked. A probe run that fails its integrity check marks
// the point corrupt.
//
// Every run and every point summary is appended to a JSONL results file
// as it happens (each line flushed and fsync'd; sweep/results owns the
// format and its README.md documents the records), so an interrupted sweep can be resumed without redoing
// finished points. The original values of everything a sweep may change
// are journalled (soc.Journal) before the first change and restored on
// every exit path; after a kill -9, `citune restore` uses the journal.
// What happens is one stream of typed events (sweep/event): the
// results file, the progress printed to Config.Log and Config.OnEvent (the
// TUI) are its consumers, so they cannot tell different stories.
//
// Modes: a full grid in shuffled order with the baseline (the original
// settings) measured again at intervals so that drift shows;
// one-factor-at-a-time screening; and an adaptive race (adaptive.go)
// that screens every point with one run, without warm-ups, and drops
// points once they are significantly worse than the leader, within a
// budget (budget.go: a third of the grid's probe runs by default), which
// finds the grid's winner (or one it calls tied) with 24 to 28 % of its
// probe runs on average (warm-ups and screening runs counted in both;
// bench/adaptive.sh); and a model search (model.go, its statistics in
// sweep/fit) that screens a covering design, fits an additive model of
// log rate with the interactions the data ask for and confirms its
// predicted top, ranked by the grid's verdict (bench/model.sh).
//
// Points are ranked (sweep/rank) by median rate against the baseline, with a bootstrap
// confidence interval of the difference; interrupts per MiB and CPU time
// per MiB break ties between points that are not significantly different.
// sweep/dtsout turns a winner into a device-tree fragment and kernel
// parameters.
//
// A sweep is three owners: Config, what the caller sets (Run never
// changes it, so it runs twice alike); Clock, the sweep's time and
// pauses (WallClock, or on the simulated board SimClock, whose records
// carry the wall time and the modelled one apart, stamp.go); and state,
// what one Run plans, learns and counts, made afresh by every Run.
//
// The runner lives here; each other concern has its own package below it:
// sweep/plan (the axis and plan grammar), sweep/results (the results file
// format and its reader), sweep/rank (statistics and ranking), sweep/host
// (files and module reloads) and sweep/dtsout (DT and kernel-parameter
// output, which nothing in sweep needs).
package sweep
