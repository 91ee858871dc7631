package main

import (
	"testing"
)

// FuzzParseAddress: an address either is refused or names an aligned
// offset inside a controller's span; a controller found by physical
// address holds it in its window or at its usbmisc word.
func FuzzParseAddress(f *testing.F) {
	p, err := loadProfile("imx6q")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"0x02184340", "usbh1+0x140", "usb@2184200+0x140", "0x140", "0x02184804", "0x30000000", "usbh9+4", "ITC", "0x", "usbh1+", "+0x140", "0x02184342"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ref, ok, err := parseAddress(p, s)
		if !ok || err != nil {
			return
		}
		if ref.off%4 != 0 {
			t.Fatalf("%q: misaligned offset %#x accepted", s, ref.off)
		}
		if ref.ctl != nil && ref.off >= ref.ctl.Span() {
			t.Fatalf("%q: offset %#x outside %s's span %#x", s, ref.off, ref.ctl.Label, ref.ctl.Span())
		}
		if ref.ctl == nil && ref.off >= 0x10000 {
			t.Fatalf("%q: bare offset %#x", s, ref.off)
		}
	})
}

func TestParseAddress(t *testing.T) {
	p, err := loadProfile("imx6q")
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]struct {
		ctl string
		off uint32
	}{
		"0x02184340":        {"usbh1", 0x140},
		"0x02184140":        {"usbotg", 0x140},
		"usbh1+0x140":       {"usbh1", 0x140},
		"USB@2184200+0x140": {"usbh1", 0x140},
		"usbh2+320":         {"usbh2", 0x140},
		"0x140":             {"", 0x140},
		"0x02184804":        {"usbh1", 0x604},
	} {
		ref, ok, err := parseAddress(p, s)
		if !ok || err != nil {
			t.Errorf("%s: ok %v err %v", s, ok, err)
			continue
		}
		label := ""
		if ref.ctl != nil {
			label = ref.ctl.Label
		}
		if label != want.ctl || ref.off != want.off {
			t.Errorf("%s: %s+%#x, want %s+%#x", s, label, ref.off, want.ctl, want.off)
		}
	}
	if _, ok, _ := parseAddress(p, "USBCMD"); ok {
		t.Error("a register name taken for an address")
	}
}
