package dtsout

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/soc"
)

// KnobOfDT is the knob whose device-tree property is prop (a dt: axis's
// name), nil when the profile has none.
func KnobOfDT(p *soc.Profile, prop string) *soc.Knob {
	if i := slices.IndexFunc(p.Knobs, func(k soc.Knob) bool { return k.DT != "" && k.DT == prop }); i >= 0 {
		return &p.Knobs[i]
	}
	return nil
}

// OverlayBlob is Overlay compiled: the flattened device tree (version
// 17) that `dtc -@ -I dts -O dtb` makes of the same source, which
// fdtoverlay, U-Boot's `fdt apply` and extlinux's fdtoverlays take.
// Decision: a sweep across reboots writes each point's overlay on the
// board, where dtc is rarely installed; the format is a page of code
// (devicetree specification, chapter 5), so citune writes it itself.
// A label target gets the __fixups__ entry dtc -@ writes for it.
func (d DTS) OverlayBlob(t Target) ([]byte, error) {
	w := fdtWriter{off: map[string]int{}}
	w.begin("")
	w.begin("fragment@0")
	fixup := t.Path == ""
	if fixup {
		w.prop("target", []byte{0xff, 0xff, 0xff, 0xff})
	} else {
		w.prop("target-path", append([]byte(t.Path), 0))
	}
	w.begin("__overlay__")
	for _, p := range d.Props {
		name, val, err := propValue(p.Text)
		if err != nil {
			return nil, err
		}
		w.prop(name, val)
	}
	w.end()
	w.end()
	if fixup {
		w.begin("__fixups__")
		w.prop(d.Label, []byte("/fragment@0:target:0\x00"))
		w.end()
	}
	w.end()
	return w.blob(), nil
}

// propValue reads one of the fragment's property lines: "name" (a
// boolean) or "name = <0x10>" (one cell).
func propValue(text string) (string, []byte, error) {
	name, v, ok := strings.Cut(text, "=")
	name = strings.TrimSpace(name)
	if !ok {
		return name, nil, nil
	}
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "<") || !strings.HasSuffix(v, ">") {
		return "", nil, fmt.Errorf("property %q: want one cell <N>", text)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v[1:len(v)-1]), 0, 32)
	if err != nil {
		return "", nil, fmt.Errorf("property %q: %w", text, err)
	}
	return name, binary.BigEndian.AppendUint32(nil, uint32(n)), nil
}

const (
	fdtBeginNode = 1
	fdtEndNode   = 2
	fdtProp      = 3
	fdtEnd       = 9
)

type fdtWriter struct {
	st  []byte
	str []byte
	off map[string]int
}

func (w *fdtWriter) u32(v uint32) { w.st = binary.BigEndian.AppendUint32(w.st, v) }

func (w *fdtWriter) pad() {
	for len(w.st)%4 != 0 {
		w.st = append(w.st, 0)
	}
}

func (w *fdtWriter) begin(name string) {
	w.u32(fdtBeginNode)
	w.st = append(append(w.st, name...), 0)
	w.pad()
}

func (w *fdtWriter) end() { w.u32(fdtEndNode) }

func (w *fdtWriter) prop(name string, val []byte) {
	o, ok := w.off[name]
	if !ok {
		o = len(w.str)
		w.off[name] = o
		w.str = append(append(w.str, name...), 0)
	}
	w.u32(fdtProp)
	w.u32(uint32(len(val)))
	w.u32(uint32(o))
	w.st = append(w.st, val...)
	w.pad()
}

func (w *fdtWriter) blob() []byte {
	w.u32(fdtEnd)
	const hdr, rsv = 40, 16
	total := hdr + rsv + len(w.st) + len(w.str)
	b := make([]byte, 0, total)
	for _, v := range []uint32{0xd00dfeed, uint32(total), hdr + rsv, uint32(hdr + rsv + len(w.st)), hdr, 17, 16, 0, uint32(len(w.str)), uint32(len(w.st))} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = append(b, make([]byte, rsv)...)
	return append(append(b, w.st...), w.str...)
}
