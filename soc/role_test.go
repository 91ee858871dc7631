package soc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/citune/citune/regs"
)

// TestRoleValues: the roles' strings are the TOML values of profiles and
// the JSON of results files; only host and device are roles a profile
// may name.
func TestRoleValues(t *testing.T) {
	for r, want := range map[regs.Role]bool{regs.RoleHost: true, regs.RoleDevice: true, regs.RoleOTG: false, "": false, "Host": false, "gadget": false} {
		if got := r.Valid(); got != want {
			t.Errorf("Role(%q).Valid() = %v, want %v", r, got, want)
		}
	}
	if regs.RoleHost != "host" || regs.RoleDevice != "device" || regs.RoleOTG != "otg" {
		t.Errorf("role strings changed: %q %q %q (profiles and results files use them)", regs.RoleHost, regs.RoleDevice, regs.RoleOTG)
	}
	if got := JoinRoles([]regs.Role{regs.RoleHost, regs.RoleDevice}, ", "); got != "host, device" {
		t.Errorf("JoinRoles = %q", got)
	}
	if got := JoinRoles(nil, ","); got != "" {
		t.Errorf("JoinRoles(nil) = %q", got)
	}
}

// TestBadRoles: a profile naming a role other than host or device, for a
// controller or a knob's parameter, is refused and the error names it.
func TestBadRoles(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	good, err := LoadFS(fstest.MapFS{"p.toml": {Data: base}}, "p.toml")
	if err != nil {
		t.Fatalf("the base profile: %v", err)
	}
	if c := good.Controllers[0]; !c.HasRole(regs.RoleHost) || !c.HasRole(regs.RoleDevice) || c.HasRole(regs.RoleOTG) {
		t.Errorf("controller %s roles %v: want host and device", c.Label, c.Roles)
	}
	for name, tc := range map[string]struct{ old, new, want string }{
		"controller":  {`roles = ["host", "device"]`, `roles = ["host", "gadget"]`, `role "gadget" (want host or device)`},
		"param_roles": {`param_roles = ["host"]`, `param_roles = ["otg"]`, `param_roles: role "otg" (want host or device)`},
	} {
		if !strings.Contains(string(base), tc.old) {
			t.Fatalf("%s: the fixture has no %q", name, tc.old)
		}
		data := strings.Replace(string(base), tc.old, tc.new, 1)
		_, err := LoadFS(fstest.MapFS{"p.toml": {Data: []byte(data)}}, "p.toml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}

// dr_mode's words fix a role or leave both open, and a controller's
// role falls back on them when USBMODE.CM does not say.
func TestDRRole(t *testing.T) {
	for mode, want := range map[string]regs.Role{"host": regs.RoleHost, "peripheral": regs.RoleDevice, "otg": "", "": "", "gadget": ""} {
		r, ok := DRRole(mode)
		if r != want || ok != (want != "") {
			t.Errorf("DRRole(%q) = %q, %v; want %q", mode, r, ok, want)
		}
	}
	for _, c := range []struct {
		dr        string
		sim, role regs.Role
	}{{"host", regs.RoleHost, regs.RoleHost}, {"peripheral", regs.RoleDevice, regs.RoleDevice}, {"otg", regs.RoleDevice, ""}, {"", regs.RoleDevice, ""}} {
		ctl := &Controller{Roles: []regs.Role{regs.RoleHost, regs.RoleDevice}, DRMode: c.dr}
		p := &Profile{Map: regs.ChipIdea()}
		if got := simStart(p, ctl, Snapshot{}); got != c.sim {
			t.Errorf("dr_mode %q: simStart %q, want %q", c.dr, got, c.sim)
		}
		tg := &Target{Profile: p, Controller: ctl}
		idle := Snapshot{Registers: []RegValue{{Name: "USBMODE", Offset: 0x1a8, Value: 0}}}
		if got := tg.Role(idle); got != c.role {
			t.Errorf("dr_mode %q, CM idle: role %q, want %q", c.dr, got, c.role)
		}
		host := Snapshot{Registers: []RegValue{{Name: "USBMODE", Offset: 0x1a8, Value: 3}}}
		if got := tg.Role(host); got != regs.RoleHost {
			t.Errorf("dr_mode %q, CM=3: role %q, want host", c.dr, got)
		}
	}
}
