package main

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/bootargs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// The one-shot resume a cmdline: sweep installs: a systemd unit where
// systemd runs, else an init script busybox's rcS (and sysvinit's rc) runs.
var (
	resumeService = bootargs.ResumeFiles[1]
	resumeWants   = bootargs.ResumeFiles[0]
	resumeInit    = bootargs.ResumeFiles[2]
)

// hasCmdlineAxis says whether the plan sweeps across reboots.
func hasCmdlineAxis(pl plan.Plan) bool {
	return slices.ContainsFunc(pl.Axes, func(a plan.Axis) bool { return a.Kind == plan.KindCmdline || a.Kind == plan.KindDT })
}

// bootStore finds the boot loader's store for a cmdline: sweep.
func (a *app) bootStore(o *sweepOpts, pl plan.Plan) (st bootargs.Store, root string, err error) {
	if !hasCmdlineAxis(pl) {
		return nil, "", nil
	}
	// Absolute: `citune restore` may run elsewhere.
	if root, err = filepath.Abs(o.sysRoot); err != nil {
		return nil, "", err
	}
	if st, err = bootargs.Detect(root); err != nil {
		return nil, "", usageErr("sweep: a cmdline: or dt: axis: %v", err)
	}
	fmt.Fprintf(a.env.stderr, "boot loader: %s; each point's kernel arguments and overlays are written there, one boot each\n", st.Describe())
	if st.Kind() == bootargs.KindExtlinux {
		fmt.Fprintln(a.env.stderr, "note: extlinux.conf has no boot counter: a point that does not boot stays until the board is booted by hand (the README says how to get back)")
	}
	return st, root, nil
}

// resumeArgs is the sweep's command line after a reboot: the plan left
// out (a resumed sweep takes the results file's), --resume FILE.
func resumeArgs(args []string, out string) []string {
	drop := map[string]bool{"axis": true, "plan": true, "out": true, "resume": true, "mode": true, "repeat": true, "warmup": true,
		"seed": true, "baseline-every": true, "budget": true, "min-gain": true, "settle": true}
	var res []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			break
		}
		name, _, hasVal := strings.Cut(strings.TrimLeft(w, "-"), "=")
		switch {
		case strings.HasPrefix(w, "-") && drop[name]:
			if !hasVal {
				i++
			}
		case w == "--force" || w == "-force":
		default:
			res = append(res, w)
		}
	}
	return append(res, "--resume", host.AbsPath(out))
}

func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, s := range args {
		q[i] = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// installResume writes the one-shot resume under root.
func installResume(root string, cmd []string) (string, error) {
	line := shellQuote(cmd)
	if _, err := os.Stat(filepath.Join(root, "run/systemd/system")); err == nil {
		// systemd's own quoting: C escapes in double quotes, $ and %
		// doubled (it expands variables and specifiers there).
		q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", "$$", "%", "%%").Replace(line + " >>/var/log/citune-resume.log 2>&1")
		unit := "[Unit]\nDescription=citune: resume the reboot sweep\nAfter=local-fs.target\n\n[Service]\nType=simple\nExecStart=/bin/sh -c \"" +
			q + "\"\n\n[Install]\nWantedBy=multi-user.target\n"
		p := filepath.Join(root, resumeService)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, resumeWants)), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(unit), 0o644); err != nil {
			return "", err
		}
		os.Remove(filepath.Join(root, resumeWants))
		return "/" + resumeService, os.Symlink("/"+resumeService, filepath.Join(root, resumeWants))
	}
	p := filepath.Join(root, resumeInit)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	script := "#!/bin/sh\n# citune: resume the reboot sweep after boot; removed when it ends\n[ \"$1\" = stop ] && exit 0\n(" + line + ") </dev/null >>/var/log/citune-resume.log 2>&1 &\n"
	return "/" + resumeInit, os.WriteFile(p, []byte(script), 0o755)
}

// afterRun ends a cmdline: sweep's run: for a reboot it installs the
// resume and reboots; at the end (or a stop) it removes the resume.
func (a *app) afterRun(o *sweepOpts, pl plan.Plan, runErr error) error {
	if !hasCmdlineAxis(pl) {
		return runErr
	}
	w := a.env.stderr
	if !errors.Is(runErr, sweep.ErrReboot) {
		if gone := bootargs.RemoveResume(o.sysRoot); len(gone) > 0 {
			fmt.Fprintf(w, "removed the resume at boot (%s)\n", strings.Join(gone, ", "))
		}
		return runErr
	}
	args := absArgs(a.args[1:])
	if jp, err := a.journalPath(); err == nil && a.g.journal == "" {
		// The boot's environment has no $CITUNE_JOURNAL.
		args = append([]string{"--journal", jp}, args...)
	}
	exe, err := os.Executable()
	if err != nil {
		exe = "citune"
	}
	where, err := installResume(o.sysRoot, append([]string{exe}, resumeArgs(args, o.out)...))
	if err != nil {
		return fmt.Errorf("installing the resume at boot: %w (the boot arguments are written: run `citune restore` to put them back)", err)
	}
	fmt.Fprintf(w, "resume at boot: %s runs `citune sweep --resume %s` after the boot\nrebooting: %s\n", where, o.out, o.reboot)
	cmd := exec.Command("/bin/sh", "-c", o.reboot)
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("reboot command %q: %w (the next boot's arguments are written; reboot by hand, or `citune restore`)", o.reboot, err)
	}
	return nil
}

// `citune sweep --abort [FILE]`: a sweep that would go on
// (a reboot sweep resumes at the next boot) is stopped for good.
//
// Decisions:
//   - It is `citune restore` of the sweep's target (registers, files,
//     module parameters, the boot loader's variables: bootargs and
//     fdtoverlays, the one-shot boot variables) plus the removal of the
//     resume at boot and an `aborted` end record in the results file, so
//     `report` says the sweep was stopped and nothing resumes it.
//   - FILE defaults to the results file the installed resume names; the
//     target to the results header's (as --resume takes them).
//   - The target's lock decides who owns the sweep: while a live process
//     holds it (the resumed sweep measuring now) nothing is changed; that
//     process restores by itself when stopped, and --abort then marks
//     the file.
//   - A second --abort finds the file ended, nothing journalled and no
//     resume: it says there is nothing to abort and exits 0.

// quotedArg finds flag's single-quoted value ('--resume' 'FILE') in an
// installed resume's command ("" where it is not there). A value holding
// a quote (shellQuote closes the quoting around it) comes back cut: its
// file is not found, and --abort FILE names it.
func quotedArg(b []byte, flag string) string {
	_, rest, ok := strings.Cut(string(b), "'"+flag+"' '")
	v, _, closed := strings.Cut(rest, "'")
	if !ok || !closed {
		return ""
	}
	return v
}

// installedResume returns the resume at boot under root, the results
// file it resumes ("" where none is installed) and the journal it names.
func installedResume(root string) (where, file, journal string) {
	for _, p := range bootargs.ResumeFiles {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			continue
		}
		where = "/" + p
		journal = cmp.Or(quotedArg(b, "--journal"), journal)
		if f := quotedArg(b, "--resume"); f != "" {
			return where, f, journal
		}
	}
	return where, "", journal
}

func (a *app) abortSweep(o *sweepOpts, set map[string]bool, words []string) error {
	for _, f := range []string{"axis", "plan", "resume", "out", "mode", "repeat", "warmup", "seed", "budget", "min-gain", "force"} {
		if set[f] {
			return usageErr("sweep --abort [RESULTS]: --%s does not go with it (it stops a sweep, it starts none)", f)
		}
	}
	if len(words) > 1 {
		return usageErr("usage: citune sweep --abort [--sys-root DIR] [RESULTS.jsonl]")
	}
	where, resumes, journal := installedResume(o.sysRoot)
	// The journal the resumed sweep would use (its command names it).
	a.g.journal = cmp.Or(a.g.journal, journal)
	file := resumes
	if len(words) == 1 {
		file = words[0]
		if resumes != "" && !undo.SameFile(file, resumes) {
			return fmt.Errorf("sweep --abort: the sweep that resumes at boot (%s) is %s, not %s: nothing was changed (abort that one with `citune sweep --abort %s`)", where, resumes, file, resumes)
		}
	}
	if file == "" {
		if where != "" {
			return fmt.Errorf("sweep --abort: %s names no results file: give it (citune sweep --abort RESULTS.jsonl), or remove the resume and run `citune restore`", where)
		}
		// An abort killed after it removed the resume leaves the journal:
		// a second run must not say there is nothing left.
		if path, err := a.journalPath(); err == nil {
			if j, err := undo.Load(path); err == nil && len(j.Entries) > 0 {
				return fmt.Errorf("sweep --abort: no sweep resumes at boot under %s, but the journal %s holds what a sweep changed: `citune restore` puts it back (or give the results file: citune sweep --abort RESULTS.jsonl)", o.sysRoot, path)
			}
		}
		fmt.Fprintf(a.env.stdout, "nothing to abort: no sweep resumes at boot under %s (give the results file to abort another sweep)\n", o.sysRoot)
		return nil
	}
	res, err := loadResults(file)
	if err != nil {
		return err
	}
	h := res.Header
	a.targetOf(h)
	last, ended := lastEnd(res, "")
	e, err := a.journalEntry()
	if err != nil {
		return err
	}
	if ended && e == nil && where == "" {
		fmt.Fprintf(a.env.stdout, "nothing to abort: the sweep in %s is %s, and nothing of it is left to restore or to resume\n", file, last)
		return nil
	}
	t, err := a.open(true)
	if err != nil {
		return err
	}
	defer t.Close()
	if h.Profile != t.Profile.Name || !strings.EqualFold(h.Controller, t.Controller.Label) || h.Target != string(t.Kind) {
		return usageErr("sweep --abort: %s is a sweep of %s %s (%s), the flags name %s %s (%s): nothing was changed", file, h.Profile, h.Controller, h.Target, t.Profile.Name, t.Controller.Label, t.Kind)
	}
	u, closeUndo, err := a.restoreUndo(t, e, undoOpts{})
	if err != nil {
		var be *undo.BusyError
		if errors.As(err, &be) {
			return fmt.Errorf("sweep --abort: %v\nnothing was changed: a live process owns the sweep; stop it (Ctrl-C there, or kill -TERM %d: it restores by itself), then run `citune sweep --abort %s` again", be, be.Holder.PID, file)
		}
		return err
	}
	defer closeUndo()
	// Another --abort may have ended the file while this one waited for
	// the lock: read it again under the lock, so one end record is added.
	if res, err = loadResults(file); err != nil {
		return err
	}
	last, ended = lastEnd(res, last)
	// The resume first: whatever follows, the sweep does not come back.
	gone := bootargs.RemoveResume(o.sysRoot)
	for _, g := range gone {
		fmt.Fprintf(a.env.stdout, "removed the resume at boot %s\n", g)
	}
	rs, rerr := u.RestoreAll(a.ctx)
	boot := false
	for _, r := range rs {
		fmt.Fprintf(a.env.stdout, "restored %s %s\n", t.Controller.Label, r)
		boot = boot || strings.HasPrefix(r.Name, bootargs.KindUBoot+" ") || strings.HasPrefix(r.Name, bootargs.KindExtlinux+" ")
	}
	if boot {
		fmt.Fprintln(a.env.stdout, "the next boot has the original boot arguments and overlays; this boot keeps what it booted with until the reboot")
	}
	if ended {
		fmt.Fprintf(a.env.stdout, "%s was %s already: its state is left as it is\n", file, last)
		return rerr
	}
	end := results.EndRecord{Type: results.TypeEnd, Session: res.Sessions(), Time: time.Now().UTC(), Status: results.StatusAborted,
		Error: "by `citune sweep --abort`", Restored: rerr == nil, RestoreError: errText(rerr), TotalProbeRuns: res.ProbeRuns(),
		Ranking: res.Rank(rank.Policy{MinGainPct: h.Plan.MinGainPct()})}
	f, err := results.OpenAppend(file)
	if err == nil {
		err = results.NewWriter(f).Write(end)
		err = cmp.Or(err, f.Close())
	}
	if err != nil {
		return errors.Join(rerr, fmt.Errorf("marking %s aborted: %w", file, err))
	}
	if rerr != nil {
		return fmt.Errorf("%w\nthe sweep in %s is marked aborted and will not resume; the journal keeps what was not restored (`citune restore`)", rerr, file)
	}
	fmt.Fprintf(a.env.stdout, "aborted the sweep in %s: the original settings and boot arguments are back\n", file)
	return nil
}

// lastEnd is the status the current session of res ended with (else
// last), and whether that ends the sweep.
func lastEnd(res *results.Results, last string) (string, bool) {
	if n := len(res.Ends); n > 0 && res.Ends[n-1].Session == res.Sessions() {
		last = res.Ends[n-1].Status
	}
	return last, last == results.StatusComplete || last == results.StatusAborted
}

// journalEntry is the journal's entry of the target the global flags
// name (a killed sweep's lock-file copy recovered first), nil if none.
func (a *app) journalEntry() (*undo.Entry, error) {
	path, err := a.journalPath()
	if err != nil {
		return nil, err
	}
	if err := undo.Recover(path); err != nil {
		return nil, err
	}
	j, err := undo.Load(path)
	if err != nil {
		return nil, err
	}
	id, err := a.flagTarget()
	if err != nil {
		return nil, err
	}
	return j.Find(id.Key()), nil
}

// targetOf takes the target a results file was measured on where the
// global flags name none (--resume and --abort).
func (a *app) targetOf(h results.Header) {
	a.g.profile = cmp.Or(a.g.profile, h.ProfileFile, h.Profile)
	a.g.controller = cmp.Or(a.g.controller, h.Controller)
	if !a.g.sim && a.g.memFile == "" {
		switch soc.Kind(h.Target) {
		case soc.KindSim:
			a.g.sim = true
		case soc.KindFile:
			a.g.memFile = h.TargetPath
		}
	}
}
