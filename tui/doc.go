// Package tui is citune's interactive tuning session (`citune tui`), built
// on Bubble Tea v2. It is made for the screen a bring-up engineer often has:
// a serial console of 80x24 characters, TERM=vt100, no colour and no mouse.
// Every piece of state is therefore written as text (markers, words,
// numbers); colour and reverse video only repeat it.
//
// Three tabs share one screen:
//
//   - Registers: every register of the controller decoded, tuning knobs
//     first, with markers for values that differ from reset (R) or from the
//     session's starting snapshot (S), and for values that changed behind
//     the user's back (!), explained by the register's note. Fields are
//     edited by choosing among their legal values; writes are validated like
//     the CLI's `citune set`, journalled before the first write, and read
//     back.
//   - Probe: runs the configured throughput probe in the background and keeps
//     a history of runs per setting, so that two settings can be compared
//     side by side with their spread.
//   - Sweep: builds a plan from fields marked on screen (or loads a plan
//     file), runs it in the background and shows a live table sorted by
//     rate, a bar chart or a two-axis heat map, and the best point with its
//     confidence.
//
// Each tab is a component (regsTab, probeTab, sweepTab: View, Update,
// ShortHelp and FullHelp, its own keys as bubbles' help draws them; the ?
// screen shows the keys every tab has and the active tab's) holding a
// pointer to one shared context: the configuration, the global keys,
// styles, screen size, status
// line, text input, the registers last read, the fields marked as sweep
// axes and the busy state (a write, a probe or a sweep in flight), which
// every tab consults before it starts anything.
// A tab's own dialog (the Registers tab's field editor, the Sweep tab's
// plan prompts) has every key while it is open. Model keeps only what
// routes: the active tab and the mode, the dialogs of every tab (export,
// quit, help), the refresh schedule and the way out.
//
// Decision: the size lives in the shared context, not in a SetSize per
// tab, and View takes the body's height, because that height changes with
// every status message (it wraps to up to three lines).
//
// The model does no I/O: register reads and writes, probes, sweeps and file
// writes run in tea.Cmds that return typed messages. The hardware-facing
// pieces (prober, sweeper, undo session, plan loader, the device-tree
// output of exports and its ranking rule) are small interfaces and
// functions declared here (deps.go) and supplied by cmd/citune, so the
// package imports no sweep runner, host, undo or sweep/dtsout machinery,
// only the data it shows.
//
// Every write goes through the undo session (Session: an undo.Session)
// that cmd/citune opens on the target: leaving restores the fields the
// session changed to their values when it first changed them unless the
// user chooses to keep them, and cmd/citune halts it after the program
// was killed (SIGHUP). View reads the session's snapshot (Touched,
// StartValue), never its mutex, which is held across register I/O and
// reloads.
//
// Decision: the tests drive the real sweep runner (behind a test
// Sweeper) and the sim probe on the simulated controller, with no fake
// throughput of their own, and the sweep is followed through its events
// (package sweep/event), never by reading the results file back.
package tui
