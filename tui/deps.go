package tui

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/units"
)

// axisLabel is a sweep axis's short name in tables (shortName), a file
// or module parameter as the plan spells it.
func axisLabel(m *regs.Map, a plan.Axis) string {
	if a.Kind == plan.KindRegister {
		return shortName(m, a.Ref)
	}
	return a.SpecName()
}

// SweepPlan is the plan on the Sweep tab: the sweep's own plan.Plan
// (register values in decimal) and where it came from. Unlike the plan
// the sweep runs, Mode stays "" (the default, grid) until the text names
// one, so the text shows no mode=.
type SweepPlan struct {
	plan.Plan
	// Source says where the plan came from ("screen" or a file name).
	Source string
}

// Points is the number of points of the full grid.
func (p SweepPlan) Points() int {
	if len(p.Axes) == 0 {
		return 0
	}
	n := 1
	for _, a := range p.Axes {
		n *= len(a.Values)
	}
	return n
}

// A point on the Sweep tab is the sweep's own record of it
// (results.PointRecord), folded over all its visits (foldVisit).

// rankable reports whether the point may be ranked.
func rankable(p results.PointRecord) bool {
	return !p.Baseline && statusOK(p) && len(p.Rates) > 0
}

// statusOK reports whether nothing excludes the point from the ranking.
func statusOK(p results.PointRecord) bool { return p.Status == "" || p.Status == rank.StatusOK }

// versus is the sweep's comparison of the point with the baseline, or "".
func versus(p results.PointRecord) string {
	if p.VsBaseline == nil {
		return ""
	}
	return p.VsBaseline.String()
}

// Sweeper is the seam to the sweep runner (cmd/citune's `citune sweep`
// wiring; the tests wrap the real runner). Run runs p (Mode "" is the
// default) and restores the original values on every exit path; a
// cancelled run returns an error wrapping context.Canceled. resume
// continues the last run of the same plan. onEvent gets each event on
// the sweeper's goroutine, the last (event.SweepEnded) with the outcome.
// Run returns the results file ("" when it could not be opened).
type Sweeper interface {
	Run(ctx context.Context, p plan.Plan, resume bool, onEvent func(event.Event)) (string, error)
}

// Session is the seam to the undo session (an undo.Session) every write
// goes through. Touched and StartValue read a snapshot and take no lock:
// View calls them while a restore may hold the session.
type Session interface {
	// Apply writes changes: originals journalled first, read back after.
	Apply(changes []regs.Change) ([]regs.Result, error)
	// Restore returns refs to their starting values, every value the
	// session changed when refs is nil.
	Restore(refs []regs.Ref) ([]Restored, error)
	// Touched lists the fields the session changed, first changed first;
	// StartValue is a field's value when the session first changed it.
	Touched() []regs.Ref
	StartValue(ref regs.Ref) (uint32, bool)
	// Journal is the journal's path ("" when it keeps none).
	Journal() string
	// Stops reports whether err ends the session (the journal vanished,
	// was replaced or damaged): it restores from the originals in memory.
	Stops(err error) bool
}

// Restored is one value a restore put back (or found back already:
// Wrote false); Line is how the session says it ("USBCMD.ITC = 8").
type Restored struct {
	Name, Want, Got string
	Held, Wrote     bool
	Line            string
}

// DeviceTree is the seam to the device-tree output (sweep/dtsout, which
// tui does not import), supplied by cmd/citune on the session's target.
type DeviceTree interface {
	// Text is the export's text as `citune dts` prints it, and the
	// warning dts would print beside it ("" for none).
	Text(x DTSExport) (text, note string)
	// NotPermanent is the ranking's rule (rank.Policy.NotPermanent) for
	// a sweep recorded with header h on this controller, as the sweep and
	// `citune dts` rank.
	NotPermanent(h results.Header) func(changes map[string]string) []string
}

// DTSExport is what the export screen shows.
type DTSExport struct {
	// Winner is set for the sweep winner's export (Results: its results
	// file, or ""); otherwise the export is of the current settings.
	Winner  bool
	Results string
	// Snapshot is the live values; Role the controller's role as the
	// session decides it ("" unknown).
	Snapshot soc.Snapshot
	Role     regs.Role
	// Header is the fragment's comment lines; Settings its settings with
	// their comments (nil: every knob's live value).
	Header   []string
	Settings []DTSSetting
}

// DTSSetting is one setting of an export, named as the plan names it.
type DTSSetting struct{ Name, Value, Comment string }

// PlanLoader reads a plan file and validates it against m.
type PlanLoader func(path string, m *regs.Map) (SweepPlan, error)

// Config is everything a session needs. Target, Start and Undo are
// required; the rest may be nil, and the UI then says what is missing.
type Config struct {
	Target *soc.Target
	// Start is the snapshot taken when the session began.
	Start soc.Snapshot
	// Undo records and undoes every change the session makes (required);
	// cmd/citune halts it after the program was killed.
	Undo Session
	// Ctx is the parent of every background job; Jobs counts them so that
	// the caller can wait for them before restoring.
	Ctx  context.Context
	Jobs *sync.WaitGroup
	// Prober runs the probe once per run (a probe.Series); its progress
	// may come from any goroutine. NoProbe says why there is none.
	Prober  probe.Probe
	NoProbe string
	// Sweeper runs sweeps; NoSweep says why there is none.
	Sweeper Sweeper
	NoSweep string
	// LoadPlan reads plan files; nil disables loading.
	LoadPlan PlanLoader
	// WriteFile writes exports. Without replace, an existing file gives
	// an error that is fs.ErrExist, and the session asks before it writes
	// again with replace.
	WriteFile func(path string, data []byte, replace bool) error
	// DTS makes the exports' text and ranks loaded results; nil disables
	// both.
	DTS DeviceTree
	// Role is the controller's current role; empty means: decide from
	// USBMODE.CM and the controller's roles.
	Role regs.Role
	// ByteUnit is the unit byte rates are shown in (MiB/s when empty), as
	// the other commands show them (--units); a probe's own unit as it is.
	ByteUnit units.Display
	// Interval is the initial refresh interval (default 1s).
	Interval time.Duration
	// Tick schedules refreshes (nil: tea.Tick); tests drive it by hand.
	Tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
	// Mono is for terminals without colour: attributes only, no window
	// title.
	Mono bool
	// Styles defaults to DefaultStyles (or MonoStyles with Mono).
	Styles *Styles
}

// Messages. Every piece of I/O ends in one of these.
type (
	// tickMsg asks for a refresh; gen drops ticks of an older schedule.
	tickMsg struct{ gen int }

	// regsMsg carries a read of every register; wgen is the write
	// generation it started in (a read that raced a write is dropped).
	regsMsg struct {
		snap soc.Snapshot
		err  error
		wgen int
	}

	// writeMsg reports an apply or revert.
	writeMsg struct {
		what     string
		refs     []regs.Ref
		results  []regs.Result // an apply
		restored []Restored    // a revert
		err      error
		revert   bool
	}

	// restoredMsg reports the restore on the way out.
	restoredMsg struct {
		restored []Restored
		err      error
	}

	// probeProgressMsg is the progress of the run in flight.
	probeProgressMsg struct {
		id          int
		run, of     int
		done, total int64
	}

	// probeRunMsg is one finished probe run.
	probeRunMsg struct {
		id      int
		run, of int
		setting string
		after   string // the setting read after the run
		res     results.Measurement
		err     error
	}

	// probeDoneMsg ends a probe job.
	probeDoneMsg struct{ id int }

	sweepMsg struct {
		id int
		e  event.Event
	}

	// sweepDoneMsg ends a sweep run with its results file.
	sweepDoneMsg struct {
		id      int
		err     error
		results string
	}

	planMsg struct {
		path string
		plan SweepPlan
		err  error
	}

	exportMsg struct {
		path   string
		lines  int
		err    error
		exists bool // not written: the file exists (err is fs.ErrExist)
	}
)

func (m *Model) tick() tea.Cmd {
	gen := m.tgen
	t := m.cfg.Tick
	if t == nil {
		t = tea.Tick
	}
	return t(m.interval, func(time.Time) tea.Msg { return tickMsg{gen} })
}

func readRegs(acc regs.Accessor, m *regs.Map, wgen int) tea.Cmd {
	return func() tea.Msg {
		s, err := soc.Take(m, acc)
		return regsMsg{snap: s, err: err, wgen: wgen}
	}
}

// apply writes the changes through the undo session: `citune set`.
func apply(u Session, changes []regs.Change, what string) tea.Cmd {
	return func() tea.Msg {
		msg := writeMsg{what: what}
		for _, c := range changes {
			msg.refs = append(msg.refs, c.Ref)
		}
		msg.results, msg.err = u.Apply(changes)
		return msg
	}
}

// revert returns refs (nil: all touched fields) to their starting values.
func revert(u Session, refs []regs.Ref, what string) tea.Cmd {
	return func() tea.Msg {
		msg := writeMsg{what: what, refs: refs, revert: true}
		if refs == nil {
			msg.refs = u.Touched()
		}
		msg.restored, msg.err = u.Restore(refs)
		return msg
	}
}

// restoreAll restores everything the session changed on the way out.
func restoreAll(u Session) tea.Cmd {
	return func() tea.Msg {
		rs, err := u.Restore(nil)
		return restoredMsg{restored: rs, err: err}
	}
}

// RestoreReport renders the values a restore wrote, one line each.
func RestoreReport(rs []Restored) []string {
	var out []string
	for _, r := range rs {
		if r.Wrote {
			out = append(out, r.Line)
		}
	}
	return out
}

// job runs fn in a goroutine counted by jobs; its send gives up only when
// life is done. The command delivers the first message, listen the rest.
func job(life context.Context, jobs *sync.WaitGroup, ch chan tea.Msg, fn func(send func(tea.Msg))) tea.Cmd {
	return func() tea.Msg {
		jobs.Add(1)
		go func() {
			defer jobs.Done()
			defer close(ch)
			fn(func(m tea.Msg) {
				select {
				case ch <- m:
				case <-life.Done():
				}
			})
		}()
		return <-ch
	}
}

// listen delivers the next message of a job (nil once it ended).
func listen(ch chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		m, ok := <-ch
		if !ok {
			return nil
		}
		return m
	}
}

// probeJob runs the probe n times, reading the setting around each run.
func probeJob(ctx context.Context, p probe.Probe, acc regs.Accessor, m *regs.Map, start soc.Snapshot, id, n int) func(func(tea.Msg)) {
	return func(send func(tea.Msg)) {
		defer send(probeDoneMsg{id: id})
		for i := 1; i <= n; i++ {
			if ctx.Err() != nil {
				return
			}
			before, err := readSetting(acc, m, start)
			if err != nil {
				send(probeRunMsg{id: id, run: i, of: n, err: err})
				return
			}
			var last time.Time
			run, err := p.Run(ctx, func(done, total int64) {
				now := time.Now()
				if done != total && now.Sub(last) < 50*time.Millisecond {
					return
				}
				last = now
				send(probeProgressMsg{id: id, run: i, of: n, done: done, total: total})
			})
			res := results.MeasurementOf(run)
			after, aerr := readSetting(acc, m, start)
			if aerr != nil && err == nil {
				err = aerr
			}
			if errors.Is(err, context.Canceled) {
				res, err = results.Measurement{}, errors.New("stopped")
			}
			send(probeRunMsg{id: id, run: i, of: n, setting: before, after: after, res: res, err: err})
			if err != nil {
				return
			}
		}
	}
}

// readSetting reads the knob registers and labels the setting.
func readSetting(acc regs.Accessor, m *regs.Map, start soc.Snapshot) (string, error) {
	cur := map[uint32]uint32{}
	for i := range m.Registers {
		r := &m.Registers[i]
		if !r.HasKnob() {
			continue
		}
		v, err := acc.Read32(r.Offset)
		if err != nil {
			return "", err
		}
		cur[r.Offset] = v
	}
	return settingLabel(m, start, cur), nil
}

func sweepJob(ctx context.Context, s Sweeper, p plan.Plan, resume bool, id int) func(func(tea.Msg)) {
	return func(send func(tea.Msg)) {
		path, err := s.Run(ctx, p, resume, func(e event.Event) {
			if e.Closed != nil { // the runner shares it with the writer
				r := *e.Closed
				r.Rates = slices.Clone(r.Rates)
				e.Closed = &r
			}
			send(sweepMsg{id: id, e: e})
		})
		send(sweepDoneMsg{id: id, err: err, results: path})
	}
}

func loadPlan(load PlanLoader, path string, m *regs.Map) tea.Cmd {
	return func() tea.Msg {
		p, err := load(path, m)
		if err == nil && p.Source == "" {
			p.Source = path
		}
		return planMsg{path: path, plan: p, err: err}
	}
}

func writeExport(write func(string, []byte, bool) error, path, text string, replace bool) tea.Cmd {
	return func() tea.Msg {
		err := write(path, []byte(text), replace)
		return exportMsg{path: path, lines: strings.Count(text, "\n"), err: err, exists: errors.Is(err, fs.ErrExist)}
	}
}

// sameRef compares refs by name (refs into copies of a map are equal).
func sameRef(a, b regs.Ref) bool {
	return refKey(a) == refKey(b)
}

// hasRef reports whether refs hold ref (compared by sameRef).
func hasRef(refs []regs.Ref, ref regs.Ref) bool {
	return slices.ContainsFunc(refs, func(r regs.Ref) bool { return sameRef(r, ref) })
}

// refKey is "REG.FIELD" or "REG", upper case.
func refKey(r regs.Ref) string {
	return strings.ToUpper(r.String())
}
