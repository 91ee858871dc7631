package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// RestoreExtras puts back what a journal entry holds besides registers,
// after a sweep was killed: module parameters first, by reloading the
// module stack with their original values (a reload resets the
// controller, so registers are restored after this), then files. Values
// that are already back are left alone. It reports to w.
func RestoreExtras(ctx context.Context, h *Host, e *soc.Entry, w io.Writer) error {
	if len(e.ModParams) == 0 && len(e.Files) == 0 {
		return nil
	}
	if h == nil {
		h = &Host{}
	}
	var errs []error
	if len(e.ModParams) > 0 {
		if err := restoreModParams(ctx, h, e, w); err != nil {
			errs = append(errs, err)
		}
	}
	for _, f := range e.Files {
		cur, err := h.ReadFile(f.Path)
		if err == nil && FileHolds(f.Original, cur) {
			fmt.Fprintf(w, "%s is %s already\n", f.Path, f.Original)
			continue
		}
		if err := h.WriteFile(f.Path, f.Original); err != nil {
			errs = append(errs, fmt.Errorf("restoring %s: %w", f.Path, err))
			continue
		}
		got, err := h.ReadFile(f.Path)
		switch {
		case err != nil:
			errs = append(errs, err)
		case !FileHolds(f.Original, got):
			errs = append(errs, fmt.Errorf("%s: wrote %s, reads %s", f.Path, f.Original, got))
		default:
			fmt.Fprintf(w, "restored %s = %s\n", f.Path, f.Original)
		}
	}
	return errors.Join(errs...)
}

func restoreModParams(ctx context.Context, h *Host, e *soc.Entry, w io.Writer) error {
	params := map[string][]string{}
	differ, missing := false, false
	for _, mp := range e.ModParams {
		mod, param, ok := strings.Cut(mp.Name, ".")
		if !ok {
			return fmt.Errorf("journal: module parameter %q is not module.param", mp.Name)
		}
		mod = ModuleName(mod)
		params[mod] = append(params[mod], param+"="+mp.Original)
		st, err := h.ModuleState(mod)
		if err != nil {
			return err
		}
		if st != ModLoaded {
			differ, missing = true, true
			continue
		}
		if cur, err := h.ReadParam(mod, param); err != nil || cur != mp.Original {
			differ = true
		}
	}
	if !differ {
		fmt.Fprintf(w, "module parameters are at their original values already\n")
		return nil
	}
	if h.Loader == nil {
		return fmt.Errorf("module parameters to restore but no module loader")
	}
	if len(h.Modules) == 0 {
		for m := range params {
			h.Modules = append(h.Modules, m)
		}
	}
	if err := h.snapshotLoaded(); err != nil {
		return err
	}
	if missing {
		// Killed in the middle of a reload: bring the whole stack back.
		for _, m := range h.Modules {
			h.loaded[ModuleName(m)] = true
		}
	}
	if err := h.Reload(ctx, params); err != nil {
		return err
	}
	var bad []string
	for _, mp := range e.ModParams {
		mod, param, _ := strings.Cut(mp.Name, ".")
		got, err := h.ReadParam(mod, param)
		if err != nil || got != mp.Original {
			bad = append(bad, fmt.Sprintf("%s: loaded with %s, reads %q", mp.Name, mp.Original, got))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("module parameters did not return: %s", strings.Join(bad, "; "))
	}
	fmt.Fprintf(w, "reloaded %s with %s\n", strings.Join(h.Modules, ", "), paramString(params))
	return nil
}

// restore puts back the sweep's original values (those of its first
// session: a resumed sweep that was killed ends where it began): module
// parameters (reloading the stack), files, then register fields, each
// read back. It runs even when ctx is cancelled.
func (r *Runner) restore(ctx context.Context) error {
	if r.visitSeq == 0 || r.axes == nil {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	var errs []error
	var applied []Applied
	var mism []string
	reloaded := false
	if err := r.applyModParams(rctx, r.orig, &applied, &mism, &reloaded); err != nil {
		errs = append(errs, err)
	}
	for i, a := range r.axes {
		if a.Kind != KindFile {
			continue
		}
		got, err := r.Host.ReadFile(a.Name)
		if err == nil && FileHolds(r.orig[i], got) {
			continue
		}
		if err := r.Host.WriteFile(a.Name, r.orig[i]); err != nil {
			errs = append(errs, err)
			continue
		}
		got, err = r.Host.ReadFile(a.Name)
		if err != nil {
			errs = append(errs, err)
		} else if !FileHolds(r.orig[i], got) {
			mism = append(mism, fmt.Sprintf("%s: wrote %s, reads %s", a.Name, r.orig[i], got))
		}
	}
	var changes []regs.Change
	for i, a := range r.axes {
		if a.Kind == KindRegister {
			changes = append(changes, regs.Change{Ref: a.Ref, Value: a.number(r.orig[i])})
		}
	}
	if len(changes) > 0 {
		ws, err := regs.Prepare(r.Target.Acc, changes)
		if err == nil {
			var res []regs.Result
			res, err = regs.Commit(r.Target.Acc, ws)
			for _, w := range res {
				for _, m := range w.Mismatches {
					mism = append(mism, m.String())
				}
			}
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(mism) > 0 {
		errs = append(errs, fmt.Errorf("restore: some values did not return: %s", strings.Join(mism, "; ")))
	}
	err := errors.Join(errs...)
	msg := "original settings restored"
	if err != nil {
		msg = "restore FAILED: " + err.Error()
		if r.journaled {
			msg += "; run `citune restore` (the journal " + r.JournalPath + " keeps the originals)"
		}
		err = fmt.Errorf("%s", msg)
	}
	r.logf("%s\n", msg)
	r.event(EventRestore, "", msg)
	return err
}
