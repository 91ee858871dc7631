package soc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestRoleValues: the roles' strings are the TOML values of profiles and
// the JSON of results files; only host and device are roles a profile
// may name.
func TestRoleValues(t *testing.T) {
	for r, want := range map[Role]bool{RoleHost: true, RoleDevice: true, RoleOTG: false, "": false, "Host": false, "gadget": false} {
		if got := r.Valid(); got != want {
			t.Errorf("Role(%q).Valid() = %v, want %v", r, got, want)
		}
	}
	if RoleHost != "host" || RoleDevice != "device" || RoleOTG != "otg" {
		t.Errorf("role strings changed: %q %q %q (profiles and results files use them)", RoleHost, RoleDevice, RoleOTG)
	}
	if got := JoinRoles([]Role{RoleHost, RoleDevice}, ", "); got != "host, device" {
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
	if c := good.Controllers[0]; !c.HasRole(RoleHost) || !c.HasRole(RoleDevice) || c.HasRole(RoleOTG) {
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
