package sweep

import (
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/undo"
)

// The sweep records and undoes its changes through an undo.Session the
// command (or the TUI) opens before Prepare, taking the target's lock, so
// two sweeps never run on one target and a killed sweep's values are never
// taken for originals. Without one (tests, library use) the runner opens
// one that keeps no journal.

// undoSession returns the runner's undo session, opening a journal-less
// one when none was given.
func (r *state) undoSession() (*undo.Session, error) {
	if r.Session != nil {
		return r.Session, nil
	}
	id, err := r.Target.ID()
	if err != nil {
		return nil, err
	}
	o := undo.Options{Journal: r.Journal, Target: id, Profile: r.Target.Profile.Name, Controller: r.Target.Controller.Label,
		Owner: undo.Self(undo.KindSweep, r.Command), Acc: r.Target.Accessor(), Map: r.Target.Profile.Map, Adopt: r.Resume != nil}
	if r.Host != nil {
		o.Host = r.Host
	}
	s, err := undo.Open(o)
	if err != nil {
		return nil, err
	}
	r.Session = s
	return s, nil
}

// journalBegin records the originals of the files and module parameters
// the sweep may change before the first change (register fields are
// recorded by the session as they are written).
func (r *state) journalBegin() error {
	s, err := r.undoSession()
	if err != nil {
		return err
	}
	for i, a := range r.axes {
		switch a.Kind {
		case plan.KindFile:
			if err := s.RecordFile(a.Name, r.live[i]); err != nil {
				return err
			}
		case plan.KindModParam:
			if err := s.RecordModParam(a.Name, r.live[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
