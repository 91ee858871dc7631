package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// journalBegin records the originals of everything the sweep may change
// before the first change. The simulated controller's registers are not
// journalled (they die with the process); its files and module
// parameters are.
func (r *Runner) journalBegin() error {
	if r.JournalPath == "" {
		return nil
	}
	t := r.Target
	j, err := soc.LoadJournal(r.JournalPath)
	if err != nil {
		return err
	}
	e := soc.NewEntry(t, r.Command)
	if prev := j.Find(e.Key()); prev != nil {
		cp := *prev
		cp.Registers = slices.Clone(prev.Registers)
		cp.Changes = slices.Clone(prev.Changes)
		cp.Files = slices.Clone(prev.Files)
		cp.ModParams = slices.Clone(prev.ModParams)
		r.prevEntry = &cp
	}
	x := j.Upsert(e)
	any := false
	if t.Kind != soc.KindSim {
		var changes []regs.Change
		for i, a := range r.axes {
			if a.Kind == KindRegister {
				changes = append(changes, regs.Change{Ref: a.Ref, Value: a.number(r.live[i])})
			}
		}
		if len(changes) > 0 {
			ws, err := regs.Prepare(t.Acc, changes)
			if err != nil {
				return err
			}
			x.RecordWrites(ws)
			any = true
		}
	}
	for i, a := range r.axes {
		switch a.Kind {
		case KindFile:
			x.RecordFile(a.Name, r.live[i])
			any = true
		case KindModParam:
			x.RecordModParam(a.Name, r.live[i])
			any = true
		}
	}
	if !any {
		return nil
	}
	r.journaled = true
	return j.Save(r.JournalPath)
}

// ErrKilledSweep is returned by Prepare when the journal holds the
// originals of a sweep that was killed: a new sweep would take its
// changed values for the originals.
var ErrKilledSweep = errors.New("the journal holds the originals of an interrupted sweep")

// ErrSweepRunning is returned when the sweep that owns a journal entry is
// still running: two processes must not change one target.
var ErrSweepRunning = errors.New("another sweep is running on this target")

// Running reports whether the sweep that wrote e is still running: its
// pid is alive and its command line is a citune sweep (a pid reused after
// a reboot is not).
func Running(e *soc.Entry) bool {
	if !isSweepEntry(e) || e.PID <= 0 || e.PID == os.Getpid() {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", e.PID))
	if err != nil {
		return false
	}
	return slices.Contains(strings.Split(string(b), "\x00"), "sweep")
}

// checkJournal refuses to start a new sweep over a killed one's journal
// entry (resuming it is fine), and any sweep while the entry's sweep is
// still running.
func (r *Runner) checkJournal() error {
	if r.JournalPath == "" {
		return nil
	}
	j, err := soc.LoadJournal(r.JournalPath)
	if err != nil {
		return err
	}
	e := soc.NewEntry(r.Target, nil)
	prev := j.Find(e.Key())
	if prev != nil && Running(prev) {
		return fmt.Errorf("%w: the sweep that journalled %s (pid %d) is still running; stop it (Ctrl-C, or kill -TERM %d) and it restores by itself", ErrSweepRunning, r.JournalPath, prev.PID, prev.PID)
	}
	if r.Resume != nil {
		return nil
	}
	if prev != nil && isSweepEntry(prev) {
		return fmt.Errorf("%w (%s, pid %d, %s): put them back with `citune restore`, or continue that sweep with `citune sweep --resume RESULTS`",
			ErrKilledSweep, r.JournalPath, prev.PID, prev.Created.Format(time.RFC3339))
	}
	return nil
}

// journalEnd removes this sweep's journal entry after a successful
// restore, or puts back the entry an earlier `citune set` left (the
// entry of the interrupted session a resume continued is dropped: its
// originals are back).
func (r *Runner) journalEnd() error {
	if !r.journaled {
		return nil
	}
	j, err := soc.LoadJournal(r.JournalPath)
	if err != nil {
		return err
	}
	e := soc.NewEntry(r.Target, nil)
	key := e.Key()
	j.Remove(key)
	if r.prevEntry != nil && !isSweepEntry(r.prevEntry) {
		j.Entries = append(j.Entries, *r.prevEntry)
	}
	return j.Save(r.JournalPath)
}

func absPath(p string) string {
	if p == "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// isSweepEntry tells a sweep's journal entry from one `citune set` left
// (which stays after the sweep: its change is meant to last).
func isSweepEntry(e *soc.Entry) bool { return slices.Contains(e.Command, "sweep") }
