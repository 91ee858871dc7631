package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
	"github.com/citune/citune/units"
)

func init() {
	register(&command{name: "dts", summary: "DT fragment/overlay and kernel parameters: a winner or live values",
		usage: "dts [--results RESULTS.jsonl] [--overlay [--dtb BASE.dtb] [--out FILE.dtso]]", run: runDTS,
		examples: []string{"citune dts --results usbh1.jsonl", "citune --sim dts",
			"citune dts --results usbh1.jsonl --overlay --dtb board.dtb --out usbh1.dtso"}})
}

func runDTS(a *app, args []string) error {
	fs := a.flags("dts")
	results := fs.String("results", "", "a sweep's results file: write down its verdict (default: the controller's live values)")
	minGain := minGainFlag(fs)
	var o overlayOpts
	fs.BoolVar(&o.on, "overlay", false, "write a device-tree overlay (.dtso) for dtc -@, fdtoverlay and U-Boot's fdt apply")
	fs.StringVar(&o.dtb, "dtb", "", "the board's base `DTB`, which decides whether the overlay targets a label or a path (with --overlay)")
	fs.StringVar(&o.out, "out", "", "write the overlay to `FILE.dtso` and its kernel parameters to FILE.bootargs (with --overlay)")
	fs.BoolVar(&o.force, "force", false, "replace existing --out files")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	a.minGain = *minGain
	if len(fs.Args()) > 0 {
		return usageErr("usage: citune dts [--results RESULTS.jsonl] [--overlay [--dtb BASE.dtb] [--out FILE.dtso]]")
	}
	if !o.on && (o.dtb != "" || o.out != "") {
		return usageErr("--dtb and --out go with --overlay")
	}
	var in dtsout.DTSInput
	var tinfo report.JSONTarget
	if *results != "" {
		res, err := loadResults(*results)
		if err != nil {
			return err
		}
		if _, in, err = a.decideResults(*results, res); err != nil {
			return err
		}
		// The sweep's target, as its results file names it.
		h := res.Header
		tinfo = report.JSONTarget{Profile: in.Profile.Name, Controller: in.Controller.Label, Node: in.Controller.Node,
			Base: fmt.Sprintf("%#08x", in.Controller.Base), Kind: h.Target, Path: h.TargetPath, Simulated: h.Simulated()}
	} else {
		t, err := a.open(false)
		if err != nil {
			return err
		}
		defer t.Close()
		snap, err := soc.Take(t.Profile.Map, t)
		if err != nil {
			return err
		}
		in = a.liveDTSInput(t, snap)
		tinfo = infoOf(t)
	}
	d := dtsout.BuildDTS(in)
	if o.on {
		return a.writeOverlay(o, in, d)
	}
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			Target       report.JSONTarget `json:"target"`
			Profile      string            `json:"profile"`
			Controller   string            `json:"controller"`
			Role         string            `json:"role"`
			Fragment     string            `json:"fragment"`
			Properties   []dtsout.DTSLine  `json:"properties"`
			KernelParams []dtsout.DTSLine  `json:"kernel_params"`
			Notes        []string          `json:"notes"`
		}{tinfo, in.Profile.Name, in.Controller.Label, string(in.Role), d.String(), d.Props, d.Params, d.Notes})
	}
	fmt.Fprint(a.env.stdout, textwrap.Escape(d.String()))
	return nil
}

// liveDTSInput is what `citune dts` makes of the live values snap.
func (a *app) liveDTSInput(t *soc.Target, snap soc.Snapshot) dtsout.DTSInput {
	in := dtsout.DTSInput{Profile: t.Profile, Controller: t.Controller, Role: t.Role(snap), Snapshot: snap,
		Settings: dtsout.TargetSettings(t, snap), ParamUsers: map[string][]soc.ParamUser{}}
	for _, k := range t.Profile.Knobs {
		if k.Param != "" {
			in.ParamUsers[k.Param] = soc.ParamScope(a.env.root, t.Profile, k.Param)
		}
	}
	in.Header = []string{
		fmt.Sprintf("citune dts: %s, live values (not measured)", header(t)),
		placeAfter(in.Controller),
	}
	if t.Simulated() {
		in.Header = append([]string{"SIMULATED controller (--sim): the simulator's values, not a board's"}, in.Header...)
	}
	return in
}

// kernelOf names the kernel a sweep ran under; a simulated sweep's
// figures owe nothing to this machine's kernel (files written before the
// header left it out for them name the host's, which is not shown).
func kernelOf(h results.Header) string {
	if h.Simulated() && !h.RealProbe() {
		return "simulated controller (no kernel)"
	}
	return "kernel " + orUnknown(h.Kernel)
}

// dtsText is the text `citune dts` prints for a results file's winner,
// or (results "") the live values in snap: also the TUI's export's.
func (a *app) dtsText(t *soc.Target, results string, snap soc.Snapshot) (string, error) {
	if results != "" {
		_, in, err := a.decideResults(results, nil)
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

func minGainFlag(fs *flag.FlagSet) *float64 {
	return fs.Float64("min-gain", -1, "the verdict's practical threshold in `PERCENT`: a smaller gain is no change (default: the sweep's, else 1)")
}

// decideResults ranks a results file (res, or read from path when nil) on
// the profile and controller the sweep ran on, under the verdict's rule
// (what can be made permanent there, the sweep's threshold or --min-gain),
// and makes the input of its fragment. dts, report and the TUI's export
// all decide through it.
func (a *app) decideResults(path string, res *results.Results) (rank.Ranking, dtsout.DTSInput, error) {
	if res == nil {
		var err error
		if res, err = loadResults(path); err != nil {
			return rank.Ranking{}, dtsout.DTSInput{}, err
		}
	}
	if err := res.CheckValues(); err != nil {
		return rank.Ranking{}, dtsout.DTSInput{}, fmt.Errorf("%s: %w", path, err)
	}
	h := res.Header
	p, err := a.resultsProfile(path, h.Profile, h.ProfileFile)
	if err != nil {
		return rank.Ranking{}, dtsout.DTSInput{}, err
	}
	c, err := p.Controller(h.Controller)
	if err != nil {
		return rank.Ranking{}, dtsout.DTSInput{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := a.conflictsWithResults(path, p, c); err != nil {
		return rank.Ranking{}, dtsout.DTSInput{}, err
	}
	in := dtsout.DTSInput{Profile: p, Controller: c, Role: regs.Role(h.Role), Snapshot: h.Snapshot, ParamUsers: h.ModParamControllers}
	pol := rank.Policy{MinGainPct: h.Plan.MinGainPct(), NotPermanent: dtsout.Permanence(in)}
	if a.minGain >= 0 {
		pol.MinGainPct = a.minGain
	}
	rk := res.Rank(pol)
	set, err := dtsout.WinnerSettings(res, rk)
	if err != nil {
		return rk, dtsout.DTSInput{}, fmt.Errorf("%s: %w", path, err)
	}
	v := rk.Verdict
	lines := []string{
		fmt.Sprintf("citune dts: %s %s (%s), role %s, from %s", p.Name, c.Label, c.Node, orUnknown(h.Role), path),
		fmt.Sprintf("%s sweep, probe %s, %s, started %s", h.Plan.Mode, h.Probe, kernelOf(h), h.Started.Format("2006-01-02 15:04 MST")),
		fmt.Sprintf("original settings: %s", units.MiBps.Rate(rk.Baseline.Median, rk.Baseline.Unit)),
		v.Headline(),
	}
	if m := h.SimulatedMark(); m != "" {
		lines = append([]string{m}, lines...)
	}
	lines = append(lines, v.Details()...)
	if v.Kind == rank.VerdictApply {
		lines = append(lines, "the values below are the recommended point's; the settings it keeps are at their original values")
	} else {
		lines = append(lines, "the values below are the original ones: committing them changes nothing on this board")
	}
	bad := 0
	var statuses []string // each once, in the order first met
	for _, x := range rk.Excluded {
		if x.Status == rank.StatusNotHeld || x.Status == rank.StatusCorrupt {
			bad++
			if !slices.Contains(statuses, string(x.Status)) {
				statuses = append(statuses, string(x.Status))
			}
		}
	}
	if bad > 0 {
		lines = append(lines, fmt.Sprintf("%d point(s) were not ranked (%s): see the results file", bad, strings.Join(statuses, ", ")))
	}
	if n := len(res.Ends); n == 0 || res.Ends[n-1].Status != results.StatusComplete {
		lines = append(lines, "the sweep did not complete: this is the best of what was measured")
	}
	lines = append(lines, placeAfter(c))
	in.Settings, in.Header = set, lines
	return rk, in, nil
}

// conflictsWithResults refuses --profile and --controller naming another
// SoC or controller than the results file's: the fragment would be
// relabelled as another node.
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

// madeWith loads the profile a results file or a journal entry names: its
// profile file, else the built-in one of its name. Where the file is gone,
// --profile from the command line (not a sidecar) stands in, and must be
// that profile (what is for the error: "the change was made"); gone: the
// file is gone and nothing stands in.
func (a *app) madeWith(name, file, what string) (p *soc.Profile, gone bool, err error) {
	if file == "" {
		p, err = loadProfile(name)
		return p, false, err
	}
	if p, err = loadProfile(file); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return p, false, err
	}
	if a.g.profile == "" || a.profileFrom != "" {
		return nil, true, nil
	}
	if p, err = loadProfile(a.g.profile); err == nil && p.Name != name {
		return nil, false, usageErr("--profile %s is profile %s, but %s with profile %s (file %s)", a.g.profile, p.Name, what, name, file)
	}
	return p, false, err
}

// resultsProfile loads the profile a results file was measured with
// (madeWith). Where a colleague's file is not on this machine and no
// --profile stands in, the built-in profile of its name does, with a
// warning (a copy of a built-in profile with board values of its own is
// common).
func (a *app) resultsProfile(path, name, file string) (*soc.Profile, error) {
	p, gone, err := a.madeWith(name, file, path+" was measured")
	if !gone {
		return p, err
	}
	if bp, berr := loadProfile(name); berr == nil && !strings.ContainsRune(name, os.PathSeparator) {
		fmt.Fprintf(a.env.stderr, "citune: %s was measured with the profile file %s, which is not on this machine: using the built-in profile %s (give --profile FILE for the original)\n", path, file, bp.Name)
		return bp, nil
	}
	return nil, usageErr("%s was measured with the profile file %s (profile %s), which is not on this machine: give it with --profile FILE", path, file, name)
}

// reportFlags refuses --profile/--controller contradicting a results file.
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

func orUnknown(s string) string { return cmp.Or(s, "unknown") }

type overlayOpts struct {
	on, force bool
	dtb       string // the board's base DTB, which decides label or path
	out       string // FILE.dtso; FILE.bootargs beside it
}

// overlayTarget decides how the overlay names the controller's node:
// from --dtb, else from the running system's device tree when it has
// the node (on the board), else by label with the reason.
func (a *app) overlayTarget(o overlayOpts, in dtsout.DTSInput) (dtsout.Target, error) {
	label, node := in.Controller.Label, in.Controller.Node
	if o.dtb != "" {
		b, err := os.ReadFile(o.dtb)
		if err != nil {
			return dtsout.Target{}, err
		}
		t, err := dtsout.ParseDTB(b)
		if err != nil {
			return dtsout.Target{}, fmt.Errorf("%s: %w", o.dtb, err)
		}
		return dtsout.FindTarget(t, filepath.Base(o.dtb), label, node), nil
	}
	if t := dtsout.ReadTree(a.env.root, "proc/device-tree"); t != nil {
		if tg := dtsout.FindTarget(t, "the running system's device tree", label, node); tg.Path != "" || strings.Contains(tg.Why, "__symbols__ (") {
			return tg, nil
		}
	}
	return dtsout.FindTarget(nil, "", label, node), nil
}

// writeOverlay is `citune dts --overlay`: the fragment's decision d as
// an overlay, its bootargs line and the boot-loader snippets.
func (a *app) writeOverlay(o overlayOpts, in dtsout.DTSInput, d dtsout.DTS) error {
	tg, err := a.overlayTarget(o, in)
	if err != nil {
		return err
	}
	dtbo := in.Controller.Label + "-citune.dtbo"
	if o.out != "" {
		dtbo = strings.TrimSuffix(filepath.Base(o.out), ".dtso") + ".dtbo"
	}
	// The fragment's last header line says where it goes; an overlay's
	// header says how it is applied instead.
	if n := len(d.Header); n > 0 && strings.HasPrefix(d.Header[n-1], "Place after") {
		d.Header = d.Header[:n-1]
	}
	src := d.Overlay(tg, dtbo)
	kp := d.KernelParams()
	uboot, extlinux := d.BootSnippets(dtbo)
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			Profile    string        `json:"profile"`
			Controller string        `json:"controller"`
			Target     dtsout.Target `json:"target"`
			Overlay    string        `json:"overlay"`
			Bootargs   string        `json:"bootargs"`
			UBoot      []string      `json:"uboot"`
			Extlinux   []string      `json:"extlinux"`
			Notes      []string      `json:"notes"`
		}{in.Profile.Name, in.Controller.Label, tg, src, kp, uboot, extlinux, d.Notes})
	}
	w := a.env.stdout
	if o.out == "" {
		fmt.Fprint(w, textwrap.Escape(src))
		return nil
	}
	if err := writeOutput(o.out, []byte(src), o.force); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (target %s)\n", o.out, tg.Why)
	if kp != "" {
		ba := strings.TrimSuffix(o.out, ".dtso") + ".bootargs"
		if err := writeOutput(ba, []byte(kp+"\n"), o.force); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s: bootargs %s\n", ba, kp)
	}
	fmt.Fprintf(w, "\ncompile: dtc -@ -I dts -O dtb -o %s %s\n", dtbo, o.out)
	fmt.Fprintf(w, "apply on the host: fdtoverlay -i BASE.dtb -o BOARD.dtb %s\n", dtbo)
	fmt.Fprintln(w, "\nU-Boot (boot script, before bootz):")
	for _, l := range uboot {
		fmt.Fprintln(w, "  "+textwrap.Escape(l))
	}
	fmt.Fprintln(w, "\nextlinux.conf (the boot entry):")
	for _, l := range extlinux {
		fmt.Fprintln(w, "  "+textwrap.Escape(l))
	}
	return nil
}
