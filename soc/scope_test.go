package soc

import (
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
)

func TestParamScope(t *testing.T) {
	p := profile(t, "imx6q")
	names := func(us []ParamUser) string {
		var s []string
		for _, u := range us {
			s = append(s, u.Label+"/"+string(u.Role)+"/"+u.Source)
		}
		return strings.Join(s, " ")
	}
	// No system: from the profile. usbotg may be a host, the three host
	// ports are.
	if got := names(ParamScope(nil, p, "ehci_hcd.log2_irq_thresh")); got != "usbotg/otg/profile usbh1/host/profile usbh2/host/profile usbh3/host/profile" {
		t.Errorf("profile scope: %s", got)
	}
	// The sabrelite tree: usbh2 and usbh3 disabled, usbotg without
	// dr_mode; sysfs says usbh1 is bound as host.
	root := fstest.MapFS{
		"proc/device-tree/soc/bus@2100000/usb@2184000/status":   {Data: []byte("okay\x00")},
		"proc/device-tree/soc/bus@2100000/usb@2184200/status":   {Data: []byte("okay\x00")},
		"proc/device-tree/soc/bus@2100000/usb@2184200/dr_mode":  {Data: []byte("host\x00")},
		"proc/device-tree/soc/bus@2100000/usb@2184400/status":   {Data: []byte("disabled\x00")},
		"proc/device-tree/soc/bus@2100000/usb@2184600/status":   {Data: []byte("disabled\x00")},
		"sys/bus/platform/devices/2184200.usb/ci_hdrc.1/role":   {Data: []byte("host\n")},
		"sys/bus/platform/devices/2184000.usb/ci_hdrc.0/role":   {Data: []byte("gadget\n")},
		"sys/bus/platform/devices/2184000.usb/ci_hdrc.0/uevent": {Data: []byte("")},
	}
	if got := names(ParamScope(root, p, "ehci_hcd.park")); got != "usbh1/host/sysfs" {
		t.Errorf("gadget otg, disabled HSIC: %s", got)
	}
	delete(root, "sys/bus/platform/devices/2184000.usb/ci_hdrc.0/role")
	us := ParamScope(root, p, "ehci_hcd.park")
	if got := names(us); got != "usbotg/otg/device tree usbh1/host/sysfs" {
		t.Errorf("otg from the tree: %s", got)
	}
	if s := ParamUsersString(us); s != "usbotg (when host, device tree), usbh1 (host, sysfs)" {
		t.Errorf("ParamUsersString = %q", s)
	}
	// A parameter no knob names changes nothing citune knows of.
	if us := ParamScope(root, p, "usbcore.autosuspend"); us != nil {
		t.Errorf("unknown parameter: %v", us)
	}
	// vf610: usbdev0 is a peripheral, only usbh1 takes the parameter.
	if got := names(ParamScope(nil, profile(t, "vf610"), "ehci_hcd.log2_irq_thresh")); got != "usbh1/host/profile" {
		t.Errorf("vf610: %s", got)
	}
}

// ParamUsers reads the fields a parameter sets on the open controller;
// the others of a simulated board cannot be read, and say so.
func TestParamUsersReadTheTargetsSettings(t *testing.T) {
	p := profile(t, "imx6q")
	c, err := p.Controller("usbh1")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := OpenSim(p, c, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := tg.Profile.Map.Lookup("USBCMD.ITC")
	if err != nil {
		t.Fatal(err)
	}
	v, err := tg.Read32(ref.Reg.Offset)
	if err != nil {
		t.Fatal(err)
	}
	us := tg.ParamUsers(nil, p, "ehci_hcd.log2_irq_thresh")
	if len(us) != 4 {
		t.Fatalf("users %+v", us)
	}
	for _, u := range us {
		switch {
		case u.Label == "usbh1":
			if want := strconv.FormatUint(uint64(ref.Field.Get(v)), 10); u.Settings["USBCMD.ITC"] != want || u.Note != "" {
				t.Errorf("usbh1: %+v, want ITC %s", u, want)
			}
		case u.Settings != nil || !strings.Contains(u.Note, "only the target controller is open (sim)"):
			t.Errorf("%s: %+v", u.Label, u)
		}
	}
}
