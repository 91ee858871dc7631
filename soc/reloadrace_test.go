package soc

import (
	"errors"
	"sync"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/undo"
)

// TestReloadDuringHalt reloads the simulated module (a window swap) while
// the signal path's Halt restores through the same target from another
// goroutine; run with -race, the swap and the writes must be ordered.
func TestReloadDuringHalt(t *testing.T) {
	p := profile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, err := OpenSim(p, c, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := tg.ID()
	u, err := undo.Open(undo.Options{Target: id, Owner: undo.Self(undo.KindTUI, nil), Acc: tg.Accessor(), Map: p.Map})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	tg.SetHalt(u.Halt)
	ref, err := p.Map.Lookup("SBUSCFG.AHBBRST")
	if err != nil {
		t.Fatal(err)
	}
	start, _ := tg.Read32(ref.Reg.Offset)
	if _, err := u.Apply([]regs.Change{{Ref: ref, Value: ref.Field.Get(start) ^ 1}}); err != nil {
		t.Fatal(err)
	}
	noParams := func(string, string) (string, error) { return "", errors.New("not loaded") }
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 50 {
			if err := tg.ReloadSim(noParams); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		if err := tg.Halt(); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()
	if len(u.Touched()) != 0 {
		t.Errorf("after the halt the session still holds %v", u.Touched())
	}
}
