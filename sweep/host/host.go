package host

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ModuleLoader loads and removes kernel modules. ExecLoader runs modprobe
// and rmmod; tests use a fake that edits a file tree.
type ModuleLoader interface {
	// Unload removes one module (it must not be in use).
	Unload(ctx context.Context, module string) error
	// Load loads one module with parameters "name=value".
	Load(ctx context.Context, module string, params []string) error
}

// ExecLoader loads modules with modprobe and removes them with rmmod.
type ExecLoader struct {
	Modprobe string // default "modprobe"
	Rmmod    string // default "rmmod"
}

// Load runs `modprobe MODULE PARAM=VALUE...`.
func (l ExecLoader) Load(ctx context.Context, module string, params []string) error {
	return run(ctx, cmp.Or(l.Modprobe, "modprobe"), append([]string{module}, params...)...)
}

// Unload runs `rmmod MODULE`.
func (l ExecLoader) Unload(ctx context.Context, module string) error {
	return run(ctx, cmp.Or(l.Rmmod, "rmmod"), module)
}

func run(ctx context.Context, name string, args ...string) error {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	if err == nil {
		return nil
	}
	if msg := strings.TrimSpace(string(out)); msg != "" {
		return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, msg)
	}
	return fmt.Errorf("%s %s: %v", name, strings.Join(args, " "), err)
}

// Host is what a sweep changes on the running system besides registers:
// files, and kernel modules through their reload stack.
type Host struct {
	// Root is where /sys/module, /proc/modules and Wait are looked up
	// ("/" on a board, a temporary tree in tests). File axes use their
	// absolute path as given.
	Root   string
	Loader ModuleLoader
	// Modules is the reload stack, top first: removed in this order and
	// loaded again in the reverse order (the profile's [reload]).
	Modules []string
	// Wait is a path (under Root) that must exist again after loading,
	// usually the probe's device; WaitTimeout bounds the wait.
	Wait        string
	WaitTimeout time.Duration
	// Poll is the interval between checks for Wait (default 100 ms).
	Poll time.Duration

	// loaded is which modules of the stack were loaded when the sweep
	// started; only those are removed and loaded again.
	loaded map[string]bool
}

// Path is p under Root.
func (h *Host) Path(p string) string {
	if h.Root == "" {
		return p
	}
	return filepath.Join(h.Root, p)
}

// ModState is whether a module can be reloaded.
type ModState int

// Module states.
const (
	ModAbsent  ModState = iota // not loaded, not built in
	ModLoaded                  // a loaded module
	ModBuiltIn                 // compiled into the kernel: parameters only on the command line
)

// ModuleState says whether module is loaded, built in or absent: built in
// when /sys/module/MODULE exists but has no initstate and the module is
// not in /proc/modules.
func (h *Host) ModuleState(module string) (ModState, error) {
	module = ModuleName(module)
	mods, err := h.procModules()
	if err != nil {
		return ModAbsent, err
	}
	if mods[module] {
		return ModLoaded, nil
	}
	dir := h.Path("/sys/module/" + module)
	if _, err := os.Stat(dir); err != nil {
		return ModAbsent, nil
	}
	if _, err := os.Stat(filepath.Join(dir, "initstate")); err == nil {
		return ModLoaded, nil
	}
	return ModBuiltIn, nil
}

func (h *Host) procModules() (map[string]bool, error) {
	b, err := os.ReadFile(h.Path("/proc/modules"))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, err
	}
	mods := map[string]bool{}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) > 0 {
			mods[f[0]] = true
		}
	}
	return mods, nil
}

// ParamPath is where the kernel shows a module parameter.
func (h *Host) ParamPath(module, param string) string {
	return h.Path("/sys/module/" + ModuleName(module) + "/parameters/" + param)
}

// ReadParam reads a module parameter's current value.
func (h *Host) ReadParam(module, param string) (string, error) {
	return readTrimmed(h.ParamPath(module, param))
}

// ReadFile reads a sysfs/procfs file (under Root), trimmed.
func (h *Host) ReadFile(path string) (string, error) { return readTrimmed(h.Path(path)) }

func readTrimmed(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteFile writes value to an existing sysfs/procfs file with one write.
func (h *Host) WriteFile(path, value string) error {
	f, err := os.OpenFile(h.Path(path), os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte(value + "\n")); err != nil {
		f.Close()
		return fmt.Errorf("writing %q to %s: %w", value, path, err)
	}
	return f.Close()
}

// SnapshotLoaded records which modules of the stack are loaded now.
func (h *Host) SnapshotLoaded() error {
	mods, err := h.procModules()
	if err != nil {
		return err
	}
	h.loaded = map[string]bool{}
	for _, m := range h.Modules {
		m = ModuleName(m)
		if mods[m] {
			h.loaded[m] = true
		}
	}
	return nil
}

// Reload removes the module stack (those modules that were loaded when
// the sweep started, top first), loads it again bottom first with params
// (by module), and waits until Wait exists again.
func (h *Host) Reload(ctx context.Context, params map[string][]string) error {
	if h.Loader == nil {
		return fmt.Errorf("reload: no module loader")
	}
	if h.loaded == nil {
		if err := h.SnapshotLoaded(); err != nil {
			return err
		}
	}
	mods, err := h.procModules()
	if err != nil {
		return err
	}
	for _, m := range h.Modules {
		m = ModuleName(m)
		if !mods[m] {
			continue
		}
		if err := h.unload(ctx, m); err != nil {
			return fmt.Errorf("reload: removing %s: %w", m, err)
		}
	}
	for i := len(h.Modules) - 1; i >= 0; i-- {
		m := ModuleName(h.Modules[i])
		if !h.loaded[m] && params[m] == nil {
			continue
		}
		if err := h.Loader.Load(ctx, m, params[m]); err != nil {
			return fmt.Errorf("reload: loading %s: %w", m, err)
		}
	}
	return h.waitReady(ctx)
}

// unload removes one module, retrying for a few seconds while the kernel
// says it is busy: right after a disk appears, the SCSI disk driver (or
// udev probing it) still holds usb_storage and rmmod fails with EAGAIN.
func (h *Host) unload(ctx context.Context, m string) error {
	poll := h.Poll
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := h.Loader.Unload(ctx, m)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(poll):
		}
	}
}

// busy reports whether an rmmod error means "try again shortly".
func busy(err error) bool {
	s := strings.ToLower(err.Error())
	return slices.ContainsFunc([]string{"resource temporarily unavailable", "device or resource busy", "is in use"},
		func(w string) bool { return strings.Contains(s, w) })
}

// waitReady waits until h.Wait exists (or the timeout passes).
func (h *Host) waitReady(ctx context.Context) error {
	if h.Wait == "" {
		return nil
	}
	p := h.Path(h.Wait)
	timeout := h.WaitTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	poll := h.Poll
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		if _, err := os.Stat(p); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("reload: %s did not appear within %v after loading %s", h.Wait, timeout, strings.Join(h.Modules, ", "))
		case <-tick.C:
		}
	}
}

// ModuleName spells a module name as /sys/module and /proc/modules do
// ('_' for '-').
func ModuleName(s string) string { return strings.ReplaceAll(s, "-", "_") }
