package sweep

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// fatalError is an apply failure that ends the sweep (the target cannot
// be reached any more).
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }

func (e *fatalError) Unwrap() error { return e.err }

// apply writes a point's settings: module parameters (by reloading the
// module stack when one changes), files, then register fields, each read
// back. mism lists what did not stick.
func (r *state) apply(ctx context.Context, p *Point) (applied []results.Applied, mism []string, reloaded bool, err error) {
	// The journal must still hold the sweep's originals before anything
	// more is changed (undo.JournalError ends the sweep).
	if err := r.Session.Check(); err != nil {
		return nil, nil, false, &fatalError{err}
	}
	if err := r.applyCmdline(p.Values, &applied, &mism); err != nil {
		return applied, mism, reloaded, err
	}
	if err := r.applyModParams(ctx, p.Values, &applied, &mism, &reloaded); err != nil {
		return applied, mism, reloaded, err
	}
	for i, a := range r.axes {
		if a.Kind != plan.KindFile {
			continue
		}
		want := p.Values[i]
		if err := r.Host.WriteFile(a.Name, want); err != nil {
			return applied, mism, reloaded, err
		}
		r.cur[i] = want
		got, err := r.Host.ReadFile(a.Name)
		if err != nil {
			return applied, mism, reloaded, err
		}
		applied = append(applied, results.Applied{Name: a.Name, Want: want, Readback: got})
		if !undo.FileHolds(want, got) {
			mism = append(mism, fmt.Sprintf("%s: wrote %s, reads %s", a.Name, want, got))
		}
	}
	changes := r.registerChanges(p.Values)
	if len(changes) == 0 {
		return applied, mism, reloaded, nil
	}
	res, err := r.Session.Apply(changes)
	if err != nil {
		return applied, mism, reloaded, &fatalError{err}
	}
	for _, w := range res {
		for _, c := range w.Changes {
			applied = append(applied, results.Applied{Name: c.Ref.String(), Want: strconv.FormatUint(uint64(c.Value), 10),
				Readback: strconv.FormatUint(uint64(c.Ref.Field.Get(w.Readback)), 10), Old: regs.Hex(w.Old), New: regs.Hex(w.New)})
		}
		for _, m := range w.Mismatches {
			mism = append(mism, m.String())
		}
	}
	return applied, mism, reloaded, nil
}

func (r *state) registerChanges(vals []string) []regs.Change {
	var changes []regs.Change
	for i, a := range r.axes {
		if a.Kind == plan.KindRegister {
			changes = append(changes, regs.Change{Ref: a.Ref, Value: a.Number(vals[i])})
		}
	}
	return changes
}

// modParams groups module parameter values by module.
func (r *state) modParams(vals []string) map[string][]string {
	ps := map[string][]string{}
	for i, a := range r.axes {
		if a.Kind == plan.KindModParam {
			ps[a.Module] = append(ps[a.Module], a.Param+"="+vals[i])
		}
	}
	return ps
}

// applyModParams reloads the module stack when a module parameter of the
// point differs from the current one, maps the window again and reads
// the parameters back.
func (r *state) applyModParams(ctx context.Context, vals []string, applied *[]results.Applied, mism *[]string, reloaded *bool) error {
	change := false
	for i, a := range r.axes {
		if a.Kind == plan.KindModParam && vals[i] != r.cur[i] {
			change = true
		}
	}
	if !change {
		return nil
	}
	ps := r.modParams(vals)
	msg := fmt.Sprintf("reloading %s with %s", strings.Join(r.Host.Modules, ", "), paramString(ps))
	if err := r.emit(event.Event{Kind: event.ModuleReload, Message: msg}); err != nil {
		return &fatalError{err}
	}
	*reloaded = true
	// Until the reload is known to have worked, the parameters are
	// unknown: mark them so that the next point reloads again.
	for i, a := range r.axes {
		if a.Kind == plan.KindModParam {
			r.cur[i] = "?"
		}
	}
	t0 := r.Clock.Now()
	if err := r.Host.Reload(ctx, ps); err != nil {
		return &fatalError{err}
	}
	if err := r.remap(ctx); err != nil {
		return &fatalError{fmt.Errorf("after reloading the modules: %w", err)}
	}
	if r.sim != nil {
		// The simulated board's reload takes its modelled time.
		r.sim.reload()
	}
	// Counted only once it worked: the time left counts reloads at the
	// mean of those measured (on a board, from the first one on).
	r.reloads++
	r.reloadTime += r.Clock.Now().Sub(t0)
	for i, a := range r.axes {
		if a.Kind != plan.KindModParam {
			continue
		}
		got, err := r.Host.ReadParam(a.Module, a.Param)
		if err != nil {
			return &fatalError{err}
		}
		r.cur[i] = got
		*applied = append(*applied, results.Applied{Name: a.Name, Want: vals[i], Readback: got})
		if got != vals[i] {
			*mism = append(*mism, fmt.Sprintf("%s: loaded with %s, reads %s", a.Name, vals[i], got))
		}
	}
	return nil
}

func paramString(ps map[string][]string) string {
	var s []string
	for m, p := range ps {
		s = append(s, m+" "+strings.Join(p, " "))
	}
	slices.Sort(s)
	return strings.Join(s, "; ")
}

func (r *state) remap(ctx context.Context) error {
	if r.Remap != nil {
		return r.Remap(ctx)
	}
	if err := r.Target.Remap(); err != nil {
		return err
	}
	return r.Target.Identify()
}

// check reads the swept settings again and lists what differs from the
// point's values.
func (r *state) check(p *Point) ([]string, error) {
	var changed []string
	vals := map[uint32]uint32{}
	for i, a := range r.axes {
		want := p.Values[i]
		var got string
		var err error
		switch a.Kind {
		case plan.KindRegister, plan.KindDT:
			v, ok := vals[a.Ref.Reg.Offset]
			if !ok {
				v, err = r.Target.Read32(a.Ref.Reg.Offset)
				vals[a.Ref.Reg.Offset] = v
			}
			got = strconv.FormatUint(uint64(a.Ref.Field.Get(v)), 10)
		case plan.KindFile:
			got, err = r.Host.ReadFile(a.Name)
		case plan.KindModParam:
			got, err = r.Host.ReadParam(a.Module, a.Param)
		case plan.KindCmdline:
			got, err = r.cmdlineValue(a)
		}
		if err != nil {
			return changed, err
		}
		held := got == want
		if a.Kind == plan.KindFile {
			held = undo.FileHolds(want, got)
		}
		if !held {
			changed = append(changed, fmt.Sprintf("%s: %s -> %s", a.Name, want, got))
		}
	}
	return changed, nil
}
