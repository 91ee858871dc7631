package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// restore puts back the sweep's original values (those of its first
// session: a resumed sweep that was killed ends where it began): module
// parameters (reloading the stack), files, then register fields, each
// read back. It runs even when ctx is cancelled.
func (r *state) restore(ctx context.Context) error {
	if r.visitSeq == 0 || r.axes == nil {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	var errs []error
	var applied []results.Applied
	var mism []string
	reloaded := false
	if err := r.applyModParams(rctx, r.orig, &applied, &mism, &reloaded); err != nil {
		errs = append(errs, err)
	}
	for i, a := range r.axes {
		if a.Kind != plan.KindFile {
			continue
		}
		got, err := r.Host.ReadFile(a.Name)
		if err == nil && undo.FileHolds(r.orig[i], got) {
			continue
		}
		if err := r.Host.WriteFile(a.Name, r.orig[i]); err != nil {
			errs = append(errs, err)
			continue
		}
		got, err = r.Host.ReadFile(a.Name)
		if err != nil {
			errs = append(errs, err)
		} else if !undo.FileHolds(r.orig[i], got) {
			mism = append(mism, fmt.Sprintf("%s: wrote %s, reads %s", a.Name, r.orig[i], got))
		}
	}
	if changes := r.registerChanges(r.orig); len(changes) > 0 {
		res, err := r.Session.Apply(changes)
		for _, w := range res {
			for _, m := range w.Mismatches {
				mism = append(mism, m.String())
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if err := r.restoreBoot(); err != nil {
		errs = append(errs, err)
	}
	if err := r.Session.Settle(); err != nil {
		errs = append(errs, err)
	}
	if len(mism) > 0 {
		errs = append(errs, fmt.Errorf("restore: some values did not return: %s", strings.Join(mism, "; ")))
	}
	err := errors.Join(errs...)
	msg := "original settings restored"
	if err != nil {
		msg = "restore FAILED: " + err.Error()
		if j := r.Session.Journal(); j != "" {
			msg += "; run `citune restore` (the journal " + j + " keeps the originals)"
		}
		err = fmt.Errorf("%s", msg)
	}
	r.emit(event.Event{Kind: event.SettingsRestored, Message: msg, RestoreFailed: err != nil})
	return err
}
