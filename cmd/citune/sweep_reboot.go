package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/citune/citune/bootargs"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
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
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = out
	}
	return append(res, "--resume", abs)
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
	where, err := installResume(o.sysRoot, append([]string{executable()}, resumeArgs(args, o.out)...))
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

func executable() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return "citune"
}
