package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/sweeptest"
	"github.com/citune/citune/undo"
)

// tree is a fake /proc and /sys with ehci_hcd and ci_hdrc_imx loaded
// (ehci_hcd with log2_irq_thresh=0) and usbcore built in.
func tree(t *testing.T) (string, *sweeptest.Loader) {
	t.Helper()
	root := t.TempDir()
	defaults := map[string]map[string]string{
		"ehci_hcd":    {"log2_irq_thresh": "0", "park": "0"},
		"ci_hdrc_imx": {},
		"usb_storage": {"quirks": ""},
	}
	loaded := map[string]map[string]string{"ehci_hcd": defaults["ehci_hcd"], "ci_hdrc_imx": defaults["ci_hdrc_imx"]}
	if err := sweeptest.Modules(root, loaded, "usbcore"); err != nil {
		t.Fatal(err)
	}
	return root, &sweeptest.Loader{Root: root, Defaults: defaults}
}

// A module is loaded when /proc/modules lists it, built in when only
// /sys/module has it (no initstate), absent otherwise; names with '-'
// are the kernel's names with '_'.
func TestModuleState(t *testing.T) {
	root, _ := tree(t)
	h := &host.Host{Root: root}
	for mod, want := range map[string]host.ModState{
		"ehci_hcd": host.ModLoaded, "ehci-hcd": host.ModLoaded,
		"usbcore": host.ModBuiltIn, "usb_storage": host.ModAbsent,
	} {
		if got, err := h.ModuleState(mod); err != nil || got != want {
			t.Errorf("ModuleState(%s) = %v, %v; want %v", mod, got, err, want)
		}
	}
	// A module whose /sys/module directory has an initstate is loaded
	// even when /proc/modules does not list it (a kernel that hides it).
	if err := os.MkdirAll(filepath.Join(root, "sys/module/g_mass_storage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "sys/module/g_mass_storage/initstate"), []byte("live\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.ModuleState("g_mass_storage"); got != host.ModLoaded {
		t.Errorf("module with initstate: %v, want loaded", got)
	}
	// Without /proc/modules (a container) nothing is loaded, and that is
	// not an error.
	empty := &host.Host{Root: t.TempDir()}
	if got, err := empty.ModuleState("ehci_hcd"); err != nil || got != host.ModAbsent {
		t.Errorf("no /proc/modules: %v, %v; want absent", got, err)
	}
	// An unreadable /proc/modules is an error, not "absent".
	bad := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bad, "proc/modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := (&host.Host{Root: bad}).ModuleState("ehci_hcd"); err == nil {
		t.Error("a /proc/modules that cannot be read gave no error")
	}
}

// Files and parameters are read under the root, trimmed; a write
// replaces the value with one line and never creates a file.
func TestReadAndWriteFiles(t *testing.T) {
	root, _ := tree(t)
	h := &host.Host{Root: root}
	if v, err := h.ReadParam("ehci-hcd", "log2_irq_thresh"); err != nil || v != "0" {
		t.Errorf("ReadParam = %q, %v; want \"0\"", v, err)
	}
	if p := h.ParamPath("ehci-hcd", "park"); p != filepath.Join(root, "sys/module/ehci_hcd/parameters/park") {
		t.Errorf("ParamPath = %s", p)
	}
	if _, err := h.ReadParam("ehci_hcd", "nonexistent"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing parameter: %v, want not-exist", err)
	}
	q := "/sys/block/sda/queue/max_sectors_kb"
	if err := os.MkdirAll(filepath.Dir(filepath.Join(root, q)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, q), []byte("  120 \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := h.ReadFile(q); err != nil || v != "120" {
		t.Errorf("ReadFile = %q, %v; want \"120\"", v, err)
	}
	if err := h.WriteFile(q, "512"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, q)); string(b) != "512\n" {
		t.Errorf("file holds %q after writing 512, want \"512\\n\"", b)
	}
	if err := h.WriteFile("/sys/block/sda/queue/nr_requests", "64"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("writing a file that does not exist: %v, want not-exist", err)
	}
	if _, err := os.Stat(filepath.Join(root, "/sys/block/sda/queue/nr_requests")); err == nil {
		t.Error("WriteFile created a file")
	}
	if _, err := h.ReadFile("/proc/sys/vm/nothing"); err == nil {
		t.Error("reading a missing file gave no error")
	}
	// No root: paths are the system's own.
	if p := (&host.Host{}).Path("/sys/module"); p != "/sys/module" {
		t.Errorf("Path without root = %s", p)
	}
}

// A reload removes the stack top first, loads it bottom first with the
// new parameters, brings back only what was loaded when the sweep
// started (plus a module given parameters), and waits for the device.
func TestReload(t *testing.T) {
	root, l := tree(t)
	l.Creates = []string{"/dev/sda"}
	h := &host.Host{Root: root, Loader: l, Modules: []string{"usb-storage", "ci_hdrc_imx", "ehci-hcd"},
		Wait: "/dev/sda", WaitTimeout: 10 * time.Second, Poll: time.Millisecond}
	if err := h.SnapshotLoaded(); err != nil {
		t.Fatal(err)
	}
	if err := h.Reload(context.Background(), map[string][]string{"ehci_hcd": {"log2_irq_thresh=3"}}); err != nil {
		t.Fatal(err)
	}
	want := []string{"rmmod ci_hdrc_imx", "rmmod ehci_hcd", "modprobe ehci_hcd log2_irq_thresh=3", "modprobe ci_hdrc_imx"}
	if got := l.CallLog(); !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q (usb_storage was not loaded: neither removed nor loaded)", got, want)
	}
	if v, _ := h.ReadParam("ehci_hcd", "log2_irq_thresh"); v != "3" {
		t.Errorf("log2_irq_thresh = %q after the reload, want 3", v)
	}
	if _, err := os.Stat(filepath.Join(root, "dev/sda")); err != nil {
		t.Errorf("the wait path is missing after Reload returned: %v", err)
	}

	// A module of the stack that was not loaded is loaded when it is
	// given parameters.
	l.Calls = nil
	if err := h.Reload(context.Background(), map[string][]string{"usb_storage": {"quirks=abcd:1234:u"}}); err != nil {
		t.Fatal(err)
	}
	if got := l.CallLog(); !slices.Contains(got, "modprobe usb_storage quirks=abcd:1234:u") {
		t.Errorf("calls %q: usb_storage with parameters was not loaded", got)
	}
}

// Reload without a snapshot takes one first (the loaded set at that
// moment), and a failure names the module and the step.
func TestReloadFailures(t *testing.T) {
	root, l := tree(t)
	h := &host.Host{Root: root, Modules: []string{"ci_hdrc_imx", "ehci_hcd"}}
	if err := h.Reload(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "no module loader") {
		t.Errorf("reload without a loader: %v", err)
	}
	h.Loader = l
	l.Fail = map[string]error{"ehci_hcd": errors.New("modprobe: ERROR: could not insert 'ehci_hcd': Invalid argument")}
	err := h.Reload(context.Background(), map[string][]string{"ehci_hcd": {"park=9"}})
	if err == nil || !strings.Contains(err.Error(), "loading ehci_hcd") || !strings.Contains(err.Error(), "Invalid argument") {
		t.Errorf("failed load: %v, want it to name the module and the cause", err)
	}

	// An rmmod that fails for good stops the reload before any load.
	root, _ = tree(t)
	h = &host.Host{Root: root, Loader: refusingLoader{}, Modules: []string{"ehci_hcd"}}
	err = h.Reload(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "removing ehci_hcd") {
		t.Errorf("failed rmmod: %v", err)
	}
}

type refusingLoader struct{}

func (refusingLoader) Unload(context.Context, string) error {
	return errors.New("rmmod: ERROR: Module ehci_hcd is builtin")
}
func (refusingLoader) Load(context.Context, string, []string) error {
	return errors.New("load must not be reached")
}

// The device that must come back after a reload: a timeout names the
// path and the modules, and a cancelled context ends the wait.
func TestReloadWaitsForDevice(t *testing.T) {
	root, l := tree(t)
	h := &host.Host{Root: root, Loader: l, Modules: []string{"ehci_hcd"}, Wait: "/dev/sda",
		WaitTimeout: 20 * time.Millisecond, Poll: time.Millisecond}
	err := h.Reload(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "/dev/sda did not appear") || !strings.Contains(err.Error(), "ehci_hcd") {
		t.Errorf("device never appears: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h.WaitTimeout = time.Hour
	if err := h.Reload(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v, want context.Canceled", err)
	}
}

// RestoreParams (undo after a crash) reloads with the recorded values;
// when a module of the stack is missing (killed mid-reload) the whole
// stack is loaded again.
func TestRestoreParams(t *testing.T) {
	root, l := tree(t)
	h := &host.Host{Root: root, Loader: l, Modules: []string{"ci_hdrc_imx", "ehci_hcd"}}
	// Killed between rmmod and modprobe: neither module is loaded.
	for _, m := range []string{"ci_hdrc_imx", "ehci_hcd"} {
		if err := l.Unload(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	l.Calls = nil
	if err := h.RestoreParams(context.Background(), map[string]string{"ehci-hcd.log2_irq_thresh": "0"}); err != nil {
		t.Fatal(err)
	}
	if got, want := l.CallLog(), []string{"modprobe ehci_hcd log2_irq_thresh=0", "modprobe ci_hdrc_imx"}; !slices.Equal(got, want) {
		t.Errorf("calls %q, want %q", got, want)
	}
	for _, m := range []string{"ci_hdrc_imx", "ehci_hcd"} {
		if st, _ := h.ModuleState(m); st != host.ModLoaded {
			t.Errorf("%s not loaded after the restore", m)
		}
	}

	// Without a recorded stack, the parameters' modules are the stack.
	l.Calls = nil
	h2 := &host.Host{Root: root, Loader: l}
	if err := h2.RestoreParams(context.Background(), map[string]string{"ehci_hcd.park": "3"}); err != nil {
		t.Fatal(err)
	}
	if got := l.CallLog(); !slices.Equal(got, []string{"rmmod ehci_hcd", "modprobe ehci_hcd park=3"}) {
		t.Errorf("calls %q", got)
	}

	if err := h.RestoreParams(context.Background(), map[string]string{"log2_irq_thresh": "0"}); err == nil || !strings.Contains(err.Error(), "not module.param") {
		t.Errorf("a name without a module: %v", err)
	}
	noLoader := &host.Host{Root: root}
	if err := noLoader.RestoreParams(context.Background(), map[string]string{"ehci_hcd.park": "0"}); err == nil || !strings.Contains(err.Error(), "no module loader") {
		t.Errorf("no loader: %v", err)
	}
}

// ExecLoader runs the commands it is given; a failure carries the
// command line and what the command printed.
func TestExecLoader(t *testing.T) {
	dir := t.TempDir()
	logf := filepath.Join(dir, "log")
	script := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := script("modprobe", `echo "$0 $*" >> `+logf)
	fail := script("rmmod", `echo "rmmod: ERROR: Module $1 is in use" >&2; exit 1`)
	silent := script("silent", `exit 3`)
	l := host.ExecLoader{Modprobe: ok, Rmmod: fail}
	if err := l.Load(context.Background(), "ehci_hcd", []string{"log2_irq_thresh=3", "park=1"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(logf); string(b) != ok+" ehci_hcd log2_irq_thresh=3 park=1\n" {
		t.Errorf("modprobe ran as %q", b)
	}
	err := l.Unload(context.Background(), "ehci_hcd")
	if err == nil || !strings.Contains(err.Error(), fail+" ehci_hcd") || !strings.Contains(err.Error(), "is in use") {
		t.Errorf("failing rmmod: %v", err)
	}
	err = host.ExecLoader{Rmmod: silent}.Unload(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "exit status 3") || strings.HasSuffix(err.Error(), ": ") {
		t.Errorf("failing silent rmmod: %v", err)
	}
}

// restore runs a journal's reload as root: only module names and
// modprobe/rmmod commands it would run itself.
func TestCheckReload(t *testing.T) {
	for _, rl := range []*undo.Reload{
		{Modules: []string{"-C/etc/evil", "ehci_hcd"}},
		{Modules: []string{"ehci_hcd;reboot"}},
		{Modules: []string{"ehci_hcd"}, Modprobe: "evil"},
		{Modules: []string{"ehci_hcd"}, Rmmod: "relative/rmmod"},
		{Modules: []string{"ehci_hcd"}, Modprobe: "/nonexistent/modprobe"},
	} {
		if err := host.CheckReload(rl); err == nil {
			t.Errorf("CheckReload(%+v) = nil, want a refusal", rl)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, rl := range []*undo.Reload{nil, {Modules: []string{"usb_storage", "ci_hdrc_imx", "ehci-hcd"}}, {Modules: []string{"x"}, Modprobe: "modprobe", Rmmod: "rmmod"}, {Modules: []string{"x"}, Modprobe: exe}} {
		if err := host.CheckReload(rl); err != nil {
			t.Errorf("CheckReload(%+v) = %v", rl, err)
		}
	}
}
