package regs_test

import (
	"testing"

	"github.com/citune/citune/regs"
)

// USBMODE.CM and the roles map both ways, and the named values of the
// ChipIdea map's CM field agree.
func TestRoleAndCM(t *testing.T) {
	cm := regs.ChipIdea().Register("USBMODE").Field("CM")
	for _, r := range []regs.Role{regs.RoleHost, regs.RoleDevice} {
		v, ok := r.CM()
		if !ok {
			t.Fatalf("%s has no CM value", r)
		}
		if back, ok := regs.RoleOfCM(v); !ok || back != r {
			t.Errorf("RoleOfCM(%d) = %q, %v; want %q", v, back, ok, r)
		}
		if !r.Valid() {
			t.Errorf("%s not valid", r)
		}
		if e := cm.Enum(v); e == nil || e.Name != map[regs.Role]string{regs.RoleHost: "HOST", regs.RoleDevice: "DEVICE"}[r] {
			t.Errorf("the map names CM=%d %+v", v, e)
		}
	}
	for _, v := range []uint32{0, 1} {
		if r, ok := regs.RoleOfCM(v); ok || r != "" {
			t.Errorf("RoleOfCM(%d) = %q, %v; want no role", v, r, ok)
		}
	}
	for _, r := range []regs.Role{regs.RoleOTG, ""} {
		if _, ok := r.CM(); ok || r.Valid() {
			t.Errorf("%q selects a CM value or is valid", r)
		}
	}
}
