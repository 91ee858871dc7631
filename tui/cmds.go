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
	"github.com/citune/citune/sweep/results"
)

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
				send(probeRunMsg{id: id, run: i, of: n, setting: before, after: after, err: errors.New("stopped")})
				return
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
	for _, r := range refs {
		if sameRef(r, ref) {
			return true
		}
	}
	return false
}

// refKey is "REG.FIELD" or "REG", upper case.
func refKey(r regs.Ref) string {
	return strings.ToUpper(r.String())
}
