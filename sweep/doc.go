// Package sweep measures settings and keeps only the numbers that were
// measured with the settings they claim.
//
// Axes, mixed freely, are register fields of the controller (a verified
// read-modify-write), sysfs or procfs files, kernel module parameters
// (applied by reloading the module stack, the only way a host port keeps
// ITC or park: ehci-hcd writes its cached USBCMD back whenever it switches
// the async schedule), and boot arguments and device-tree properties, a
// boot each (cmdline.go, dtaxis.go). The plan is validated as a whole
// before the first write; settings the hardware ignores (BURSTSIZE while
// SBUSCFG.AHBBRST is not 0) are grouped, and said so.
//
// Every point is applied, read back, left to settle and probed, its
// settings read again after every run: a point whose settings changed
// under it is recorded as not-held, with what changed, and never ranked;
// a run that fails its integrity check marks the point corrupt. Every run
// and point summary is appended to the results file as it happens
// (sweep/results), so an interrupted sweep resumes without redoing
// finished points. The originals of everything a sweep may change are
// journalled before the first change and restored on every exit path;
// after a kill -9, `citune restore` uses the journal.
// What happens is one stream of typed events (sweep/event, events.go).
//
// Modes: a shuffled grid with the baseline (the original settings)
// measured again at intervals so that drift shows; one factor at a time;
// an adaptive race (adaptive.go) within a budget (budget.go), which finds
// the grid's winner (or one it calls tied) with 24 to 28 % of its probe
// runs on average (bench/adaptive.sh); and a model search (model.go,
// bench/model.sh). sweep/rank ranks the points against the baseline.
//
// A sweep is three owners: Config, what the caller sets (Run never
// changes it, so it runs twice alike); Clock, its time and pauses
// (WallClock, or on the simulated board SimClock, simclock.go); and state,
// what one Run plans, learns and counts, made afresh by every Run.
package sweep
