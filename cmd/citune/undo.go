package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"periph.io/x/conn/v3"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/undo"
)

// Every target a command changes is a conn.Resource registered here for
// its whole life, so that the signal path can halt it (restore its
// values) even when the command's own goroutine is stuck.
var owned struct {
	sync.Mutex
	list []conn.Resource
}

// own registers r and returns its release.
func own(r conn.Resource) func() {
	owned.Lock()
	owned.list = append(owned.list, r)
	owned.Unlock()
	return func() {
		owned.Lock()
		owned.list = slices.DeleteFunc(owned.list, func(x conn.Resource) bool { return x == r })
		owned.Unlock()
	}
}

// haltAll halts every registered resource, newest first.
func haltAll() error {
	owned.Lock()
	list := slices.Clone(owned.list)
	owned.Unlock()
	var errs []error
	for i := len(list) - 1; i >= 0; i-- {
		if err := list[i].Halt(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", list[i], err))
		}
	}
	return errors.Join(errs...)
}

// undoOpts are a command's choices for its undo session.
type undoOpts struct {
	force, allowLive, adopt bool
	host                    undo.Host
	reload                  *undo.Reload
}

// openUndo opens the undo session of kind k on t, attaches it to the
// target's Halt and registers the target for the signal path; close
// releases both.
func (a *app) openUndo(t *soc.Target, k undo.Kind, o undoOpts) (*undo.Session, func(), error) {
	id, err := t.ID()
	if err != nil {
		return nil, nil, err
	}
	uo := undo.Options{Target: id, Profile: t.Profile.Name, Controller: t.Controller.Label,
		Owner: undo.Self(k, a.args), Acc: t.Accessor(), Map: t.Profile.Map, Host: o.host, Reload: o.reload,
		Force: o.force, AllowLive: o.allowLive, Adopt: o.adopt}
	if !strings.HasPrefix(t.Profile.File, "embedded:") {
		uo.ProfileFile, _ = filepath.Abs(t.Profile.File)
	}
	// undo journals no simulated registers (files and module parameters
	// all the same).
	if uo.Journal, err = a.journalPath(); err != nil {
		return nil, nil, err
	}
	s, err := undo.Open(uo)
	if err != nil {
		return nil, nil, explainUndo(err, k)
	}
	for _, w := range s.Warnings() {
		fmt.Fprintf(a.env.stderr, "citune: warning: %s\n", w)
	}
	t.SetHalt(s.Halt)
	release := own(t)
	return s, func() { release(); s.Close() }, nil
}

// explainUndo adds what the user can do to a refusal.
func explainUndo(err error, k undo.Kind) error {
	var be *undo.BusyError
	if errors.As(err, &be) {
		var advice string
		switch {
		case be.Elsewhere && be.Holder.PID > 0:
			advice = fmt.Sprintf("let it end or stop it (kill -TERM %d; a sweep or TUI session restores by itself), or give its journal with --journal", be.Holder.PID)
		case be.Elsewhere:
			advice = "let it end (a sweep or TUI session restores by itself), or give its journal with --journal"
		case be.Holder.Kind.Long():
			advice = fmt.Sprintf("stop it (Ctrl-C there, or kill -TERM %d) and it restores by itself", be.Holder.PID)
		default:
			return fmt.Errorf("%w: try again when it has finished", err)
		}
		if !k.Long() {
			advice += "; --force goes ahead anyway (its end may undo this change)"
		}
		return fmt.Errorf("%w: %s", err, advice)
	}
	var ie *undo.InterruptedError
	if errors.As(err, &ie) {
		return fmt.Errorf("%w: put them back with `citune restore`, or continue an interrupted sweep with `citune sweep --resume RESULTS`", err)
	}
	if errors.Is(err, undo.ErrLive) {
		return withCode(exitUsage, fmt.Errorf("%w (--allow-live writes it anyway)", err))
	}
	return err
}

// withHost adds a sweep host to the options (nil: a nil interface).
func (o undoOpts) withHost(h *host.Host) undoOpts {
	if h != nil {
		o.host, o.reload = h, h.ReloadSpec()
	}
	return o
}
