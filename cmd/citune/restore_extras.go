package main

import (
	"context"
	"fmt"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
)

// After a sweep was killed, `citune restore` puts its files and module
// parameters back: module parameters by reloading the module stack the
// sweep used (its --reload, --modprobe, --rmmod and --sys-root flags are
// read back from the command line in the journal), then files. The
// registers follow in restoreEntry, after the reload has reset them.
// An entry whose sweep is still running is left alone: that sweep
// restores by itself when stopped, and two processes must not change one
// target.
func (a *app) restoreExtras(e *soc.Entry) error {
	if sweep.Running(e) {
		return fmt.Errorf("the sweep that made this entry (pid %d) is still running: stop it (Ctrl-C, or kill -TERM %d) and it restores by itself", e.PID, e.PID)
	}
	if len(e.Files) == 0 && len(e.ModParams) == 0 {
		return nil
	}
	o := sweepOptsFromCommand(e.Command)
	p, err := entryProfile(e)
	if err != nil {
		return err
	}
	if o.reloadTimeout == 0 {
		o.reloadTimeout = defaultReloadTimeout
	}
	return sweep.RestoreExtras(context.WithoutCancel(a.ctx), o.host(p), e, a.env.stdout)
}
