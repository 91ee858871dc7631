package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/textwrap"
)

// overlayOpts are dts's --overlay flags.
type overlayOpts struct {
	on, force bool
	dtb       string // the board's base DTB, which decides label or path
	out       string // FILE.dtso; FILE.bootargs beside it
}

// overlayTarget decides how the overlay names the controller's node:
// from --dtb, else from the running system's device tree when it has
// the node (on the board), else by label with the reason.
func (a *app) overlayTarget(o overlayOpts, in dtsout.DTSInput) (dtsout.Target, error) {
	label, node := in.Controller.Label, in.Controller.Node
	if o.dtb != "" {
		b, err := os.ReadFile(o.dtb)
		if err != nil {
			return dtsout.Target{}, err
		}
		t, err := dtsout.ParseDTB(b)
		if err != nil {
			return dtsout.Target{}, fmt.Errorf("%s: %w", o.dtb, err)
		}
		return dtsout.FindTarget(t, filepath.Base(o.dtb), label, node), nil
	}
	if t := dtsout.ReadTree(a.env.root, "proc/device-tree"); t != nil {
		if tg := dtsout.FindTarget(t, "the running system's device tree", label, node); tg.Path != "" || strings.Contains(tg.Why, "__symbols__ (") {
			return tg, nil
		}
	}
	return dtsout.FindTarget(nil, "", label, node), nil
}

// writeOverlay is `citune dts --overlay`: the fragment's decision d as
// an overlay, its bootargs line and the boot-loader snippets.
func (a *app) writeOverlay(o overlayOpts, in dtsout.DTSInput, d dtsout.DTS) error {
	tg, err := a.overlayTarget(o, in)
	if err != nil {
		return err
	}
	dtbo := in.Controller.Label + "-citune.dtbo"
	if o.out != "" {
		dtbo = strings.TrimSuffix(filepath.Base(o.out), ".dtso") + ".dtbo"
	}
	// The fragment's last header line says where it goes; an overlay's
	// header says how it is applied instead.
	if n := len(d.Header); n > 0 && strings.HasPrefix(d.Header[n-1], "Place after") {
		d.Header = d.Header[:n-1]
	}
	src := d.Overlay(tg, dtbo)
	kp := d.KernelParams()
	uboot, extlinux := d.BootSnippets(dtbo)
	if a.g.json {
		return writeJSON(a.env.stdout, struct {
			Profile    string        `json:"profile"`
			Controller string        `json:"controller"`
			Target     dtsout.Target `json:"target"`
			Overlay    string        `json:"overlay"`
			Bootargs   string        `json:"bootargs"`
			UBoot      []string      `json:"uboot"`
			Extlinux   []string      `json:"extlinux"`
			Notes      []string      `json:"notes"`
		}{in.Profile.Name, in.Controller.Label, tg, src, kp, uboot, extlinux, d.Notes})
	}
	w := a.env.stdout
	if o.out == "" {
		fmt.Fprint(w, textwrap.Escape(src))
		return nil
	}
	if err := writeOutput(o.out, []byte(src), o.force); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s (target %s)\n", o.out, tg.Why)
	if kp != "" {
		ba := strings.TrimSuffix(o.out, ".dtso") + ".bootargs"
		if err := writeOutput(ba, []byte(kp+"\n"), o.force); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s: bootargs %s\n", ba, kp)
	}
	fmt.Fprintf(w, "\ncompile: dtc -@ -I dts -O dtb -o %s %s\n", dtbo, o.out)
	fmt.Fprintf(w, "apply on the host: fdtoverlay -i BASE.dtb -o BOARD.dtb %s\n", dtbo)
	fmt.Fprintln(w, "\nU-Boot (boot script, before bootz):")
	for _, l := range uboot {
		fmt.Fprintln(w, "  "+textwrap.Escape(l))
	}
	fmt.Fprintln(w, "\nextlinux.conf (the boot entry):")
	for _, l := range extlinux {
		fmt.Fprintln(w, "  "+textwrap.Escape(l))
	}
	return nil
}
