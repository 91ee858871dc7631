package main

import (
	"testing"
	"testing/fstest"

	"github.com/citune/citune/soc"
)

// The board a sweep records: the name given, else $CITUNE_BOARD; the
// device tree's model (its trailing NUL cut) only for the live
// controller.
func TestBoardID(t *testing.T) {
	root := fstest.MapFS{"proc/device-tree/model": {Data: []byte("Freescale i.MX6 Quad SABRE Lite Board\x00")}}
	vars := map[string]string{"CITUNE_BOARD": "rack1-03"}
	a := &app{env: &env{root: root, getenv: func(k string) string { return vars[k] }}}

	b := a.boardID("", &soc.Target{Kind: soc.KindDevMem})
	if b.Name != "rack1-03" || b.Model != "Freescale i.MX6 Quad SABRE Lite Board" || b.Host == "" {
		t.Errorf("devmem: %+v", b)
	}
	if got := b.String(); got != "rack1-03" {
		t.Errorf("String() = %q", got)
	}
	b = a.boardID(" rev-b ", &soc.Target{Kind: soc.KindSim})
	if b.Name != "rev-b" || b.Model != "" {
		t.Errorf("sim: %+v (a simulated controller is not this machine's board)", b)
	}
	vars = map[string]string{}
	b = a.boardID("", &soc.Target{Kind: soc.KindFile})
	if b.Name != "" || b.Model != "" || b.String() != "" {
		t.Errorf("image without a name: %+v, %q", b, b.String())
	}
	b = a.boardID("", &soc.Target{Kind: soc.KindDevMem})
	if got, want := b.String(), "Freescale i.MX6 Quad SABRE Lite Board ("+b.Host+")"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
