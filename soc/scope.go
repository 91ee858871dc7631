package soc

import (
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
)

// Module parameters are module-wide: ehci_hcd.log2_irq_thresh and
// ehci_hcd.park are read by ehci_init() for every EHCI controller the
// module drives, i.e. every ChipIdea controller in host role, not only the
// one citune has open.

// ParamUser is one controller a module parameter applies to.
type ParamUser struct {
	Label string `json:"label"`
	Node  string `json:"node"`
	// Role is regs.RoleHost, or regs.RoleOTG when the parameter applies
	// while the controller is a host.
	Role regs.Role `json:"role"`
	// Source says how Role was found: "sysfs", "device tree", "profile".
	Source string `json:"source"`
	// Settings are the values of the fields the parameter sets, when the
	// controller was read ("USBCMD.ITC": "1").
	Settings map[string]string `json:"settings,omitempty"`
	Note     string            `json:"note,omitempty"`
}

// String renders "usbh1 (host, sysfs)".
func (u ParamUser) String() string {
	role := u.Role
	if role == regs.RoleOTG {
		role = "when host"
	}
	return fmt.Sprintf("%s (%s, %s)", u.Label, role, u.Source)
}

// ParamUsersString joins users for a message: "usbotg (when host,
// device tree), usbh1 (host, device tree)".
func ParamUsersString(us []ParamUser) string {
	var s []string
	for _, u := range us {
		s = append(s, u.String())
	}
	if len(s) == 0 {
		return "no controller of this profile"
	}
	return strings.Join(s, ", ")
}

// ParamScope returns the controllers of p that module parameter param
// changes: those whose knob with it applies in a role the controller
// takes, found from root (the system's root, may be nil) by the ci_hdrc
// role file in sysfs for a bound controller, else the device tree node
// (status, dr_mode), else the profile.
func ParamScope(root fs.FS, p *Profile, param string) []ParamUser {
	var roles []regs.Role
	for _, k := range p.Knobs {
		if k.Param == param {
			roles = append(roles, k.ParamRoles...)
		}
	}
	if len(roles) == 0 {
		return nil
	}
	applies := func(role regs.Role) bool { return slices.Contains(roles, role) }
	nodes := dtNodes(root)
	var us []ParamUser
	for i := range p.Controllers {
		c := &p.Controllers[i]
		u := ParamUser{Label: c.Label, Node: c.Node}
		if role, ok := sysfsRole(root, c); ok {
			u.Role, u.Source = role, "sysfs"
		} else if dir, ok := nodes[c.Node]; ok {
			u.Source = "device tree"
			if st := readTrim(root, dir+"/status"); st == "disabled" || st == "fail" {
				continue
			}
			r, _ := DRRole(readTrim(root, dir+"/dr_mode"))
			u.Role = cmp.Or(r, regs.RoleOTG)
		} else {
			u.Source = "profile"
			switch {
			case !c.HasRole(regs.RoleHost):
				u.Role = regs.RoleDevice
			case !c.HasRole(regs.RoleDevice):
				u.Role = regs.RoleHost
			default:
				u.Role = regs.RoleOTG
			}
		}
		// An OTG controller may be a host at any time.
		if u.Role == regs.RoleOTG && !applies(regs.RoleHost) || u.Role != regs.RoleOTG && !applies(u.Role) {
			continue
		}
		us = append(us, u)
	}
	return us
}

// ParamUsers is ParamScope with each user's settings read: on t through
// its accessor, on the board's other controllers through their own
// /dev/mem windows (read only, after their identity checks). p is the
// whole profile (t's is narrowed to its controller).
func (t *Target) ParamUsers(root fs.FS, p *Profile, param string) []ParamUser {
	us := ParamScope(root, p, param)
	for i := range us {
		u := &us[i]
		c, err := p.Controller(u.Label)
		if err != nil {
			continue
		}
		if c.Label == t.Controller.Label {
			u.readSettings(t.acc, t.Profile.Map, p, param)
			continue
		}
		if t.Kind != KindDevMem {
			u.Note = "settings not read: only the target controller is open (" + string(t.Kind) + ")"
			continue
		}
		ot, err := OpenDevMem(p, c)
		if err == nil {
			if err = ot.Identify(); err == nil {
				u.readSettings(ot.acc, ot.Profile.Map, p, param)
			}
			ot.Close()
		}
		if err != nil {
			u.Note = "settings not read: " + err.Error()
		}
	}
	return us
}

// readSettings reads the fields that p's knobs with param set.
func (u *ParamUser) readSettings(acc regs.Accessor, m *regs.Map, p *Profile, param string) {
	for _, k := range p.Knobs {
		if k.Param != param {
			continue
		}
		ref, err := m.Lookup(k.Field)
		if err != nil || ref.Field == nil {
			continue
		}
		v, err := acc.Read32(ref.Reg.Offset)
		if err != nil {
			u.Note = "settings not read: " + err.Error()
			return
		}
		if u.Settings == nil {
			u.Settings = map[string]string{}
		}
		u.Settings[ref.String()] = strconv.FormatUint(uint64(ref.Field.Get(v)), 10)
	}
}

// sysfsRole reads the role of a bound ChipIdea controller.
func sysfsRole(root fs.FS, c *Controller) (regs.Role, bool) {
	if root == nil || c.IRQ == "" {
		return "", false
	}
	dir := "sys/bus/platform/devices/" + c.IRQ
	ents, err := fs.ReadDir(root, dir)
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), "ci_hdrc.") {
			continue
		}
		switch readTrim(root, path.Join(dir, e.Name(), "role")) {
		case "host": // the kernel's words for the roles
			return regs.RoleHost, true
		case "gadget":
			return regs.RoleDevice, true
		}
	}
	return "", false
}

// dtNodes maps node names (usb@2184200) to their directories under
// proc/device-tree, a few levels deep (soc/bus@2100000/usb@2184200).
func dtNodes(root fs.FS) map[string]string {
	out := map[string]string{}
	if root == nil {
		return out
	}
	const top = "proc/device-tree"
	fs.WalkDir(root, top, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if strings.Count(strings.TrimPrefix(p, top), "/") > 3 {
			return fs.SkipDir
		}
		if _, seen := out[d.Name()]; !seen && strings.HasPrefix(d.Name(), "usb@") {
			out[d.Name()] = p
		}
		return nil
	})
	return out
}

func readTrim(root fs.FS, name string) string {
	b, err := fs.ReadFile(root, name)
	if err != nil {
		return ""
	}
	return strings.TrimRight(strings.TrimSpace(string(b)), "\x00")
}
