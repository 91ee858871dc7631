package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/undo"
)

func init() {
	register(&command{name: "snapshot", summary: "save every register of the controller to a file", usage: "snapshot [--force] FILE", run: runSnapshot})
	register(&command{name: "restore", summary: "undo citune's changes (journal), or restore a snapshot", usage: "restore [--force] [JOURNAL | SNAPSHOT [--config]]", run: runRestore,
		noJSON: "its outcome is its exit code; `citune get --json` or `citune dump --json` show the values afterwards"})
	register(&command{name: "mkimage", summary: "write a register image of reset values for --mem-file", usage: "mkimage [--force] --profile P [--controller C] FILE", run: runMkimage})
	register(&command{name: "detect", summary: "detect the SoC and check the controller's identity", usage: "detect", run: runDetect})
}

// snapshotFile is the on-disk snapshot format.
type snapshotFile struct {
	Kind    string     `json:"kind"` // "citune-snapshot"
	Version int        `json:"version"`
	Taken   time.Time  `json:"taken"`
	Target  targetInfo `json:"target"`
	soc.Snapshot
}

const snapshotKind = "citune-snapshot"

func runSnapshot(a *app, args []string) error {
	fs := a.flags("snapshot")
	force := fs.Bool("force", false, "replace an existing file (a snapshot of the originals is worth keeping)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) != 1 {
		return usageErr("usage: citune snapshot FILE")
	}
	t, err := a.open(false)
	if err != nil {
		return err
	}
	defer t.Close()
	s, err := soc.Take(t.Profile.Map, t.Acc)
	if err != nil {
		return err
	}
	sf := snapshotFile{Kind: snapshotKind, Version: 1, Taken: time.Now().UTC(), Target: infoOf(t), Snapshot: s}
	b, err := json.MarshalIndent(sf, "", "  ")
	if err != nil {
		return err
	}
	if err := writeOutput(fs.Arg(0), append(b, '\n'), *force); err != nil {
		return err
	}
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			File      string     `json:"file"`
			Target    targetInfo `json:"target"`
			Registers int        `json:"registers"`
		}{fs.Arg(0), infoOf(t), len(s.Registers)})
	}
	fmt.Fprintf(a.env.stderr, "saved %d registers of %s to %s\n", len(s.Registers), t, fs.Arg(0))
	return nil
}

func runRestore(a *app, args []string) error {
	fs := a.flags("restore")
	force := fs.Bool("force", false, "restore even while a sweep or TUI session owns the target")
	config := fs.Bool("config", false, "with a SNAPSHOT: also restore configuration fields, not only the tuning knobs")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 1 {
		return usageErr("usage: citune restore [--force] [JOURNAL | SNAPSHOT [--config]]")
	}
	path := a.journalPath()
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
	}
	j, err := undo.Load(path)
	if err != nil {
		return err
	}
	entries := j.Entries
	if a.g.sim || a.g.memFile != "" || a.g.profile != "" || a.g.controller != "" {
		// Only the target the flags name.
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
		fmt.Fprintf(a.env.stdout, "nothing to restore: no journal at %s\n", path)
		return nil
	}
	var errs []error
	for _, e := range entries {
		if err := a.restoreEntry(path, &e, *force); err != nil {
			errs = append(errs, fmt.Errorf("%s (%s %s): %w", e.Target, e.Profile, e.Controller, err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w\nthe journal %s keeps what was not restored", errors.Join(errs...), path)
	}
	if j, err := undo.Load(path); err == nil && len(j.Entries) == 0 {
		fmt.Fprintf(a.env.stdout, "journal %s restored and removed\n", path)
	}
	return nil
}

// flagTarget is the identity of the target the global flags name,
// without opening it: the image's device and inode, or the physical base
// of the profile's controller.
func (a *app) flagTarget() (undo.TargetID, error) {
	if a.g.memFile != "" {
		return undo.File(a.g.memFile)
	}
	p, err := a.resolveProfile()
	if err != nil {
		return undo.TargetID{}, err
	}
	c, err := a.pickController(p)
	if err != nil {
		return undo.TargetID{}, err
	}
	if a.g.sim {
		return undo.Sim(p.Name + "/" + c.Label), nil
	}
	return undo.DevMem(c.Base), nil
}

// entryProfile loads the profile a journal entry was made with.
func entryProfile(e *undo.Entry) (*soc.Profile, error) {
	if e.ProfileFile != "" {
		return loadProfile(e.ProfileFile)
	}
	return loadProfile(e.Profile)
}

// restoreEntry returns one journal entry's target to its originals.
func (a *app) restoreEntry(journal string, e *undo.Entry, force bool) error {
	p, err := entryProfile(e)
	if err != nil {
		return err
	}
	c, err := p.Controller(e.Controller)
	if err != nil {
		return err
	}
	var t *soc.Target
	switch e.Target.Kind {
	case undo.TargetFile:
		t, err = soc.OpenFile(p, c, e.Target.Path, true)
	case undo.TargetSim:
		// Only the files and module parameters a simulated sweep changed
		// on this machine are journalled.
		t, err = soc.OpenSim(p, c, soc.SimOptions{})
	case undo.TargetDevMem:
		if c.Base != e.Target.Base {
			return fmt.Errorf("the journal names %s at %#x but profile %s puts it at %#x: not restored", e.Controller, e.Target.Base, p.Name, c.Base)
		}
		t, err = soc.OpenDevMem(p, c)
	default:
		return fmt.Errorf("journal entry of kind %q cannot be restored", e.Target.Kind)
	}
	if err != nil {
		return err
	}
	defer t.Close()
	if id, err := t.ID(); err == nil && id.Key() != e.Target.Key() {
		return fmt.Errorf("%s is not the file the journal names any more (it was replaced): not restored", e.Target.Path)
	}
	if err := t.Identify(); err != nil {
		return withCode(exitIdentity, fmt.Errorf("%w\nnothing was written", err))
	}
	uo := undoOpts{force: force}
	if e.Reload != nil || len(e.Files) > 0 || len(e.ModParams) > 0 {
		uo.host = host.HostFromReload(e.Reload)
	}
	u, closeUndo, err := a.openUndo(t, undo.KindRestore, uo)
	if err != nil {
		return err
	}
	defer closeUndo()
	fmt.Fprintf(a.env.stdout, "restoring %s (%s %s)\n", e.Target, p.Name, c.Label)
	rs, err := u.RestoreAll(a.ctx)
	for _, r := range rs {
		// Values already back (a module reload resets the controller)
		// are listed too, marked "(already)": the user sees every
		// journalled item was checked.
		fmt.Fprintf(a.env.stdout, "restored %s %s\n", c.Label, r)
	}
	if err != nil {
		if strings.Contains(err.Error(), "did not return") {
			return withCode(exitNotHeld, err)
		}
		return err
	}
	return nil
}

// restoreSnapshot writes a snapshot's tuning fields (with config, its
// configuration fields too; never live state) back to the target given by
// the global flags (or the one it was taken from), through an undo
// session: the changes are journalled like a set, and fields that return
// to their journalled originals leave the journal.
func (a *app) restoreSnapshot(b []byte, force, config bool) error {
	var sf snapshotFile
	if err := json.Unmarshal(b, &sf); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if a.g.profile == "" {
		a.g.profile = sf.Target.Profile
	}
	if a.g.controller == "" {
		a.g.controller = sf.Target.Controller
	}
	if a.g.memFile == "" && !a.g.sim && soc.Kind(sf.Target.Kind) == soc.KindFile {
		a.g.memFile = sf.Target.Path
	}
	t, err := a.open(true)
	if err != nil {
		return err
	}
	defer t.Close()
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
		fmt.Fprintf(a.env.stdout, "restored %s %s (%#03x) = %s, reads %s  %s  (%s)\n", t.Controller.Label, r.Reg.Name, r.Reg.Offset, regs.Hex(r.New), regs.Hex(r.Readback), st, strings.Join(changeStrings(r.Changes), " "))
	}
	if len(bad) > 0 {
		return withCode(exitNotHeld, fmt.Errorf("some registers did not return to the snapshot's value:\n  %s", strings.Join(bad, "\n  ")))
	}
	return nil
}

func runMkimage(a *app, args []string) error {
	fs := a.flags("mkimage")
	force := fs.Bool("force", false, "replace an existing file")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) != 1 {
		return usageErr("usage: citune mkimage --profile P [--controller C] FILE")
	}
	if a.g.profile == "" {
		return usageErr("mkimage needs --profile")
	}
	p, err := loadProfile(a.g.profile)
	if err != nil {
		return err
	}
	c, err := a.pickController(p)
	if err != nil {
		return err
	}
	// The image holds what the simulated controller starts with: what
	// Linux leaves on a running board, or with --reset-values the reset
	// values.
	t, err := soc.OpenSim(p, c, a.simOptions())
	if err != nil {
		return err
	}
	img := make([]byte, c.Span()) // the window and the usbmisc word
	for off := uint32(0); off < c.Span(); off += 4 {
		v, err := t.Acc.Read32(off)
		if errors.Is(err, regs.ErrAbsent) {
			// A host-only core has no register here; citune never
			// reads it, the image holds 0.
			v, err = 0, nil
		}
		if err != nil {
			return err
		}
		img[off], img[off+1], img[off+2], img[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	if err := writeOutput(fs.Arg(0), img, *force); err != nil {
		return err
	}
	// The sidecar names profile and controller: --mem-file FILE alone
	// is enough afterwards.
	if err := writeSidecar(fs.Arg(0), a.g.profile, p.Name, c.Label, a.g.resetVals, *force); err != nil {
		return err
	}
	what := "board values (as Linux leaves them)"
	if a.g.resetVals {
		what = "reset values"
	}
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			File       string `json:"file"`
			Sidecar    string `json:"sidecar"`
			Profile    string `json:"profile"`
			Controller string `json:"controller"`
			Bytes      uint32 `json:"bytes"`
			Values     string `json:"values"`
		}{fs.Arg(0), sidecarPath(fs.Arg(0)), p.Name, c.Label, c.Span(), map[bool]string{true: "reset", false: "board"}[a.g.resetVals]})
	}
	fmt.Fprintf(a.env.stderr, "wrote %s: %#x bytes, %s of %s %s (described in %s)\n", fs.Arg(0), c.Span(), what, p.Name, c.Label, sidecarPath(fs.Arg(0)))
	return nil
}

func runDetect(a *app, args []string) error {
	fs := a.flags("detect")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if a.g.sim || a.g.memFile != "" && !a.mayDetect() {
		return a.detectOffline()
	}
	ps, err := builtinProfiles()
	if err != nil {
		return err
	}
	if a.g.profile != "" && a.profileFrom == "" {
		p, err := loadProfile(a.g.profile)
		if err != nil {
			return err
		}
		ps = []*soc.Profile{p}
	}
	d, derr := soc.Detect(a.env.root, ps, a.identifyLive)
	if a.g.json {
		out := struct {
			Compatible []string `json:"compatible"`
			SocID      string   `json:"soc_id"`
			Candidates []string `json:"candidates"`
			Profile    string   `json:"profile,omitempty"`
			Notes      []string `json:"notes,omitempty"`
			Error      string   `json:"error,omitempty"`
		}{Compatible: d.Compatible, SocID: d.SocID, Notes: d.Notes}
		for _, p := range d.Candidates {
			out.Candidates = append(out.Candidates, p.Name)
		}
		if d.Chosen != nil {
			out.Profile = d.Chosen.Name
		}
		if derr != nil {
			out.Error = derr.Error()
		}
		if err := writeJSON(a.env.stdout, out); err != nil {
			return err
		}
		return derr
	}
	w := humanOut(a.env.stdout, a.env.isTTY)
	fmt.Fprintf(w, "device tree compatible: %s\n", strings.Join(d.Compatible, ", "))
	fmt.Fprintf(w, "soc_id:                 %s\n", d.SocID)
	for _, n := range d.Notes {
		fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(n, "\n", "\n  "))
	}
	if derr != nil {
		return derr
	}
	fmt.Fprintf(w, "profile: %s (%s)\n", d.Chosen.Name, d.Chosen.Title)
	return nil
}

// detectOffline is detect without a board: the simulator, or an image on
// a machine without the board's device tree. It says which profile and
// controller the other commands would use and why, and runs the identity
// checks on the target.
func (a *app) detectOffline() error {
	pWhy, cWhy := "--profile", "--controller"
	switch {
	case a.profileFrom != "":
		pWhy = a.profileFrom
	case a.g.profile == "" && a.g.sim:
		pWhy = "the default for --sim"
	case a.g.profile == "":
		return usageErr("detect: no device tree to detect from (%s), and the image %s has no %s: give --profile (mkimage records it)", "/"+soc.CompatiblePath, a.g.memFile, sidecarPath(a.g.memFile))
	}
	p, err := a.resolveProfile()
	if err != nil {
		return err
	}
	c, err := a.pickController(p)
	if err != nil {
		return err
	}
	switch {
	case a.controllerFrom != "":
		cWhy = a.controllerFrom
	case a.g.controller == "" && c.Label == "usbh1":
		cWhy = "the default: usbh1, the first host port"
	case a.g.controller == "":
		cWhy = "the default: the profile's first controller"
	}
	t, err := a.openProfile(p, false)
	if err != nil {
		return err
	}
	defer t.Close()
	idErr := t.Identify()
	if a.g.json {
		out := struct {
			Target         targetInfo `json:"target"`
			ProfileFrom    string     `json:"profile_from"`
			ControllerFrom string     `json:"controller_from"`
			Identity       bool       `json:"identity"`
			Error          string     `json:"error,omitempty"`
		}{infoOf(t), pWhy, cWhy, idErr == nil, ""}
		if idErr != nil {
			out.Error = idErr.Error()
		}
		if err := writeJSON(a.env.stdout, out); err != nil {
			return err
		}
	} else {
		w := humanOut(a.env.stdout, a.env.isTTY)
		fmt.Fprintf(w, "target: %s\n", header(t))
		fmt.Fprintf(w, "profile: %s (%s), from %s\n", p.Name, p.Title, pWhy)
		fmt.Fprintf(w, "controller: %s (%s @ %#08x, %s core), from %s\n", c.Label, c.Node, c.Base, orUnknown(string(c.Core)), cWhy)
		if idErr == nil {
			fmt.Fprintln(w, "identity checks: pass")
		}
	}
	if idErr != nil {
		return withCode(exitIdentity, fmt.Errorf("identity checks: %w", idErr))
	}
	return nil
}

// snapshotChanges lists the field changes that return t to the snapshot:
// its tuning knobs (with config, its configuration fields too), never
// live state, only where the value differs now.
func snapshotChanges(t *soc.Target, snap soc.Snapshot, config bool) ([]regs.Change, error) {
	var changes []regs.Change
	for _, rv := range snap.Registers {
		r := t.Profile.Map.At(rv.Offset)
		if r == nil || r.ReadOnly {
			continue
		}
		cur, err := t.Acc.Read32(r.Offset)
		if err != nil {
			return nil, err
		}
		for i := range r.Fields {
			f := &r.Fields[i]
			if f.Access != regs.RW {
				continue
			}
			switch regs.ClassOf(r, f) {
			case regs.ClassLive:
				continue
			case regs.ClassConfig:
				if !config {
					continue
				}
			}
			if f.Get(cur) != f.Get(rv.Value) {
				changes = append(changes, regs.Change{Ref: regs.Ref{Reg: r, Field: f}, Value: f.Get(rv.Value)})
			}
		}
	}
	return changes, nil
}
