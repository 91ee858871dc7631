package dtsout

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// blob builds a flattened device tree: nodes as "path" entries in
// depth-first order, with props "path:name=value" for string values.
func blob(nodes []string, props map[string][][2]string) []byte {
	be := binary.BigEndian
	var st, strs []byte
	word := func(v uint32) { st = be.AppendUint32(st, v) }
	pad := func() {
		for len(st)%4 != 0 {
			st = append(st, 0)
		}
	}
	var open []string
	for _, n := range nodes {
		for len(open) > 0 && !strings.HasPrefix(n, strings.TrimSuffix(open[len(open)-1], "/")+"/") {
			word(2)
			open = open[:len(open)-1]
		}
		word(1)
		st = append(st, n[strings.LastIndexByte(n, '/')+1:]...)
		st = append(st, 0)
		pad()
		for _, p := range props[n] {
			word(3)
			word(uint32(len(p[1]) + 1))
			word(uint32(len(strs)))
			strs = append(append(strs, p[0]...), 0)
			st = append(append(st, p[1]...), 0)
			pad()
		}
		open = append(open, n)
	}
	for range open {
		word(2)
	}
	word(9)
	h := make([]byte, 40)
	be.PutUint32(h, 0xd00dfeed)
	be.PutUint32(h[4:], uint32(40+len(st)+len(strs)))
	be.PutUint32(h[8:], 40)
	be.PutUint32(h[12:], uint32(40+len(st)))
	be.PutUint32(h[32:], uint32(len(strs)))
	be.PutUint32(h[36:], uint32(len(st)))
	return append(append(h, st...), strs...)
}

var sabre = []string{"/", "/soc", "/soc/bus@2100000", "/soc/bus@2100000/usb@2184000", "/soc/bus@2100000/usb@2184200"}

func TestParseDTBAndTarget(t *testing.T) {
	tr, err := ParseDTB(blob(sabre, nil))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tr.Paths, sabre) || len(tr.Symbols) != 0 {
		t.Fatalf("paths %q symbols %v", tr.Paths, tr.Symbols)
	}
	if tg := FindTarget(tr, "b.dtb", "usbh1", "usb@2184200"); tg.Path != "/soc/bus@2100000/usb@2184200" || tg.Label != "" || !strings.Contains(tg.Why, "no __symbols__") {
		t.Errorf("no symbols: %+v", tg)
	}
	sym := append(slices.Clone(sabre), "/__symbols__")
	props := map[string][][2]string{"/__symbols__": {{"usbh1", "/soc/bus@2100000/usb@2184200"}, {"usbotg", "/soc/bus@2100000/usb@2184000"}}}
	tr, err = ParseDTB(blob(sym, props))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Symbols["usbh1"] != "/soc/bus@2100000/usb@2184200" {
		t.Fatalf("symbols %v", tr.Symbols)
	}
	if tg := FindTarget(tr, "b.dtb", "usbh1", "usb@2184200"); tg.Label != "usbh1" || tg.Path != "" {
		t.Errorf("symbols: %+v", tg)
	}
	// A label that names another node is not ours: by path.
	if tg := FindTarget(tr, "b.dtb", "usbotg", "usb@2184200"); tg.Path != "/soc/bus@2100000/usb@2184200" || !strings.Contains(tg.Why, "without usbotg") {
		t.Errorf("foreign label: %+v", tg)
	}
	// Another board's tree: the label stands, saying why.
	if tg := FindTarget(tr, "b.dtb", "usbh1", "usb@400b4000"); tg.Label != "usbh1" || !strings.Contains(tg.Why, "has no node usb@400b4000") {
		t.Errorf("other board: %+v", tg)
	}
	two := []string{"/", "/a", "/a/usb@1", "/b", "/b/usb@1"}
	tr, _ = ParseDTB(blob(two, nil))
	if tg := FindTarget(tr, "b.dtb", "x", "usb@1"); tg.Label != "x" || !strings.Contains(tg.Why, "2 nodes named usb@1") {
		t.Errorf("two nodes: %+v", tg)
	}
}

func TestParseDTBRefusesDamage(t *testing.T) {
	b := blob(sabre, nil)
	for _, n := range []int{0, 39, 60, len(b) - 1} {
		if _, err := ParseDTB(b[:n]); err == nil {
			t.Errorf("%d of %d bytes parsed", n, len(b))
		}
	}
	bad := slices.Clone(b)
	binary.BigEndian.PutUint32(bad[40:], 7) // first token
	if _, err := ParseDTB(bad); err == nil || !strings.Contains(err.Error(), "unknown token") {
		t.Errorf("bad token: %v", err)
	}
}

func FuzzParseDTB(f *testing.F) {
	f.Add(blob(sabre, nil))
	f.Add(blob(append(slices.Clone(sabre), "/__symbols__"), map[string][][2]string{"/__symbols__": {{"usbh1", "/soc"}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := ParseDTB(b)
		if err == nil && len(tr.Paths) == 0 {
			t.Fatal("a tree without its root node")
		}
	})
}
