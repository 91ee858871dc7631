package tui

import (
	"context"
	"testing"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/undo"
)

// gatedAcc blocks writes while gate is set: the first blocked write
// says so on entered and waits for release.
type gatedAcc struct {
	regs.Accessor
	gate             bool
	entered, release chan struct{}
}

func (g *gatedAcc) Write32(off, v uint32) error {
	if g.gate {
		g.entered <- struct{}{}
		<-g.release
	}
	return g.Accessor.Write32(off, v)
}

// TestViewDuringRestore renders every tab in every mode while a restore
// holds the undo session (blocked in a register write): no View path may
// wait on the session's lock.
func TestViewDuringRestore(t *testing.T) {
	var u *undo.Session
	g := &gatedAcc{entered: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, false, func(c *Config) {
		id, _ := c.Target.ID()
		g.Accessor = c.Target.Accessor()
		var err error
		u, err = undo.Open(undo.Options{Target: id, Owner: undo.Self(undo.KindTUI, nil), Acc: g, Map: c.Target.Profile.Map})
		if err != nil {
			t.Fatal(err)
		}
		c.Undo = testUndo{u}
	})
	e.setEdit("USBCMD.ITC", 0)
	if len(u.Touched()) != 1 {
		t.Fatalf("touched %v after one write", u.Touched())
	}
	e.selectRow("USBCMD.ITC")
	e.keys("enter")
	ed := e.m.regs.ed // the tabs' dialogs are drawn in every case below too
	e.keys("esc")
	if ed == nil {
		t.Fatal("the editor did not open")
	}
	g.gate = true
	done := make(chan error, 1)
	go func() {
		_, err := u.Restore(context.Background())
		done <- err
	}()
	<-g.entered // the restore holds the session, blocked in its write
	for tb := range numTabs {
		for md := modeNormal; md <= modeClosing; md++ {
			for _, open := range []*editor{nil, ed} { // and the Sweep tab's plan prompt with the editor
				m := e.m
				m.tab, m.mode, m.regs.ed, m.sweep.prompt = tb, md, open, promptNone
				if open != nil {
					m.sweep.prompt = promptPlan
				}
				rendered := make(chan string, 1)
				go func() { rendered <- m.View().Content }()
				select {
				case s := <-rendered:
					if s == "" {
						t.Errorf("tab %d mode %d: empty screen", tb, md)
					}
				case <-time.After(10 * time.Second): // a deadlock, not a speed limit
					t.Fatalf("tab %s mode %d editor %v: View waits while a restore holds the undo session", tabNames[tb], md, open != nil)
				}
			}
		}
	}
	close(g.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(u.Touched()) != 0 {
		t.Fatalf("touched %v after the restore", u.Touched())
	}
}
