package sweep

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/citune/citune/bootargs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/dtsout"
	"github.com/citune/citune/sweep/plan"
)

// A dt: axis (dt:tx-burst-size-dword=0x10,0x20) is a device-tree
// property of the controller's node, proven at boot: a point that changes
// one writes an overlay (as `dts --overlay` renders it, dtsout.OverlayBlob)
// and lists it in the boot loader's fdtoverlays (extlinux.conf's keyword,
// or the U-Boot variable the board's boot script applies: `citune help
// sweep`). After the boot the value is in force when the knob's register
// field reads it; else the point is not held, with the reason.
// Decisions:
//   - The overlay is citune-CRC.dtbo (CRC32 of its bytes), so each point's
//     fdtoverlays differs and a resumed sweep tells a point the loader was
//     given from one not written yet, as for bootargs. It goes beside the
//     loader's files (the folder holding extlinux/, else /boot), named
//     from the root (/boot/NAME.dtbo): U-Boot's sysboot reads such a path
//     from the root of the partition that holds extlinux/ (boot/pxe_utils.c
//     get_relfile, allow_abs_path), so with a separate /boot partition the
//     point reads "not applied". Every file is journalled
//     (undo.BootRec.Files) and removed with the originals.
//   - A point at every dt: axis's original value boots without it: the
//     baseline is the board's own tree.
//   - The overlay targets the node by path where the running tree has it,
//     else by label (dtsout.FindTarget).

// dtValue is a dt axis's value in this boot: the field's reading.
func (r *state) dtValue(a plan.Axis) (string, error) {
	raw, err := r.Target.Read32(a.Ref.Reg.Offset)
	if err != nil {
		return "", err
	}
	return strconv.FormatUint(uint64(a.Ref.Field.Get(raw)), 10), nil
}

// overlay is a point's overlay: where it goes, its bytes, the
// fdtoverlays value that lists it, and its properties for people.
type overlay struct {
	file, list, props string
	blob              []byte
}

func (o *overlay) write() error {
	if err := os.MkdirAll(filepath.Dir(o.file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(o.file, o.blob, 0o644)
}

// removeOverlays removes the overlays a sweep wrote.
func removeOverlays(files []string) {
	for _, f := range files {
		if ok, _ := filepath.Match("citune-*.dtbo", filepath.Base(f)); ok {
			os.Remove(f)
		}
	}
}

// wantOverlay is the point's overlay; nil where every dt axis is at its
// original value. orig is the loader's original fdtoverlays.
func (r *state) wantOverlay(vals []string, orig *string) (*overlay, error) {
	var set []dtsout.Setting
	changed := false
	for i, a := range r.axes {
		if a.Kind == plan.KindDT {
			set = append(set, dtsout.Setting{Name: a.Name, Value: vals[i]})
			changed = changed || vals[i] != r.orig[i]
		}
	}
	if !changed {
		return nil, nil
	}
	t := r.Target
	d := dtsout.BuildDTS(dtsout.DTSInput{Profile: t.Profile, Controller: t.Controller, Role: r.role, Snapshot: r.snapshot, Settings: set})
	if len(d.Unmade) > 0 || len(d.Props) == 0 {
		return nil, fmt.Errorf("the point's overlay cannot be written: %s", strings.Join(d.Unmade, "; "))
	}
	root := cmp.Or(r.BootRoot, "/")
	tree := dtsout.ReadTree(os.DirFS(root), "proc/device-tree")
	blob, err := d.OverlayBlob(dtsout.FindTarget(tree, "the running device tree", t.Controller.Label, t.Controller.Node))
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, "boot")
	if r.Boot.Kind() == bootargs.KindExtlinux {
		dir = filepath.Dir(filepath.Dir(r.Boot.Config()))
	}
	name := fmt.Sprintf("citune-%08x.dtbo", crc32.ChecksumIEEE(blob))
	rel, err := filepath.Rel(root, filepath.Join(dir, name))
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("the overlay's folder %s is not under %s", dir, root)
	}
	o := &overlay{file: filepath.Join(dir, name), list: "/" + filepath.ToSlash(rel), blob: blob}
	if orig != nil && strings.TrimSpace(*orig) != "" {
		o.list = strings.TrimSpace(*orig) + " " + o.list
	}
	var ps []string
	for _, p := range d.Props {
		ps = append(ps, p.Text)
	}
	o.props = strings.Join(ps, "; ")
	return o, nil
}

// dtReason says why a dt value the boot was given does not read back:
// what the running device tree holds tells the overlay that was not
// applied from the property the driver did not take.
func (r *state) dtReason(a plan.Axis, want string) string {
	t := r.Target
	if t.Profile.ReadsAsZero(a.Ref.Reg.Offset) {
		return fmt.Sprintf("the emulator ignores writes to %s (it reads 0): the value cannot be in force here", a.Ref.Reg.Name)
	}
	root := cmp.Or(r.BootRoot, "/")
	tree := dtsout.ReadTree(os.DirFS(root), "proc/device-tree")
	if tree == nil {
		return "no /proc/device-tree to tell whether the overlay was applied"
	}
	for _, p := range tree.Paths {
		if !strings.HasSuffix(p, "/"+t.Controller.Node) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, "proc/device-tree", filepath.FromSlash(path.Clean(p)), a.Name))
		switch {
		case err != nil:
			return fmt.Sprintf("the overlay was not applied: the running device tree has no %s in %s (does the boot loader apply fdtoverlays?)", a.Name, p)
		case len(b) != 4:
			return fmt.Sprintf("the running device tree's %s is not one cell", a.Name)
		}
		got := binary.BigEndian.Uint32(b)
		if strconv.FormatUint(uint64(got), 10) != want {
			return fmt.Sprintf("the running device tree has %s = <%#x>: the overlay was not applied, or another one overrides it", a.Name, got)
		}
		why := "the property is in the running device tree: the driver did not write it (the SoC's glue data lacks the flag, or it rewrites the field)"
		if k := dtsout.KnobOfDT(t.Profile, a.Name); k != nil && k.Requires != "" {
			why += "; it takes effect only with " + k.Requires
		}
		return why
	}
	return "the running device tree has no node " + t.Controller.Node
}

// dtProps lists the device-tree properties of p's knobs.
func dtProps(p *soc.Profile) string {
	var ps []string
	for _, k := range p.Knobs {
		if k.DT != "" {
			ps = append(ps, k.DT)
		}
	}
	if len(ps) == 0 {
		return "it names none"
	}
	return "it has " + strings.Join(ps, ", ")
}
