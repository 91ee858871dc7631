package sweep

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/bootargs"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// ErrReboot ends a run whose next visit needs a boot with other kernel
// arguments, written (and journalled) for the next boot; `sweep --resume`
// continues after it. Decision: a cmdline: sweep is a resumed sweep per
// boot, so every boot is a session of the results file and the visits,
// verdict and restore are the ones every sweep has.
var ErrReboot = errors.New("the next point needs a reboot")

// bootVars are the boot loader's variables the sweep's axes write.
func (r *state) bootVars() []string {
	var vs []string
	for _, v := range []struct {
		kind plan.Kind
		name string
	}{{plan.KindCmdline, "bootargs"}, {plan.KindDT, "fdtoverlays"}} {
		if slices.ContainsFunc(r.axes, func(a plan.Axis) bool { return a.Kind == v.kind }) {
			vs = append(vs, v.name)
		}
	}
	return vs
}

// hasCmdline says whether the sweep goes across reboots (cmdline: or dt:
// axes).
func (r *state) hasCmdline() bool {
	return slices.ContainsFunc(r.axes, func(a plan.Axis) bool { return a.Kind == plan.KindCmdline || a.Kind == plan.KindDT })
}

// cmdlineValue is a cmdline axis's value in this boot: the last
// MODULE.PARAM= on /proc/cmdline, else the parameter in sysfs (the
// built-in module's default).
func (r *state) cmdlineValue(a plan.Axis) (string, error) {
	cl, err := r.Host.ReadFile("/proc/cmdline")
	if err != nil {
		return "", err
	}
	if v, ok := bootargs.Param(cl, a.Name); ok {
		return v, nil
	}
	return r.Host.ReadParam(a.Module, a.Param)
}

func (r *state) bootID() string {
	id, _ := r.Host.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(id)
}

// boot is this boot, for the resume record of a cmdline: sweep.
func (r *state) boot() *results.Boot {
	if !r.hasCmdline() {
		return nil
	}
	cl, _ := r.Host.ReadFile("/proc/cmdline")
	b := &results.Boot{Kernel: r.Kernel, Cmdline: strings.TrimSpace(cl), BootID: r.bootID(), Count: 1}
	if r.Resume != nil {
		seen := map[string]bool{}
		if h := r.Resume.Header.Boot; h != nil && h.BootID != b.BootID {
			seen[h.BootID] = true
		}
		for _, rr := range r.Resume.Resumes {
			if rr.Boot != nil && rr.Boot.BootID != b.BootID {
				seen[rr.Boot.BootID] = true
			}
		}
		b.Count += len(seen)
	}
	return b
}

// wantBootargs is the boot loader's bootargs for the point's values:
// the original ones where every cmdline axis is at its original value,
// else the original with each changed parameter set.
func (r *state) wantBootargs(vals []string, orig string) string {
	s := orig
	for i, a := range r.axes {
		if a.Kind == plan.KindCmdline && vals[i] != r.orig[i] {
			s = bootargs.SetParam(s, a.Name, vals[i])
		}
	}
	return s
}

// applyCmdline checks that this boot holds the point's cmdline: and dt:
// values. Where it does not and the loader was given them a boot ago, the
// point is not held; else they are written for the next boot and the run
// ends (ErrReboot).
func (r *state) applyCmdline(vals []string, applied *[]results.Applied, mism *[]string) error {
	held := true
	got := map[int]string{}
	for i, a := range r.axes {
		var v string
		var err error
		switch a.Kind {
		case plan.KindCmdline:
			v, err = r.cmdlineValue(a)
		case plan.KindDT:
			v, err = r.dtValue(a)
		default:
			continue
		}
		if err != nil {
			return &fatalError{err}
		}
		got[i], r.cur[i] = v, v
		held = held && v == vals[i]
	}
	if len(got) == 0 {
		return nil
	}
	rec, err := r.Session.Boot()
	if err != nil {
		return &fatalError{err}
	}
	id := r.bootID()
	orig := map[string]*string{}
	for _, n := range r.bootVars() {
		if rec != nil {
			if o, ok := rec.Original[n]; ok {
				orig[n] = o
				continue
			}
		}
		v, ok, err := r.Boot.Get(n)
		if err != nil {
			return &fatalError{err}
		}
		orig[n] = nil
		if ok {
			orig[n] = &v
		}
	}
	want := map[string]*string{}
	if _, ok := orig["bootargs"]; ok {
		s := r.wantBootargs(vals, deref(orig["bootargs"]))
		want["bootargs"] = &s
	}
	var ov *overlay
	if o, ok := orig["fdtoverlays"]; ok {
		if ov, err = r.wantOverlay(vals, o); err != nil {
			return &fatalError{err}
		}
		want["fdtoverlays"] = o
		if ov != nil {
			want["fdtoverlays"] = &ov.list
		}
	}
	written := rec != nil
	for n, w := range want {
		written = written && samePtr(rec.Written[n], w)
	}
	if held || written && rec.BootID != id {
		for i, v := range got {
			*applied = append(*applied, results.Applied{Name: r.axes[i].Name, Want: vals[i], Readback: v})
			if v != vals[i] {
				*mism = append(*mism, r.notHeldWhy(r.axes[i], vals[i], v))
			}
		}
		return nil
	}
	o := maps.Clone(orig)
	if rec != nil {
		maps.Copy(o, rec.Original)
	}
	oneShot := r.oneShot(o, want)
	br := undo.BootRec{Kind: r.Boot.Kind(), Config: r.Boot.Config(), Root: r.BootRoot, Original: o, Written: want, BootID: id}
	if ov != nil {
		br.Files = []string{ov.file}
	}
	if _, err := r.Session.RecordBoot(br); err != nil {
		return &fatalError{err}
	}
	if ov != nil {
		if err := ov.write(); err != nil {
			return &fatalError{err}
		}
	}
	if err := r.Boot.Set(want); err != nil {
		return &fatalError{err}
	}
	if oneShot != "" {
		r.emit(event.Event{Kind: event.ModuleReload, Message: oneShot})
	}
	r.rebooting = true
	var what []string
	for _, n := range []string{"bootargs", "fdtoverlays"} {
		if w, ok := want[n]; ok {
			what = append(what, fmt.Sprintf("%s %q", n, deref(w)))
		}
	}
	if ov != nil {
		what = append(what, fmt.Sprintf("overlay %s (%s)", ov.file, ov.props))
	}
	r.emit(event.Event{Kind: event.ModuleReload, Message: fmt.Sprintf("next boot: %s (%s); reboot, and the sweep resumes after the boot", strings.Join(what, ", "), r.Boot.Describe())})
	return &fatalError{ErrReboot}
}

// notHeldWhy says why a cmdline: or dt: value is not in force after the
// boot that was given it.
func (r *state) notHeldWhy(a plan.Axis, want, got string) string {
	if a.Kind == plan.KindDT {
		n, _ := strconv.ParseUint(want, 10, 32)
		return fmt.Sprintf("dt:%s: booted with the overlay setting %s = <%#x>, %s reads %s: not in force (%s)", a.Name, a.Name, n, a.Ref, got, r.dtReason(a, want))
	}
	return fmt.Sprintf("%s: booted with %s=%s, /proc/cmdline gives %s (not held: the boot loader's fallback, or it ignored the arguments)", a.Name, a.Name, want, got)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func samePtr(a, b *string) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// restoreBoot puts the boot loader's originals back (the sweep ended or
// stopped; not when it ends for a reboot) and drops the record.
func (r *state) restoreBoot() error {
	if !r.hasCmdline() || r.rebooting || r.Boot == nil {
		return nil
	}
	rec, err := r.Session.Boot()
	if err != nil || rec == nil {
		return err
	}
	if err := r.Boot.Set(rec.Original); err != nil {
		return fmt.Errorf("restoring the boot arguments: %w", err)
	}
	removeOverlays(rec.Files)
	return r.Session.DropBoot()
}

// The U-Boot variables of a one-shot boot (CONFIG_BOOTCOUNT_LIMIT,
// CONFIG_BOOTCOUNT_ENV): with upgrade_available=1 U-Boot counts boots, and
// past bootlimit it runs altbootcmd instead of bootcmd
// (drivers/bootcount/bootcount_env.c, common/autoboot.c).
var oneShotVars = []string{"bootcount", "bootlimit", "upgrade_available", "altbootcmd"}

// oneShot makes a point's arguments last one boot where the U-Boot
// environment counts boots (it has bootlimit, bootcount or altbootcmd):
// bootlimit=1 and an altbootcmd that boots the original bootargs and
// fdtoverlays (origs) and saves them, so a point that does not come back
// falls back after the watchdog's reset. The variables' originals join
// origs; it says what it did ("" for nothing).
func (r *state) oneShot(origs, vals map[string]*string) string {
	if r.Boot.Kind() != bootargs.KindUBoot {
		return ""
	}
	var alt []string
	unquotable := ""
	for _, n := range []string{"bootargs", "fdtoverlays"} {
		o, ok := origs[n]
		switch {
		case !ok:
		case o == nil:
			alt = append(alt, "setenv "+n)
		default:
			alt = append(alt, "setenv "+n+" '"+*o+"'")
			if unquotable == "" && strings.Contains(*o, "'") {
				unquotable = n
			}
		}
	}
	have := false
	for _, n := range oneShotVars {
		v, ok, err := r.Boot.Get(n)
		if err != nil {
			return ""
		}
		have = have || ok
		if _, seen := origs[n]; !seen {
			origs[n] = nil
			if ok {
				origs[n] = &v
			}
		}
	}
	if !have || unquotable != "" {
		for _, n := range oneShotVars {
			if origs[n] == nil {
				delete(origs, n)
			}
		}
		if unquotable != "" {
			return "note: the original " + unquotable + " holds a single quote, which altbootcmd cannot put back: no one-shot boot; a point that does not boot stays until the board is booted by hand"
		}
		return "note: the U-Boot environment has no bootcount/bootlimit/altbootcmd: a point that does not boot stays until the board is booted by hand"
	}
	a := strings.Join(alt, "; ") + "; setenv upgrade_available 0; setenv bootcount 0; saveenv; run bootcmd"
	one, zero := "1", "0"
	vals["bootlimit"], vals["upgrade_available"], vals["bootcount"], vals["altbootcmd"] = &one, &one, &zero, &a
	return "one boot: bootlimit=1 and altbootcmd boot the original arguments if this boot does not come back"
}
