package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
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
	Kind    string            `json:"kind"` // "citune-snapshot"
	Version int               `json:"version"`
	Taken   time.Time         `json:"taken"`
	Target  report.JSONTarget `json:"target"`
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
	s, err := soc.Take(t.Profile.Map, t)
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
			File      string            `json:"file"`
			Target    report.JSONTarget `json:"target"`
			Registers int               `json:"registers"`
		}{fs.Arg(0), infoOf(t), len(s.Registers)})
	}
	fmt.Fprintf(a.env.stderr, "saved %d registers of %s to %s\n", len(s.Registers), t, fs.Arg(0))
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
	c, err := pickController(p, a.g.controller)
	if err != nil {
		return err
	}
	// The simulated controller's start: the board's or the reset values.
	o, err := a.simOptions()
	if err != nil {
		return err
	}
	t, err := soc.Open(p, c, soc.Where{Sim: true, SimOptions: o})
	if err != nil {
		return err
	}
	img := make([]byte, c.Span()) // the window and the usbmisc word
	for off := uint32(0); off < c.Span(); off += 4 {
		v, err := t.Read32(off)
		if errors.Is(err, regs.ErrAbsent) {
			// A host-only core has none here: never read, the image holds 0.
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
	// The sidecar makes --mem-file FILE alone enough afterwards.
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
		}{fs.Arg(0), sidecarPath(fs.Arg(0)), p.Name, c.Label, c.Span(), valuesName(a.g.resetVals)})
	}
	fmt.Fprintf(a.env.stderr, "wrote %s: %d bytes, %s of %s %s (described in %s)\n", fs.Arg(0), c.Span(), what, p.Name, c.Label, sidecarPath(fs.Arg(0)))
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
		}{Compatible: d.Compatible, SocID: d.SocID, Notes: d.Notes, Error: errText(derr)}
		for _, p := range d.Candidates {
			out.Candidates = append(out.Candidates, p.Name)
		}
		if d.Chosen != nil {
			out.Profile = d.Chosen.Name
		}
		return cmp.Or(writeJSON(a.env.stdout, out), derr)
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

// detectOffline is detect without a board (the simulator, or an image): it
// says which profile and controller commands would use and why, and runs
// the identity checks.
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
	c, err := pickController(p, a.g.controller)
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
			Target         report.JSONTarget `json:"target"`
			ProfileFrom    string            `json:"profile_from"`
			ControllerFrom string            `json:"controller_from"`
			Identity       bool              `json:"identity"`
			Error          string            `json:"error,omitempty"`
		}{infoOf(t), pWhy, cWhy, idErr == nil, errText(idErr)}
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
