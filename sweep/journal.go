package sweep

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/citune/citune/undo"
)

// The sweep records and undoes its changes through an undo.Session: the
// command (or the TUI) opens it on the target before Prepare, which
// takes the target's lock, so two sweeps never run on one target and a
// killed sweep's values are never taken for originals. Without one
// (tests, library use) the runner opens a session that keeps no journal.

// session returns the runner's undo session, opening a journal-less one
// when none was given.
func (r *Runner) undoSession() (*undo.Session, error) {
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
func (r *Runner) journalBegin() error {
	s, err := r.undoSession()
	if err != nil {
		return err
	}
	for i, a := range r.axes {
		switch a.Kind {
		case KindFile:
			if err := s.RecordFile(a.Name, r.live[i]); err != nil {
				return err
			}
		case KindModParam:
			if err := s.RecordModParam(a.Name, r.live[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReloadSpec is the host's module reload as data, for the journal.
func (h *Host) ReloadSpec() *undo.Reload {
	if h == nil {
		return nil
	}
	// Paths are made absolute: `citune restore` may run from another
	// directory.
	rl := &undo.Reload{Root: absPath(h.Root), Modules: h.Modules, Wait: h.Wait, Timeout: h.WaitTimeout}
	if l, ok := h.Loader.(ExecLoader); ok {
		rl.Modprobe, rl.Rmmod = l.Modprobe, l.Rmmod
		if strings.ContainsRune(rl.Modprobe, '/') {
			rl.Modprobe = absPath(rl.Modprobe)
		}
		if strings.ContainsRune(rl.Rmmod, '/') {
			rl.Rmmod = absPath(rl.Rmmod)
		}
	}
	return rl
}

// HostFromReload is the host that reloads the module stack as a journal
// entry recorded it.
func HostFromReload(rl *undo.Reload) *Host {
	if rl == nil {
		return &Host{}
	}
	return &Host{Root: rl.Root, Loader: ExecLoader{Modprobe: rl.Modprobe, Rmmod: rl.Rmmod}, Modules: rl.Modules, Wait: rl.Wait, WaitTimeout: rl.Timeout}
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

// RestoreParams reloads the module stack with the given parameter values
// ("module.param" to value), bringing back every module of the stack when
// a reload was cut short (undo.Host).
func (h *Host) RestoreParams(ctx context.Context, vals map[string]string) error {
	params := map[string][]string{}
	missing := false
	for name, v := range vals {
		mod, param, ok := strings.Cut(name, ".")
		if !ok {
			return fmt.Errorf("module parameter %q is not module.param", name)
		}
		mod = ModuleName(mod)
		params[mod] = append(params[mod], param+"="+v)
		st, err := h.ModuleState(mod)
		if err != nil {
			return err
		}
		if st != ModLoaded {
			missing = true
		}
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
	return h.Reload(ctx, params)
}
