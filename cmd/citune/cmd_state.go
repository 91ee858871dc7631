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
)

func init() {
	register(&command{name: "snapshot", summary: "save every register of the controller to a file", usage: "snapshot FILE", run: runSnapshot})
	register(&command{name: "restore", summary: "undo citune's changes (journal), or restore a snapshot", usage: "restore [JOURNAL|SNAPSHOT]", run: runRestore})
	register(&command{name: "mkimage", summary: "write a register image of reset values for --mem-file", usage: "mkimage --profile P [--controller C] FILE", run: runMkimage})
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
	if err := os.WriteFile(fs.Arg(0), append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.env.stderr, "saved %d registers of %s to %s\n", len(s.Registers), t, fs.Arg(0))
	return nil
}

func runRestore(a *app, args []string) error {
	fs := a.flags("restore")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 1 {
		return usageErr("usage: citune restore [JOURNAL|SNAPSHOT]")
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
			return a.restoreSnapshot(b)
		}
	}
	j, err := soc.LoadJournal(path)
	if err != nil {
		return err
	}
	if len(j.Entries) == 0 {
		fmt.Fprintf(a.env.stdout, "nothing to restore: no journal at %s\n", path)
		return nil
	}
	var errs []error
	for _, e := range append([]soc.Entry(nil), j.Entries...) {
		if err := a.restoreEntry(&e); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", e.Profile, e.Controller, err))
			continue
		}
		j.Remove(e.Key())
		if err := j.Save(path); err != nil {
			return err
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w\nthe journal %s keeps what was not restored", errors.Join(errs...), path)
	}
	fmt.Fprintf(a.env.stdout, "journal %s restored and removed\n", path)
	return nil
}

// entryProfile loads the profile a journal entry was made with.
func entryProfile(e *soc.Entry) (*soc.Profile, error) {
	if e.ProfileFile != "" {
		return loadProfile(e.ProfileFile)
	}
	return loadProfile(e.Profile)
}

// restoreEntry puts one journal entry's originals back.
func (a *app) restoreEntry(e *soc.Entry) error {
	p, err := entryProfile(e)
	if err != nil {
		return err
	}
	c, err := p.Controller(e.Controller)
	if err != nil {
		return err
	}
	if err := a.restoreExtras(e); err != nil {
		return err
	}
	if len(e.Registers) == 0 {
		return nil
	}
	var t *soc.Target
	switch e.Kind {
	case soc.KindFile:
		t, err = soc.OpenFile(p, c, e.Path, true)
	case soc.KindDevMem:
		t, err = soc.OpenDevMem(p, c)
	default:
		return fmt.Errorf("journal entry of kind %q cannot be restored", e.Kind)
	}
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.Identify(); err != nil {
		return withCode(exitIdentity, fmt.Errorf("%w\nnothing was written", err))
	}
	rs, err := soc.RestoreRegisters(p.Map, t.Acc, e.Registers)
	if err != nil {
		return err
	}
	return a.reportRestore(t, rs)
}

func (a *app) reportRestore(t *soc.Target, rs []regs.Result) error {
	var bad []string
	for _, r := range rs {
		st := "ok"
		if !r.Held() {
			st = "DID NOT RETURN"
			for _, m := range r.Mismatches {
				bad = append(bad, m.String())
			}
		}
		fmt.Fprintf(a.env.stdout, "restored %s %s (%#03x) = %s, reads %s  %s\n", t.Controller.Label, r.Reg.Name, r.Reg.Offset, regs.Hex(r.New), regs.Hex(r.Readback), st)
	}
	if len(bad) > 0 {
		return withCode(exitNotHeld, fmt.Errorf("some registers did not return to their original value:\n  %s", strings.Join(bad, "\n  ")))
	}
	return nil
}

// restoreSnapshot writes the writable registers of a snapshot file back to
// the target given by the global flags (or the one it was taken from).
func (a *app) restoreSnapshot(b []byte) error {
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
	if a.g.memFile == "" && !a.g.sim && sf.Target.Kind == soc.KindFile {
		a.g.memFile = sf.Target.Path
	}
	t, err := a.open(true)
	if err != nil {
		return err
	}
	defer t.Close()
	var js []soc.JReg
	for _, rv := range sf.Registers {
		r := t.Profile.Map.At(rv.Offset)
		if r == nil || r.ReadOnly || !writable(r) {
			continue
		}
		cur, err := t.Acc.Read32(r.Offset)
		if err != nil {
			return err
		}
		if cur&^r.ZeroOnWrite() == rv.Value&^r.ZeroOnWrite() {
			continue
		}
		js = append(js, soc.JReg{Name: r.Name, Offset: r.Offset, Original: rv.Value})
	}
	if len(js) == 0 {
		fmt.Fprintln(a.env.stdout, "every register already matches the snapshot")
		return nil
	}
	rs, err := soc.RestoreRegisters(t.Profile.Map, t.Acc, js)
	if err != nil {
		return err
	}
	return a.reportRestore(t, rs)
}

// writable reports whether the register has any field software may set.
func writable(r *regs.Register) bool {
	if len(r.Fields) == 0 {
		return true
	}
	for i := range r.Fields {
		if r.Fields[i].Access == regs.RW {
			return true
		}
	}
	return false
}

func runMkimage(a *app, args []string) error {
	fs := a.flags("mkimage")
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
	img := make([]byte, c.Size)
	for off := uint32(0); off < c.Size; off += 4 {
		v, err := t.Acc.Read32(off)
		if err != nil {
			return err
		}
		img[off], img[off+1], img[off+2], img[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	if err := os.WriteFile(fs.Arg(0), img, 0o644); err != nil {
		return err
	}
	what := "board values (as Linux leaves them)"
	if a.g.resetVals {
		what = "reset values"
	}
	fmt.Fprintf(a.env.stderr, "wrote %s: %#x bytes, %s of %s %s\n", fs.Arg(0), c.Size, what, p.Name, c.Label)
	return nil
}

func runDetect(a *app, args []string) error {
	fs := a.flags("detect")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	ps, err := builtinProfiles()
	if err != nil {
		return err
	}
	if a.g.profile != "" {
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
