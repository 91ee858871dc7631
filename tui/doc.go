// Package tui is citune's interactive tuning session (`citune tui`), built
// on Bubble Tea v2 for the screen a bring-up engineer often has: a serial
// console of 80x24, TERM=vt100, no colour and no mouse. Every piece of
// state is therefore written as text (markers, words, numbers); colour and
// reverse video only repeat it.
//
// Three tabs share one screen:
//
//   - Registers: every register decoded, tuning knobs first, marked where
//     a value differs from reset (R) or from the session's start (S), or
//     changed behind the user's back (!). Fields are edited by choosing
//     among their legal values; writes are validated like `citune set`,
//     journalled before the first write, and read back.
//   - Probe: runs the probe in the background and keeps a history of runs
//     per setting, so that two settings can be compared with their spread.
//   - Sweep: builds a plan from fields marked on screen (or a plan file),
//     runs it and shows a live table sorted by rate, a bar chart or a
//     two-axis heat map, and the best point with its confidence.
//
// Each tab is a component (regsTab, probeTab, sweepTab: View, Update,
// ShortHelp, FullHelp) holding a pointer to one shared context: the
// configuration, keys, styles, screen size, status line, text input, the
// registers last read, the fields marked as axes and the busy state (a
// write, probe or sweep in flight), which every tab consults before it
// starts anything. A tab's own dialog (the field editor, the plan prompts)
// has every key while it is open. Model keeps only what routes: the active
// tab and mode, the dialogs of every tab (export, quit, help), the refresh
// schedule and the way out.
//
// Decision: the size lives in the shared context, not in a SetSize per
// tab, and View takes the body's height, because that height changes with
// every status message (it wraps to up to three lines).
//
// The model does no I/O: reads, writes, probes, sweeps and file writes run
// in tea.Cmds that return typed messages. The hardware-facing pieces are
// small seams that cmd/citune supplies (deps.go, beside those commands),
// so the package imports no sweep runner, host, undo or sweep/dtsout,
// only the data it shows. Every write goes through the undo session,
// which restores on the way out unless the user keeps the values; View
// reads its snapshot (Touched, StartValue), never its mutex, which is
// held across register I/O.
//
// Decision: the tests drive the real sweep runner (behind a test
// Sweeper) and the sim probe on the simulated controller, with no fake
// throughput of their own, and the sweep is followed through its events
// (package sweep/event), never by reading the results file back.
package tui
