package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/citune/citune/undo"
)

// ReloadSpec is the host's module reload as data, for the journal.
func (h *Host) ReloadSpec() *undo.Reload {
	if h == nil {
		return nil
	}
	// Paths are made absolute: `citune restore` may run from another
	// directory.
	rl := &undo.Reload{Root: AbsPath(h.Root), Modules: h.Modules, Wait: h.Wait, Timeout: h.WaitTimeout}
	if l, ok := h.Loader.(ExecLoader); ok {
		rl.Modprobe, rl.Rmmod = l.Modprobe, l.Rmmod
		if strings.ContainsRune(rl.Modprobe, '/') {
			rl.Modprobe = AbsPath(rl.Modprobe)
		}
		if strings.ContainsRune(rl.Rmmod, '/') {
			rl.Rmmod = AbsPath(rl.Rmmod)
		}
	}
	return rl
}

// CheckReload refuses a journal's reload record that restore should not
// run as root even from a trusted journal: module names that are not
// module names (a leading '-' would be an option to modprobe), and
// modprobe or rmmod commands other than those names or an absolute path
// to a file only its owner (root or this user) can write.
func CheckReload(rl *undo.Reload) error {
	if rl == nil {
		return nil
	}
	for _, m := range rl.Modules {
		if !isModuleName(m) {
			return fmt.Errorf("the journal's reload names the module %q, which is not a module name: not run", m)
		}
	}
	for _, c := range []struct{ cmd, name string }{{rl.Modprobe, "modprobe"}, {rl.Rmmod, "rmmod"}} {
		if c.cmd == "" || c.cmd == c.name {
			continue
		}
		fi, err := os.Stat(c.cmd)
		st, ok := fileOwner(fi)
		if err != nil || !filepath.IsAbs(c.cmd) || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o022 != 0 || !ok || (st != 0 && st != uint32(os.Geteuid())) {
			return fmt.Errorf("the journal's reload runs %q as %s, which is not an absolute path to a file only root or you can write: not run", c.cmd, c.name)
		}
	}
	return nil
}

// isModuleName: letters, digits, '_' and '-', not starting with '-'.
func isModuleName(m string) bool {
	other := func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-')
	}
	return m != "" && m[0] != '-' && !strings.ContainsFunc(m, other)
}

// HostFromReload is the host that reloads the module stack as a journal
// entry recorded it (CheckReload first).
func HostFromReload(rl *undo.Reload) *Host {
	if rl == nil {
		return &Host{}
	}
	return &Host{Root: rl.Root, Loader: ExecLoader{Modprobe: rl.Modprobe, Rmmod: rl.Rmmod}, Modules: rl.Modules, Wait: rl.Wait, WaitTimeout: rl.Timeout}
}

// AbsPath makes a path absolute, leaving "" and a path it cannot resolve
// as they are: `citune restore` and `citune report` may run from another
// directory. The one copy for sweep and sweep/host (sweep imports host,
// not the other way round).
func AbsPath(p string) string {
	if p == "" {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// RestoreParams reloads the module stack with the given parameter values
// ("module.param" to value), bringing back every module of the stack when
// a reload was cut short (undo.Host).
func (h *Host) RestoreParams(ctx context.Context, vals map[string]string) error {
	params := map[string][]string{}
	missing := false
	for name, v := range vals {
		mod, param, ok := strings.Cut(name, ".")
		if !ok {
			return fmt.Errorf("module parameter %q is not module.param", name)
		}
		mod = ModuleName(mod)
		params[mod] = append(params[mod], param+"="+v)
		st, err := h.ModuleState(mod)
		if err != nil {
			return err
		}
		if st != ModLoaded {
			missing = true
		}
	}
	if h.Loader == nil {
		return fmt.Errorf("module parameters to restore but no module loader")
	}
	if len(h.Modules) == 0 {
		for m := range params {
			h.Modules = append(h.Modules, m)
		}
	}
	if err := h.SnapshotLoaded(); err != nil {
		return err
	}
	if missing {
		// Killed in the middle of a reload: bring the whole stack back.
		for _, m := range h.Modules {
			h.loaded[ModuleName(m)] = true
		}
	}
	return h.Reload(ctx, params)
}
