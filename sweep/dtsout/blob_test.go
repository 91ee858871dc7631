package dtsout

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The blob is what dtc makes of the overlay source: dtc reads it back
// to the same tree, and fdtoverlay applies it to a base tree (by path,
// and by label to a base built with -@).
func TestOverlayBlobApplies(t *testing.T) {
	for _, tool := range []string{"dtc", "fdtoverlay", "fdtget"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip("needs " + tool)
		}
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "base.dts")
	os.WriteFile(base, []byte("/dts-v1/;\n/ { soc { usbh1: usb@2184200 { compatible = \"fsl,imx6q-usb\"; tx-burst-size-dword = <0x10>; }; }; };\n"), 0o644)
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("dtc", "-@", "-I", "dts", "-O", "dtb", "-o", filepath.Join(dir, "base.dtb"), base)
	d := DTS{Label: "usbh1", Props: []DTSLine{{Text: "tx-burst-size-dword = <0x20>"}, {Text: "ahb-burst-config = <0x0>"}, {Text: "disable-over-current"}}}
	for _, tg := range []Target{{Path: "/soc/usb@2184200"}, {Label: "usbh1"}} {
		b, err := d.OverlayBlob(tg)
		if err != nil {
			t.Fatal(err)
		}
		dtbo := filepath.Join(dir, "o.dtbo")
		os.WriteFile(dtbo, b, 0o644)
		src := run("dtc", "-I", "dtb", "-O", "dts", dtbo)
		if !strings.Contains(src, "tx-burst-size-dword = <0x20>;") || !strings.Contains(src, "disable-over-current;") {
			t.Fatalf("decompiled:\n%s", src)
		}
		out := filepath.Join(dir, "out.dtb")
		run("fdtoverlay", "-i", filepath.Join(dir, "base.dtb"), "-o", out, dtbo)
		if got := strings.TrimSpace(run("fdtget", "-t", "x", out, "/soc/usb@2184200", "tx-burst-size-dword")); got != "20" {
			t.Fatalf("%+v: tx-burst-size-dword after fdtoverlay = %q, want 20", tg, got)
		}
		if got := strings.TrimSpace(run("fdtget", "-t", "x", out, "/soc/usb@2184200", "ahb-burst-config")); got != "0" {
			t.Fatalf("ahb-burst-config = %q", got)
		}
	}
	if _, err := (DTS{Props: []DTSLine{{Text: "x = <1 2>"}}}).OverlayBlob(Target{Path: "/"}); err == nil {
		t.Fatal("two cells taken")
	}
}
