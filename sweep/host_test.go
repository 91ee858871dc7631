package sweep_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/sweep/sweeptest"
	"github.com/citune/citune/undo"
)

func TestSysfsAxisOnAFileTree(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "sys/block/sda/queue/max_sectors_kb")
	os.MkdirAll(filepath.Dir(file), 0o755)
	os.WriteFile(file, []byte("120\n"), 0o644)
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "sysfs:/sys/block/sda/queue/max_sectors_kb=64,512", "AHBBRST=3,7")
	s.runner.Host = &host.Host{Root: root}
	s.land.Extra = func() float64 {
		b, _ := os.ReadFile(file)
		if strings.TrimSpace(string(b)) == "512" {
			return 1.05
		}
		return 1
	}
	s.land.Before = func(n int) {
		if n != 1 {
			return
		}
		j, err := undo.Load(s.journal)
		if err != nil || len(j.Entries) != 1 || len(j.Entries[0].Files) != 1 || j.Entries[0].Files[0].Original != "120" || len(j.Entries[0].Fields) != 0 {
			t.Errorf("journal during the sweep: %v %+v", err, j)
		}
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// AHBBRST 3 and 7 are both INCR16 bursts to the model: either wins.
	if w := out.Ranking.Winner(); w.Settings["/sys/block/sda/queue/max_sectors_kb"] != "512" || (w.Settings["SBUSCFG.AHBBRST"] != "7" && w.Settings["SBUSCFG.AHBBRST"] != "3") {
		t.Errorf("winner %+v", w)
	}
	if b, _ := os.ReadFile(file); string(b) != "120\n" {
		t.Errorf("file not restored: %q", b)
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
}

func modTree(t *testing.T) (string, *sweeptest.Loader) {
	t.Helper()
	root := t.TempDir()
	mods := map[string]map[string]string{
		"usb_storage": {"quirks": ""},
		"ci_hdrc_imx": {},
		"ci_hdrc":     {},
		"ehci_hcd":    {"log2_irq_thresh": "0", "park": "0"},
	}
	if err := sweeptest.Modules(root, mods); err != nil {
		t.Fatal(err)
	}
	return root, &sweeptest.Loader{Root: root, Defaults: mods, Creates: []string{"/dev/sda"}}
}

func TestModParamAxisReloadsTheModuleStack(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{})
	// Loading ehci_hcd resets the controller: the driver starts with
	// ITC = 2^log2_irq_thresh.
	loader.OnLoad = func(module string, params map[string]string) {
		if module != "ehci_hcd" {
			return
		}
		err := tg.ReloadSim(func(_, p string) (string, error) {
			if v, ok := params[p]; ok {
				return v, nil
			}
			return "", os.ErrNotExist
		})
		if err != nil {
			t.Error(err)
		}
	}
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,3,6")
	remaps := 0
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
	s.runner.Remap = func(context.Context) error { remaps++; return tg.Identify() }
	s.land.Before = func(n int) {
		if n != 1 {
			return
		}
		j, err := undo.Load(s.journal)
		if err != nil || len(j.Entries) != 1 || len(j.Entries[0].ModParams) != 1 || j.Entries[0].ModParams[0].Original != "0" {
			t.Errorf("journal during the sweep: %v %+v", err, j)
		}
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, s.log)
	}
	if out.NotHeld != 0 {
		t.Errorf("not-held %d: a module parameter holds\n%s", out.NotHeld, s.log)
	}
	// ITC=1 (log2 0) beats ITC=8 (3) and ITC=64 (6) on the landscape.
	if w := out.Ranking.Winner(); w.Settings["ehci_hcd.log2_irq_thresh"] != "0" {
		t.Errorf("winner %+v", w)
	}
	calls := loader.CallLog()
	wantStart := []string{"rmmod usb_storage", "rmmod ci_hdrc_imx", "rmmod ci_hdrc", "rmmod ehci_hcd", "modprobe ehci_hcd log2_irq_thresh="}
	for i, w := range wantStart {
		if i >= len(calls) || !strings.HasPrefix(calls[i], w) {
			t.Fatalf("calls %q", calls)
		}
	}
	if calls[5] != "modprobe ci_hdrc" || calls[7] != "modprobe usb_storage" {
		t.Errorf("load order %q", calls)
	}
	if last := calls[len(calls)-4]; last != "modprobe ehci_hcd log2_irq_thresh=0" {
		t.Errorf("the restore did not reload with the original: %q", calls)
	}
	if remaps == 0 {
		t.Error("the window was not mapped again after a reload")
	}
	if v, _ := os.ReadFile(filepath.Join(root, "sys/module/ehci_hcd/parameters/log2_irq_thresh")); string(v) != "0\n" {
		t.Errorf("parameter after the sweep %q", v)
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
	res, _ := results.Load(s.out)
	reloads := 0
	for _, e := range res.Events {
		if e.Event == results.EventReload {
			reloads++
		}
	}
	if reloads < 3 {
		t.Errorf("%d reload events", reloads)
	}
}

func TestModParamRefusedWhenBuiltIn(t *testing.T) {
	root := t.TempDir()
	if err := sweeptest.Modules(root, map[string]map[string]string{"usb_storage": {}}, "ehci_hcd"); err != nil {
		t.Fatal(err)
	}
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,3")
	s.runner.Host = &host.Host{Root: root, Loader: &sweeptest.Loader{Root: root}, Modules: tg.Profile.Reload.Modules}
	_, err := s.runner.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ehci_hcd is built into the kernel") || !strings.Contains(err.Error(), "kernel command line (ehci_hcd.log2_irq_thresh=V)") {
		t.Fatalf("error %v", err)
	}
	if tg.Simulator().Writes != 0 {
		t.Error("wrote before refusing")
	}
}

func TestModParamValuesCheckedAgainstTheKnob(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,7")
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules}
	if _, err := s.runner.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "want an integer 0..6") {
		t.Fatalf("error %v", err)
	}
	s = newRunner(t, tg, plan.ModeGrid, "modparam:usbcore.autosuspend=1,2")
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules}
	if _, err := s.runner.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "usbcore is not loaded") {
		t.Fatalf("error %v", err)
	}
	if len(loader.CallLog()) != 0 {
		t.Errorf("calls %q", loader.CallLog())
	}
}

// A module-parameter axis of 3 values and a register axis of 4 values
// reload the driver stack once per value (points are grouped by value),
// not once per point: with the current value among the three, two
// reloads reach the others and one returns for the last baseline.
func TestModParamSweepReloadsOncePerValue(t *testing.T) {
	for _, tc := range []struct {
		values  string
		reloads int
	}{
		{"0,3,6", 3}, // 0 is the current value
		{"2,3,6", 4},
	} {
		t.Run(tc.values, func(t *testing.T) {
			root, loader := modTree(t)
			tg := simTarget(t, "imx6q", soc.SimOptions{})
			s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh="+tc.values, "AHBBRST=0,1,2,3")
			s.runner.Plan.Repeats = 1
			s.runner.Plan.BaselineEvery = 2
			s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: tg.Profile.Reload.Modules, Wait: "/dev/sda"}
			s.runner.Remap = func(context.Context) error { return tg.Identify() }
			_, notes, err := s.runner.Prepare()
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("the plan reloads %s %d time(s)", strings.Join(tg.Profile.Reload.Modules, ", "), tc.reloads)
			if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
				t.Errorf("notes %q lack %q", notes, want)
			}
			if _, err := s.runner.Run(context.Background()); err != nil {
				t.Fatalf("%v\n%s", err, s.log)
			}
			loads := 0
			for _, c := range loader.CallLog() {
				if strings.HasPrefix(c, "modprobe ehci_hcd ") {
					loads++
				}
			}
			if loads != tc.reloads {
				t.Errorf("ehci_hcd loaded %d times, want %d: %q", loads, tc.reloads, loader.CallLog())
			}
			res, err := results.Load(s.out)
			if err != nil {
				t.Fatal(err)
			}
			visited := map[string]bool{}
			for _, p := range res.Points {
				visited[p.Point] = true
			}
			if len(visited) != 13 { // 12 points and the baseline
				t.Errorf("%d points visited, want 13", len(visited))
			}
			if !strings.Contains(s.log.String(), "left]") {
				t.Errorf("no estimate of the time left in the progress:\n%s", s.log)
			}
		})
	}
}

// A loaded module the reload sequence leaves out cannot be swept: the
// sweep stops before a reload, with ErrNotReloaded.
func TestModParamOutsideTheReloadSequence(t *testing.T) {
	root, loader := modTree(t)
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "modparam:ehci_hcd.log2_irq_thresh=0,3")
	s.runner.Host = &host.Host{Root: root, Loader: loader, Modules: []string{"usb_storage", "ci_hdrc_imx"}}
	if _, err := s.runner.Run(context.Background()); !errors.Is(err, sweep.ErrNotReloaded) {
		t.Fatalf("error %v", err)
	}
	if len(loader.CallLog()) != 0 {
		t.Errorf("calls %q", loader.CallLog())
	}
}
