package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
)

func init() {
	register(&command{
		name:    "dts",
		summary: "DT fragment and kernel parameters for a winner or live values",
		usage:   "dts [--results RESULTS.jsonl]",
		run:     runDTS,
	})
}

func runDTS(a *app, args []string) error {
	fs := a.flags("dts")
	results := fs.String("results", "", "a sweep's results file: persist its winner (default: the controller's live values)")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 {
		return usageErr("usage: citune dts [--results RESULTS.jsonl]")
	}
	var in dtsout.DTSInput
	if *results != "" {
		var err error
		if in, err = a.dtsFromResults(*results); err != nil {
			return err
		}
	} else {
		t, err := a.open(false)
		if err != nil {
			return err
		}
		defer t.Close()
		snap, err := soc.Take(t.Profile.Map, t.Acc)
		if err != nil {
			return err
		}
		in = a.liveDTSInput(t, snap)
	}
	d := dtsout.BuildDTS(in)
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			Profile      string           `json:"profile"`
			Controller   string           `json:"controller"`
			Role         string           `json:"role"`
			Fragment     string           `json:"fragment"`
			Properties   []dtsout.DTSLine `json:"properties"`
			KernelParams []dtsout.DTSLine `json:"kernel_params"`
			Notes        []string         `json:"notes"`
		}{in.Profile.Name, in.Controller.Label, string(in.Role), d.String(), d.Props, d.Params, d.Notes})
	}
	fmt.Fprint(a.env.stdout, textwrap.Escape(d.String()))
	return nil
}

// liveDTSInput is what `citune dts` makes of the controller's live
// values (snap).
func (a *app) liveDTSInput(t *soc.Target, snap soc.Snapshot) dtsout.DTSInput {
	in := dtsout.DTSInput{Profile: t.Profile, Controller: t.Controller, Role: t.Role(snap), Snapshot: snap,
		Settings: dtsout.LiveSettings(t.Profile, snap), ParamUsers: map[string][]soc.ParamUser{}}
	for _, k := range t.Profile.Knobs {
		if k.Param != "" {
			in.ParamUsers[k.Param] = soc.ParamScope(a.env.root, t.Profile, k.Param)
		}
	}
	in.Header = []string{
		fmt.Sprintf("citune dts: %s, live values (not measured)", header(t)),
		placeAfter(in.Controller),
	}
	return in
}

// dtsText is the text `citune dts` prints: for a results file's winner,
// or (results "") for the live values in snap. The TUI's export uses it,
// so the two agree byte for byte.
func (a *app) dtsText(t *soc.Target, results string, snap soc.Snapshot) (string, error) {
	if results != "" {
		in, err := a.dtsFromResults(results)
		if err != nil {
			return "", err
		}
		return dtsout.BuildDTS(in).String(), nil
	}
	return dtsout.BuildDTS(a.liveDTSInput(t, snap)).String(), nil
}

func placeAfter(c *soc.Controller) string {
	return fmt.Sprintf("Place after the SoC's .dtsi (the tree that defines &%s, %s); kernel parameters and notes are comments.", c.Label, c.Node)
}

// dtsFromResults takes the winner of a results file, with the profile and
// controller the sweep ran on; --profile and --controller naming others
// are refused.
func (a *app) dtsFromResults(path string) (dtsout.DTSInput, error) {
	res, err := results.Load(path)
	if err != nil {
		return dtsout.DTSInput{}, err
	}
	if err := res.CheckValues(); err != nil {
		return dtsout.DTSInput{}, fmt.Errorf("%s: %w", path, err)
	}
	h := res.Header
	p, err := a.resultsProfile(path, h.Profile, h.ProfileFile)
	if err != nil {
		return dtsout.DTSInput{}, err
	}
	c, err := p.Controller(h.Controller)
	if err != nil {
		return dtsout.DTSInput{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := a.conflictsWithResults(path, p, c); err != nil {
		return dtsout.DTSInput{}, err
	}
	rk := res.Rank()
	set, err := dtsout.WinnerSettings(res, rk)
	if err != nil {
		return dtsout.DTSInput{}, fmt.Errorf("%s: %w", path, err)
	}
	w := rk.Winner()
	lines := []string{
		fmt.Sprintf("citune dts: %s %s (%s), role %s, from %s", p.Name, c.Label, c.Node, orUnknown(h.Role), path),
		fmt.Sprintf("%s sweep, probe %s, kernel %s, started %s", h.Plan.Mode, h.Probe, orUnknown(h.Kernel), h.Started.Format("2006-01-02 15:04 MST")),
		fmt.Sprintf("winner: %s, %s", rank.SettingsString(w.Settings), rank.FormatRate(w.Median, w.Unit)),
	}
	if rk.OriginalWins {
		lines[2] = fmt.Sprintf("winner: the original settings, %s", rank.FormatRate(rk.Baseline.Median, rk.Baseline.Unit))
		lines = append(lines, fmt.Sprintf("every point swept was significantly slower; the best, %s: %s, %s", rank.SettingsString(w.Settings), rank.FormatRate(w.Median, w.Unit), w.VsBaseline),
			"the values below are the original ones: committing them changes nothing on this board")
	} else if w.VsBaseline != nil {
		lines = append(lines, fmt.Sprintf("against the original settings (%s): %s", rank.FormatRate(rk.Baseline.Median, rk.Baseline.Unit), w.VsBaseline))
		if !w.VsBaseline.Significant {
			lines = append(lines, "the winner is not significantly faster than the original settings: keeping them is as good")
		}
	}
	var bad []string
	for _, x := range rk.Excluded {
		if x.Status == rank.StatusNotHeld || x.Status == rank.StatusCorrupt {
			bad = append(bad, string(x.Status))
		}
	}
	if len(bad) > 0 {
		lines = append(lines, fmt.Sprintf("%d point(s) were not ranked (%s): see the results file", len(bad), strings.Join(uniq(bad), ", ")))
	}
	if n := len(res.Ends); n == 0 || res.Ends[n-1].Status != sweep.EndComplete {
		lines = append(lines, "the sweep did not complete: this is the best of what was measured")
	}
	lines = append(lines, placeAfter(c))
	// The controllers a module parameter changes, as the sweep recorded
	// them; the profile's otherwise.
	return dtsout.DTSInput{Profile: p, Controller: c, Role: soc.Role(h.Role), Settings: set, Snapshot: h.Snapshot, Header: lines, ParamUsers: h.ModParamControllers}, nil
}

// conflictsWithResults refuses --profile and --controller that name
// another SoC or controller than the one a results file was measured
// on: the fragment would be relabelled as another node.
func (a *app) conflictsWithResults(path string, p *soc.Profile, c *soc.Controller) error {
	if a.g.profile != "" && a.profileFrom == "" {
		fp, err := loadProfile(a.g.profile)
		if err != nil {
			return err
		}
		if fp.Name != p.Name {
			return usageErr("--profile %s: %s was measured on %s; leave --profile out (the results file says which)", a.g.profile, path, p.Name)
		}
	}
	if a.g.controller != "" && a.controllerFrom == "" {
		fc, err := p.Controller(a.g.controller)
		if err != nil || fc.Label != c.Label {
			return usageErr("--controller %s: %s was measured on %s (%s); leave --controller out (the results file says which)", a.g.controller, path, c.Label, c.Node)
		}
	}
	return nil
}

// standInProfile is --profile given on the command line (not taken from
// an image's sidecar) standing in for the profile file file of profile
// name, which is gone; it must be of that name (what: "the change was
// made", "r.jsonl was measured", for the error). given is false without
// such a --profile.
func (a *app) standInProfile(name, file, what string) (p *soc.Profile, given bool, err error) {
	if a.g.profile == "" || a.profileFrom != "" {
		return nil, false, nil
	}
	fp, err := loadProfile(a.g.profile)
	if err != nil {
		return nil, true, err
	}
	if fp.Name != name {
		return nil, true, usageErr("--profile %s is profile %s, but %s with profile %s (file %s)", a.g.profile, fp.Name, what, name, file)
	}
	return fp, true, nil
}

// resultsProfile loads the profile a results file was measured with: its
// profile file where it names one, else the built-in profile of its name.
// A colleague's results file may name a profile file that is not on this
// machine: then --profile FILE gives it (it must have the same name), or,
// without --profile, the built-in profile of that name stands in, with a
// warning (a copy of a built-in profile with board values of its own is
// common); with neither the error says to give --profile.
func (a *app) resultsProfile(path, name, file string) (*soc.Profile, error) {
	if file == "" {
		return loadProfile(name)
	}
	p, err := loadProfile(file)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return p, err
	}
	if fp, given, err := a.standInProfile(name, file, path+" was measured"); given {
		return fp, err
	}
	if bp, berr := loadProfile(name); berr == nil && !strings.ContainsRune(name, os.PathSeparator) {
		fmt.Fprintf(a.env.stderr, "citune: %s was measured with the profile file %s, which is not on this machine: using the built-in profile %s (give --profile FILE for the original)\n", path, file, bp.Name)
		return bp, nil
	}
	return nil, usageErr("%s was measured with the profile file %s (profile %s), which is not on this machine: give it with --profile FILE", path, file, name)
}

// reportFlags refuses --profile/--controller that contradict a results
// file given to report (the profile and controller come from the file).
func (a *app) reportFlags(s *report.Sweep) error {
	if a.g.profile == "" && a.g.controller == "" || s.Profile == "" {
		return nil
	}
	p, err := a.resultsProfile(s.File, s.Profile, s.ProfileFile)
	if err != nil {
		return err
	}
	c, err := p.Controller(s.Controller)
	if err != nil {
		return fmt.Errorf("%s: %w", s.File, err)
	}
	return a.conflictsWithResults(s.File, p, c)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func uniq(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
