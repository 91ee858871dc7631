package host

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A host's reload spec names everything by absolute path (`citune
// restore` may run elsewhere), keeps a bare command name for PATH, and
// HostFromReload rebuilds the same reload from it.
func TestReloadSpecRoundTrip(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{Root: "tree", Loader: ExecLoader{Modprobe: "bin/modprobe", Rmmod: "rmmod"},
		Modules: []string{"ci_hdrc_imx", "ehci-hcd"}, Wait: "/dev/sda", WaitTimeout: 3 * time.Second}
	rl := h.ReloadSpec()
	if rl.Root != filepath.Join(wd, "tree") || rl.Modprobe != filepath.Join(wd, "bin/modprobe") || rl.Rmmod != "rmmod" {
		t.Errorf("spec paths: root %q modprobe %q rmmod %q", rl.Root, rl.Modprobe, rl.Rmmod)
	}
	if !slices.Equal(rl.Modules, h.Modules) || rl.Wait != h.Wait || rl.Timeout != h.WaitTimeout {
		t.Errorf("spec %+v does not keep the host's stack and wait", rl)
	}
	back := HostFromReload(rl)
	l, ok := back.Loader.(ExecLoader)
	if !ok || l.Modprobe != rl.Modprobe || l.Rmmod != "rmmod" || back.Root != rl.Root ||
		!slices.Equal(back.Modules, h.Modules) || back.Wait != h.Wait || back.WaitTimeout != h.WaitTimeout {
		t.Errorf("HostFromReload(%+v) = %+v", rl, back)
	}
	if (*Host)(nil).ReloadSpec() != nil {
		t.Error("a nil host has a reload spec")
	}
	if e := HostFromReload(nil); e.Loader != nil || len(e.Modules) != 0 {
		t.Errorf("HostFromReload(nil) = %+v, want an empty host", e)
	}
	if (&Host{}).ReloadSpec().Root != "" {
		t.Error("an empty root became a path")
	}
}
