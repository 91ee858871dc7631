package dtsout_test

import (
	"strings"
	"testing"

	"github.com/citune/citune/sweep/dtsout"
)

// TestRenderExact pins the fragment and the overlay byte for byte: the
// header, properties with and without comments, kernel parameters with
// and without comments, notes (one asking to leave a property out, which
// adds the overlay's note), and comment text that would close a comment.
func TestRenderExact(t *testing.T) {
	d := dtsout.DTS{
		Label:  "usbh1",
		Header: []string{"from r.jsonl", "verdict: apply */ AHBBRST=3"},
		Props: []dtsout.DTSLine{{Text: "ahb-burst-config = <0x3>", Comment: "AHBBRST=3: +9.1 %"},
			{Text: "disable-over-current"}},
		Params: []dtsout.DTSLine{{Text: "ehci_hcd.log2_irq_thresh=0", Comment: "ITC=1 */"},
			{Text: "ehci_hcd.park=3"}},
		Notes: []string{"  USBCMD.FS2 = 0: leave fsl,foo out of the tree (absent means 0) ", "a */ note"},
	}
	wantFrag := `/*
 * from r.jsonl
 * verdict: apply * / AHBBRST=3
 */
&usbh1 {
	ahb-burst-config = <0x3>;	/* AHBBRST=3: +9.1 % */
	disable-over-current;
};

/*
 * Kernel command line (not device tree):
 *   ehci_hcd.log2_irq_thresh=0	ITC=1 * /
 *   ehci_hcd.park=3
 */

/*
 * Notes:
 *   USBCMD.FS2 = 0: leave fsl,foo out of the tree (absent means 0)
 *   a * / note
 */
`
	if got := d.String(); got != wantFrag {
		t.Errorf("fragment:\n%s\nwant:\n%s", got, wantFrag)
	}
	wantOverlay := `/*
 * from r.jsonl
 * verdict: apply * / AHBBRST=3
 * target by path: test
 * compile: dtc -@ -I dts -O dtb -o u.dtbo THIS.dtso; apply: fdtoverlay -i BASE.dtb -o BOARD.dtb u.dtbo
 */
/dts-v1/;
/plugin/;

/ {
	fragment@0 {
		target-path = "/soc/usb@2184200";
		__overlay__ {
			ahb-burst-config = <0x3>;	/* AHBBRST=3: +9.1 % */
			disable-over-current;
		};
	};
};

/*
 * Kernel command line (not device tree): bootargs line beside this file
 *   ehci_hcd.log2_irq_thresh=0	ITC=1 * /
 *   ehci_hcd.park=3	
 */

/*
 * Notes:
 *   USBCMD.FS2 = 0: leave fsl,foo out of the tree (absent means 0)
 *   a * / note
 *   an overlay cannot delete a property: where the base sets one this says to leave out, remove it from the base tree
 */
`
	if got := d.Overlay(dtsout.Target{Path: "/soc/usb@2184200", Why: "by path: test"}, "u.dtbo"); got != wantOverlay {
		t.Errorf("overlay:\n%q\nwant:\n%q", got, wantOverlay)
	}
	empty := dtsout.DTS{Label: "usbotg"}
	if got, want := empty.String(), "&usbotg {\n\t/* no device-tree property to change */\n};\n"; got != want {
		t.Errorf("empty fragment: %q, want %q", got, want)
	}
	if got, want := empty.Overlay(dtsout.Target{Why: "by label"}, "o.dtbo"), `/*
 * target by label
 * compile: dtc -@ -I dts -O dtb -o o.dtbo THIS.dtso; apply: fdtoverlay -i BASE.dtb -o BOARD.dtb o.dtbo
 */
/dts-v1/;
/plugin/;

/ {
	fragment@0 {
		target = <&usbotg>;
		__overlay__ {
			/* no device-tree property to change */
		};
	};
};
`; got != want {
		t.Errorf("empty overlay: %q, want %q", got, want)
	}
}

// Overlay adds its note to a copy: the caller's notes, and what their
// backing array holds beyond them, stay as they were.
func TestOverlayLeavesTheNotes(t *testing.T) {
	notes := make([]string, 1, 2)
	notes[0] = "USBCMD.FS2 = 0: leave fsl,foo out of the tree"
	d := dtsout.DTS{Label: "usbh1", Notes: notes}
	if o := d.Overlay(dtsout.Target{Label: "usbh1"}, "x.dtbo"); !strings.Contains(o, "an overlay cannot delete a property") {
		t.Fatalf("the overlay lacks its note:\n%s", o)
	}
	if spare := notes[:2][1]; spare != "" {
		t.Errorf("Overlay wrote %q into the caller's notes' backing array", spare)
	}
}
