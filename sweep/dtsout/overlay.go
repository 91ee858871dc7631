package dtsout

import (
	"fmt"
	"slices"
	"strings"
)

// Target is how an overlay names the controller's node in the board's
// base tree: by label (&usbh1), which needs the base built with
// `dtc -@` (a /__symbols__ node naming the label), else by full path.
type Target struct {
	Label string `json:"label,omitempty"`
	Path  string `json:"path,omitempty"`
	// Why says where the answer comes from, for the overlay's header.
	Why string `json:"why"`
}

// FindTarget decides the target for node (usb@2184200) labelled label
// in the base tree t (from where: "imx6q-sabrelite.dtb", "the running
// system's device tree"). A label is used only where __symbols__ names
// it and its path ends in node (a label of another node is not ours);
// else the full path of the one node of that name. With no tree, or a
// tree without the node, the label stands, and Why says what the base
// needs.
func FindTarget(t *Tree, where, label, node string) Target {
	if t == nil {
		return Target{Label: label, Why: "by label: no base tree was given (--dtb), so the base must carry __symbols__ (built with dtc -@); Debian's armmp i.MX and Vybrid DTBs do not: give --dtb BOARD.dtb to target by path"}
	}
	if p, ok := t.Symbols[label]; ok && (p == "/"+node || strings.HasSuffix(p, "/"+node)) {
		return Target{Label: label, Why: fmt.Sprintf("by label: %s carries __symbols__ (%s = %s)", where, label, p)}
	}
	var paths []string
	for _, p := range t.Paths {
		if strings.HasSuffix(p, "/"+node) {
			paths = append(paths, p)
		}
	}
	switch len(paths) {
	case 1:
		why := "has no __symbols__ (not built with dtc -@)"
		if len(t.Symbols) > 0 {
			why = "has __symbols__ without " + label
		}
		return Target{Path: paths[0], Why: fmt.Sprintf("by path: %s %s", where, why)}
	case 0:
		return Target{Label: label, Why: fmt.Sprintf("by label: %s has no node %s (another board's tree?); the base must define &%s in __symbols__", where, node, label)}
	}
	return Target{Label: label, Why: fmt.Sprintf("by label: %s has %d nodes named %s (%s)", where, len(paths), node, strings.Join(paths, ", "))}
}

// Overlay renders d as a device-tree overlay source (.dtso) for target
// t: `dtc -@ -I dts -O dtb` compiles it and fdtoverlay or U-Boot's `fdt
// apply` applies it to the base. dtbo names the compiled file in the
// instructions. The kernel parameters and notes follow as comments; the
// caller writes the bootargs line and the boot-loader snippets beside it.
func (d DTS) Overlay(t Target, dtbo string) string {
	var b strings.Builder
	b.WriteString("/*\n")
	for _, h := range d.Header {
		fmt.Fprintf(&b, " * %s\n", safe(h))
	}
	fmt.Fprintf(&b, " * target %s\n", safe(t.Why))
	fmt.Fprintf(&b, " * compile: dtc -@ -I dts -O dtb -o %s THIS.dtso; apply: fdtoverlay -i BASE.dtb -o BOARD.dtb %s\n", dtbo, dtbo)
	b.WriteString(" */\n/dts-v1/;\n/plugin/;\n\n")
	b.WriteString("/ {\n\tfragment@0 {\n")
	if t.Path != "" {
		fmt.Fprintf(&b, "\t\ttarget-path = %q;\n", t.Path)
	} else {
		fmt.Fprintf(&b, "\t\ttarget = <&%s>;\n", d.Label)
	}
	b.WriteString("\t\t__overlay__ {\n")
	d.props(&b, "\t\t\t")
	b.WriteString("\t\t};\n\t};\n};\n")
	block(&b, "Kernel command line (not device tree): bootargs line beside this file", mapf(d.Params, func(p DTSLine) string { return p.Text + "\t" + safe(p.Comment) }))
	ns := slices.Clip(d.Notes) // the note goes to a copy, not into the caller's backing array
	if slices.ContainsFunc(d.Notes, func(p string) bool { return strings.Contains(p, "leave ") && strings.Contains(p, " out of the tree") }) {
		ns = append(ns, "an overlay cannot delete a property: where the base sets one this says to leave out, remove it from the base tree")
	}
	block(&b, "Notes:", notes(ns))
	return b.String()
}

// BootSnippets are the boot-loader lines that load the compiled overlay
// dtbo and add the kernel parameters (d.KernelParams(), may be empty):
// U-Boot commands for the boot script, before bootz, and an
// extlinux.conf entry's lines.
func (d DTS) BootSnippets(dtbo string) (uboot, extlinux []string) {
	kp := d.KernelParams()
	uboot = []string{
		"load ${devtype} ${devnum}:${distro_bootpart} ${fdtoverlay_addr_r} " + dtbo,
		"fdt addr ${fdt_addr_r}; fdt resize 8192; fdt apply ${fdtoverlay_addr_r}",
	}
	extlinux = []string{"fdtoverlays /boot/" + dtbo}
	if kp != "" {
		uboot = append(uboot, `setenv bootargs "${bootargs} `+kp+`"`)
		extlinux = append(extlinux, "append <the entry's current append line> "+kp)
	}
	return uboot, extlinux
}
