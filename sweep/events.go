package sweep

import (
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// This file hands the sweep's events to their consumers, in this order:
// the JSONL writer (Out), the printer (Log), OnEvent. Every consumer sees
// every event, also when writing the record failed (the restore message
// must reach the user even then); emit returns the writer's error.

// record is what the results file records for e; nil for nothing.
func record(e event.Event) any {
	switch e.Kind {
	case event.SweepStarted:
		if e.Header != nil {
			return e.Header
		}
		if e.Resume != nil {
			return e.Resume
		}
	case event.RunFinished:
		return e.Run
	case event.PointClosed:
		return e.Closed
	case event.SweepEnded:
		return e.End
	case event.PointStarted, event.ModuleReload, event.SettingsRestored, event.PointEliminated, event.SecondLook, event.ModelFitted, event.BaselineScheduled, event.WarmupsDecided:
		if e.Replayed {
			return nil
		}
		return results.EventRecord{Type: results.TypeEvent, Session: e.Session, Time: e.Time, Event: e.Kind.String(), Point: e.Point, Message: e.Message, Model: e.Model}
	}
	return nil
}

// emit hands e to every consumer.
func (r *state) emit(e event.Event) error {
	e.Session = r.session
	if e.Time.IsZero() {
		e.Time = r.Clock.Now().UTC()
	}
	var err error
	rec := record(e)
	if er, ok := rec.(results.EventRecord); ok && r.sim != nil {
		sim := e.Time.UTC()
		er.Time, er.SimTime = r.wall().UTC(), &sim
		rec = er
	}
	if rec != nil {
		err = r.Out.Write(rec)
	}
	r.print(e)
	if r.OnEvent != nil {
		r.OnEvent(e)
	}
	return err
}

// print is the consumer that writes progress for people to Log.
func (r *state) print(e event.Event) {
	switch e.Kind {
	case event.SweepStarted:
		for _, n := range e.Notes {
			r.logf("%s\n", n)
		}
	case event.PointClosed:
		if e.Closed.Status == rank.StatusCorrupt {
			r.logf("!!! CORRUPT DATA at %s: %s\n", rank.SettingsString(e.Closed.Settings), e.Closed.Reason)
		}
		r.progress(e.Closed.Visit, e.Closed)
	case event.PointEliminated:
		r.logf("    dropped %s: %s\n", rank.SettingsString(e.Settings), e.Message)
	case event.ModuleReload, event.SettingsRestored:
		r.logf("%s\n", e.Message)
	case event.SecondLook, event.ModelFitted, event.BaselineScheduled, event.WarmupsDecided:
		if !e.Replayed {
			r.logf("%s\n", e.Message)
		}
	case event.SweepInterrupted:
		r.logf("interrupted: restoring the original settings\n")
	}
}
