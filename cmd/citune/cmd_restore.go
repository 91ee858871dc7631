package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/undo"
)

// runRestore is citune restore: a journal's targets back to their
// originals, or a snapshot's tuning fields back.
func runRestore(a *app, args []string) error {
	fs := a.flags("restore")
	force := fs.Bool("force", false, "restore even while a sweep or TUI session owns the target; with a SNAPSHOT,\nalso onto another SoC or controller than it was taken of")
	allowLive := fs.Bool("allow-live", false, "also write back live state the journal records (list addresses, run/stop, port control):\nonly what `citune set --allow-live` would write")
	config := fs.Bool("config", false, "with a SNAPSHOT: also restore configuration fields, not only the tuning knobs")
	from := fs.String("from", "", "restore what the journal `FILE` records, reading it without writing it (one whose folder\ncannot be written); the session keeps its own journal (--journal)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 1 {
		return usageErr("usage: citune restore [--force] [--allow-live] [--from FILE | JOURNAL | SNAPSHOT [--config]]")
	}
	path, err := a.journalPath()
	if err != nil && len(fs.Args()) == 0 {
		return err
	}
	if len(fs.Args()) == 1 {
		path = fs.Arg(0)
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var probe struct{ Kind string }
		if json.Unmarshal(b, &probe) == nil && probe.Kind == snapshotKind {
			return a.restoreSnapshot(b, *force, *config)
		}
		// The session restores from (and updates) the journal given.
		a.g.journal = path
	}
	var j *undo.Journal
	if *from != "" {
		if len(fs.Args()) > 0 {
			return usageErr("restore: --from FILE or a JOURNAL, not both")
		}
		path = *from
		j, err = undo.Read(path)
	} else {
		// A killed sweep's copy of its records in its lock file comes
		// back into the journal first (the journal deleted under it).
		if err := undo.Recover(path); err != nil {
			return err
		}
		j, err = undo.Load(path)
	}
	if err != nil {
		// --from helps a journal whose place cannot be written, not one
		// that is no regular file (a FIFO or device put there).
		if fi, serr := os.Stat(path); errors.Is(err, undo.ErrStore) && serr == nil && fi.Mode().IsRegular() {
			return fmt.Errorf("%w\n`citune --journal FILE restore --from %s` reads it without writing it (FILE in a writable place)", err, path)
		}
		return err
	}
	entries := j.Entries
	if a.g.sim || a.g.memFile != "" || a.g.profile != "" || a.g.controller != "" {
		id, err := a.flagTarget()
		if err != nil {
			return err
		}
		e := j.Find(id.Key())
		if e == nil {
			fmt.Fprintf(a.env.stdout, "nothing to restore on %s: the journal %s has no change of it\n", id, path)
			return nil
		}
		entries = []undo.Entry{*e}
	}
	if len(entries) == 0 {
		if _, err := os.Lstat(path); err == nil {
			fmt.Fprintf(a.env.stdout, "nothing to restore: the journal %s holds no changes\n", path)
		} else {
			fmt.Fprintf(a.env.stdout, "nothing to restore: no journal at %s\n", path)
		}
		return nil
	}
	var errs []error
	for _, e := range entries {
		if err := a.restoreEntry(&e, *from != "", *force, *allowLive); err != nil {
			errs = append(errs, fmt.Errorf("%s (%s %s): %w", e.Target, e.Profile, e.Controller, err))
		}
	}
	if *from != "" {
		fmt.Fprintf(a.env.stdout, "the journal %s was read, not changed: remove it once its targets are back\n", path)
	}
	if len(errs) > 0 {
		err := errors.Join(errs...)
		if errors.Is(err, undo.ErrStore) {
			return fmt.Errorf("%w\nthe journal %s could not be brought up to date: what it records may be back already (see above); `citune --journal FILE restore --from %s` reads it without writing it", err, path, path)
		}
		return fmt.Errorf("%w\nthe journal %s keeps what was not restored", err, path)
	}
	if *from != "" {
		return nil
	}
	if j, err := undo.Load(path); err == nil && len(j.Entries) == 0 {
		fmt.Fprintf(a.env.stdout, "journal %s restored and removed\n", path)
	}
	return nil
}

// flagTarget is the identity of the target the global flags name, without
// opening it.
func (a *app) flagTarget() (undo.TargetID, error) {
	if a.g.memFile != "" {
		return undo.File(a.g.memFile)
	}
	p, err := a.resolveProfile()
	if err != nil {
		return undo.TargetID{}, err
	}
	c, err := pickController(p, a.g.controller)
	if err != nil {
		return undo.TargetID{}, err
	}
	if a.g.sim {
		return undo.Sim(p.Name + "/" + c.Label), nil
	}
	return undo.DevMem(c.Base), nil
}

// entryProfile loads the profile a journal entry was made with (madeWith);
// no built-in profile stands in for a gone file (the file may place the
// controller elsewhere, and a restore must write where the change was made).
func (a *app) entryProfile(e *undo.Entry) (*soc.Profile, error) {
	p, gone, err := a.madeWith(e.Profile, e.ProfileFile, "the change was made")
	if !gone {
		return p, err
	}
	how := "citune --profile FILE restore"
	if e.Target.Kind == undo.TargetFile {
		how = "citune --profile FILE --mem-file " + e.Target.Path + " restore"
	}
	return nil, fmt.Errorf("the change was made with the profile file %s (profile %s), which is gone: give it with %s", e.ProfileFile, e.Profile, how)
}

// restoreEntry returns one journal entry's target to its originals.
func (a *app) restoreEntry(e *undo.Entry, from, force, allowLive bool) error {
	p, err := a.entryProfile(e)
	if err != nil {
		return err
	}
	c, err := p.Controller(e.Controller)
	if err != nil {
		return err
	}
	var w soc.Where
	switch e.Target.Kind {
	case undo.TargetFile:
		w = soc.Where{Image: e.Target.Path, Writable: true}
	case undo.TargetSim:
		// Only the files and module parameters a simulated sweep changed
		// on this machine are journalled.
		w.Sim = true
	case undo.TargetDevMem:
		if c.Base != e.Target.Base {
			return fmt.Errorf("the journal names %s at 0x%08x but profile %s puts it at 0x%08x: not restored", e.Controller, e.Target.Base, p.Name, c.Base)
		}
	default:
		return fmt.Errorf("journal entry of kind %q cannot be restored", e.Target.Kind)
	}
	t, err := soc.Open(p, c, w)
	if err != nil {
		return err
	}
	defer t.Close()
	if id, err := t.ID(); err == nil && id.Key() != e.Target.Key() {
		return fmt.Errorf("%s is not the file the journal names any more (it was replaced): not restored", e.Target.Path)
	}
	u, closeUndo, err := a.restoreUndo(t, e, undoOpts{force: force, allowLive: allowLive})
	if err != nil {
		return err
	}
	defer closeUndo()
	fmt.Fprintf(a.env.stdout, "restoring %s (%s %s)\n", e.Target, p.Name, c.Label)
	restore := u.RestoreAll
	if from {
		restore = func(ctx context.Context) ([]undo.Restored, error) { return u.RestoreEntry(ctx, e) }
	}
	rs, err := restore(a.ctx)
	for _, r := range rs {
		// Values already back are listed too, marked "(already)": the
		// user sees every journalled item was checked.
		fmt.Fprintf(a.env.stdout, "restored %s %s\n", c.Label, r)
	}
	if err != nil && strings.Contains(err.Error(), "did not return") {
		return withCode(exitNotHeld, err)
	}
	return err
}

// restoreUndo checks t's identity and opens a restore session on it, with
// the host journal entry e's files, module parameters or reload need (e
// nil: none).
func (a *app) restoreUndo(t *soc.Target, e *undo.Entry, uo undoOpts) (*undo.Session, func(), error) {
	if err := t.Identify(); err != nil {
		return nil, nil, withCode(exitIdentity, fmt.Errorf("%w\nnothing was written", err))
	}
	if e != nil && (e.Reload != nil || len(e.Files) > 0 || len(e.ModParams) > 0) {
		if err := host.CheckReload(e.Reload); err != nil {
			return nil, nil, fmt.Errorf("%w\nnothing was written", err)
		}
		uo.host = host.HostFromReload(e.Reload)
	}
	return a.openUndo(t, undo.KindRestore, uo)
}

// restoreSnapshot writes a snapshot's tuning fields (with config, its
// configuration fields too) back to the target the flags name (else the
// one it was taken of), journalled like a set.
func (a *app) restoreSnapshot(b []byte, force, config bool) error {
	var sf snapshotFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	a.g.profile = cmp.Or(a.g.profile, sf.Target.Profile)
	a.g.controller = cmp.Or(a.g.controller, sf.Target.Controller)
	if a.g.memFile == "" && !a.g.sim && soc.Kind(sf.Target.Kind) == soc.KindFile {
		a.g.memFile = sf.Target.Path
	}
	t, err := a.open(true)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := snapshotFits(sf.Target, infoOf(t)); err != nil && !force {
		return err
	}
	changes, err := snapshotChanges(t, sf.Snapshot, config)
	if err != nil {
		return err
	}
	if len(changes) == 0 {
		what := "tuning field"
		if config {
			what = "tuning and configuration field"
		}
		fmt.Fprintf(a.env.stdout, "every %s already matches the snapshot\n", what)
		return nil
	}
	u, closeUndo, err := a.openUndo(t, undo.KindSet, undoOpts{force: force})
	if err != nil {
		return err
	}
	defer closeUndo()
	rs, err := u.Apply(changes)
	if err != nil {
		return err
	}
	if err := u.Settle(); err != nil {
		return err
	}
	var bad []string
	for _, r := range rs {
		st := "ok"
		if !r.Held() {
			st = "DID NOT RETURN"
			for _, m := range r.Mismatches {
				bad = append(bad, m.String())
			}
		}
		fmt.Fprintf(a.env.stdout, "restored %s %s (%s) = %s, reads %s  %s  (%s)\n", t.Controller.Label, r.Reg.Name, regs.Off(r.Reg.Offset), regs.Hex(r.New), regs.Hex(r.Readback), st, strings.Join(changeStrings(r.Changes), " "))
	}
	if len(bad) > 0 {
		return withCode(exitNotHeld, fmt.Errorf("some registers did not return to the snapshot's value:\n  %s", strings.Join(bad, "\n  ")))
	}
	return nil
}

// snapshotFits refuses a snapshot of another SoC or controller than the
// target: their values are not this controller's.
func snapshotFits(of, onto report.JSONTarget) error {
	var diff []string
	if !strings.EqualFold(of.Profile, onto.Profile) {
		diff = append(diff, fmt.Sprintf("SoC %s, not %s", of.Profile, onto.Profile))
	}
	if !strings.EqualFold(of.Controller, onto.Controller) || of.Base != onto.Base {
		diff = append(diff, fmt.Sprintf("controller %s @ %s, not %s @ %s", of.Controller, of.Base, onto.Controller, onto.Base))
	}
	if len(diff) == 0 {
		return nil
	}
	return usageErr("the snapshot was taken of another target (%s): nothing was written; --force writes it anyway", strings.Join(diff, "; "))
}

// snapshotChanges are the field changes that return t to the snapshot's
// tuning (with config, also configuration) fields, never live state.
func snapshotChanges(t *soc.Target, snap soc.Snapshot, config bool) ([]regs.Change, error) {
	var changes []regs.Change
	for _, rv := range snap.Registers {
		r := t.Profile.Map.At(rv.Offset)
		if r == nil || r.ReadOnly {
			continue
		}
		cur, err := t.Read32(r.Offset)
		if err != nil {
			return nil, err
		}
		for i := range r.Fields {
			f := &r.Fields[i]
			class := regs.ClassOf(r, f)
			if f.Access != regs.RW || class == regs.ClassLive || class == regs.ClassConfig && !config {
				continue
			}
			if f.Get(cur) != f.Get(rv.Value) {
				changes = append(changes, regs.Change{Ref: regs.Ref{Reg: r, Field: f}, Value: f.Get(rv.Value)})
			}
		}
	}
	return changes, nil
}
