package simmodel

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"periph.io/x/conn/v3/physic"

	"github.com/citune/citune/regs"
)

// regFile is a controller's registers by offset; it counts reads.
type regFile struct {
	v     map[uint32]uint32
	reads map[uint32]int
	err   error
}

func (r *regFile) Read32(off uint32) (uint32, error) {
	if r.err != nil {
		return 0, r.err
	}
	r.reads[off]++
	return r.v[off], nil
}

// set composes field values into the register file through the map.
func set(t *testing.T, m *regs.Map, rf *regFile, changes ...string) {
	t.Helper()
	for _, s := range changes {
		c, err := m.ParseChange(s)
		if err != nil {
			t.Fatal(err)
		}
		rf.v[c.Ref.Reg.Offset] = c.Ref.Field.Put(rf.v[c.Ref.Reg.Offset], c.Value)
	}
}

// The model reads its settings from the controller's fields, each
// register once.
func TestReadSettings(t *testing.T) {
	m := regs.ChipIdea()
	rf := &regFile{v: map[uint32]uint32{}, reads: map[uint32]int{}}
	set(t, m, rf, "ITC=8", "ASPE=1", "ASP=2", "AHBBRST=0", "RXPBURST=16", "TXPBURST=32", "TXFIFOTHRES=4", "SDIS=1", "USBMODE.CM=3")
	s, err := ReadSettings(m, rf)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{ITC: 8, ParkEnable: true, ParkCount: 2, AHBBRST: 0, RXPBURST: 16, TXPBURST: 32, TXFIFOTHRES: 4, SDIS: true, CM: 3}
	if s != want {
		t.Errorf("ReadSettings = %+v, want %+v", s, want)
	}
	for off, n := range rf.reads {
		if n != 1 {
			t.Errorf("register %#x read %d times", off, n)
		}
	}
	if s.ITCWindow() != time.Millisecond {
		t.Errorf("ITC 8 is a %v window, want 1 ms", s.ITCWindow())
	}
}

// A register or field the profile's map lacks reads as 0, and is never
// read; a read that fails names the register.
func TestReadSettingsPartialMapAndErrors(t *testing.T) {
	full := regs.ChipIdea()
	m := &regs.Map{Name: "partial", Registers: []regs.Register{*full.Register("USBCMD"), {Name: "SBUSCFG", Offset: 0x90}}}
	rf := &regFile{v: map[uint32]uint32{}, reads: map[uint32]int{}}
	set(t, full, rf, "ITC=16", "AHBBRST=3", "SDIS=1")
	s, err := ReadSettings(m, rf)
	if err != nil {
		t.Fatal(err)
	}
	if s.ITC != 16 || s.AHBBRST != 0 || s.SDIS || len(rf.reads) != 1 || rf.reads[0x140] != 1 {
		t.Errorf("settings %+v from reads %v; want ITC 16 from USBCMD alone", s, rf.reads)
	}
	rf.err = errors.New("bus fault")
	if _, err := ReadSettings(full, rf); err == nil || !strings.Contains(err.Error(), "simulated model: reading USBCMD: bus fault") {
		t.Errorf("failing read: %v", err)
	}
}

// With AHBBRST=0 the burst length is BURSTSIZE's (TX for writes, RX for
// reads) only where the non-burst setting is on (i.MX6 by default, not
// Vybrid); otherwise each word goes alone, and the DMA is slower.
func TestNonBurstSetting(t *testing.T) {
	s := Settings{AHBBRST: 0, RXPBURST: 16, TXPBURST: 32}
	imx := NewScenario(ForProfile("imx6q"), StorageRead)
	vf := NewScenario(ForProfile("vf610"), StorageRead)
	wr := NewScenario(ForProfile("imx6q"), StorageWrite)
	for _, c := range []struct {
		what string
		sc   Scenario
		nb   NonBurst
		want float64
	}{
		{"i.MX6 default", imx, NonBurstSoCDefault, 16},
		{"i.MX6 write", wr, NonBurstSoCDefault, 32},
		{"i.MX6 forced off", imx, NonBurstOff, 1},
		{"Vybrid default", vf, NonBurstSoCDefault, 1},
		{"Vybrid forced on", vf, NonBurstOn, 16},
	} {
		s.NonBurst = c.nb
		if got := c.sc.BurstWords(s); got != c.want {
			t.Errorf("%s: burst %v words, want %v", c.what, got, c.want)
		}
	}
	s.NonBurst = NonBurstOn
	fast := vf.DMARate(s)
	s.NonBurst = NonBurstOff
	if slow := vf.DMARate(s); slow >= fast {
		t.Errorf("single transfers (%.0f B/s) not slower than 16-word bursts (%.0f B/s)", slow, fast)
	}
	if got := imx.BurstWords(Settings{AHBBRST: 0, RXPBURST: 0}); got != 1 {
		t.Errorf("RXPBURST 0 counts as %v words, want 1", got)
	}
	for ahb, want := range map[uint32]float64{1: 4, 2: 8, 3: 16, 5: 4, 6: 8, 7: 16} {
		if got := imx.BurstWords(Settings{AHBBRST: ahb, RXPBURST: 1}); got != want {
			t.Errorf("AHBBRST %d: %v words, want %v", ahb, got, want)
		}
	}
	if !(Settings{AHBBRST: 4}).Reserved() || (Settings{AHBBRST: 7}).Reserved() {
		t.Error("only AHBBRST=4 is the reserved encoding")
	}
}

// Stream mode disabled buffers each packet whole: slower than streaming,
// but it never underruns or overruns the FIFO.
func TestStreamModeDisabled(t *testing.T) {
	for _, w := range []Workload{StorageRead, StorageWrite, GadgetOut} {
		sc := NewScenario(ForProfile("imx6q"), w)
		sc.BusLoad = 0.8
		s := Settings{AHBBRST: 0, RXPBURST: 4, TXPBURST: 4, ParkEnable: true, ParkCount: 3}
		s.SDIS = true
		buffered, xrun := sc.DataRate(s)
		if xrun {
			t.Errorf("%s: FIFO over- or underrun with stream mode disabled", w)
		}
		if buffered >= math.Min(sc.WireRate(s), sc.DMARate(s)) || buffered <= 0 {
			t.Errorf("%s: buffered %.0f B/s, not below the slower of wire and DMA", w, buffered)
		}
	}
}

// A gadget receiving (the PC's OUT) with a DMA slower than the wire
// overruns its FIFO and loses bus time to NAKs; with a fast DMA it runs
// at the wire's rate.
func TestGadgetOverrun(t *testing.T) {
	sc := NewScenario(ForProfile("imx6q"), GadgetOut)
	sc.BusLoad = 0.9
	slow := Settings{AHBBRST: 0, RXPBURST: 1, NonBurst: NonBurstOff}
	rate, xrun := sc.DataRate(slow)
	if !xrun || rate >= sc.DMARate(slow) {
		t.Errorf("slow DMA: rate %.0f, xrun %v; want an overrun below the DMA's %.0f", rate, xrun, sc.DMARate(slow))
	}
	sc.BusLoad = 0
	fast := Settings{AHBBRST: 3}
	if rate, xrun := sc.DataRate(fast); xrun || rate != sc.WireRate(fast) {
		t.Errorf("fast DMA: rate %.0f, xrun %v; want the wire's %.0f", rate, xrun, sc.WireRate(fast))
	}
	tr := sc.Transfer(Settings{AHBBRST: 3, ITC: 8}, 16<<20, nil)
	if tr.Xrun || tr.Bytes != 16<<20 || tr.IRQs <= 0 || tr.CPU <= 0 || tr.Rate() <= 0 {
		t.Errorf("gadget transfer %+v", tr)
	}
}

// A command costs the disk's fixed part plus its bytes at the slower of
// the path and the media: a disk with no media limit and no fixed time
// leaves the path's time alone; the interrupt waits drawn from the
// generator stay within their ITC windows.
func TestStorageTransfer(t *testing.T) {
	s := Settings{ITC: 64, AHBBRST: 3, SDIS: true, ParkEnable: true, ParkCount: 3}
	rd := NewScenario(ForProfile("imx6q"), StorageRead)
	r := rd.Transfer(s, DefaultStorageXfer, nil)
	bare := rd
	bare.Disk = Disk{}
	path, _ := rd.DataRate(s)
	b := bare.Transfer(s, DefaultStorageXfer, nil)
	data := time.Duration(float64(DefaultStorageXfer) / path * float64(time.Second))
	if got := r.Elapsed - b.Elapsed; got <= rd.Disk.ReadCommand {
		t.Errorf("the disk adds %v to a command, want more than its fixed %v (its media rate too)", got, rd.Disk.ReadCommand)
	}
	if over := b.Elapsed - data; over <= 0 || over > 3*s.ITCWindow() {
		t.Errorf("without the disk a command is %v, its data stage %v: the rest %v is not the interrupts' waits", b.Elapsed, data, over)
	}
	if r.IRQs != 3 || r.Bytes != DefaultStorageXfer {
		t.Errorf("a command is %v interrupts, %d bytes; want 3 and %d", r.IRQs, r.Bytes, DefaultStorageXfer)
	}
	win := s.ITCWindow()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		x := rd.Transfer(s, DefaultStorageXfer, rng)
		// The data stage's wait is drawn in [0, window) (nil: half a
		// window); the CBW's and CSW's are fixed.
		if d := x.Elapsed - r.Elapsed; d < -win/2 || d >= win/2 {
			t.Fatalf("drawn waits moved the command by %v, beyond ±half a window of %v", d, win)
		}
	}
}

// RunFactor: no noise and no drift is exactly 1; the same generator
// state gives the same factor; noise without a generator is drift alone.
func TestRunFactorParts(t *testing.T) {
	sc := NewScenario(ForProfile("imx6q"), StorageRead)
	sc.Noise, sc.Drift = 0, 0
	if f := sc.RunFactor(7, 0.2, rand.New(rand.NewPCG(1, 1))); f != 1 {
		t.Errorf("no noise, no drift: %v", f)
	}
	sc.Noise = 0.05
	a := sc.RunFactor(1, 0, rand.New(rand.NewPCG(9, 9)))
	b := sc.RunFactor(1, 0, rand.New(rand.NewPCG(9, 9)))
	if a != b || a == 1 {
		t.Errorf("seeded noise: %v and %v", a, b)
	}
	if f := sc.RunFactor(1, 0, nil); f != 1 {
		t.Errorf("noise without a generator: %v, want 1", f)
	}
	sc.Noise, sc.Drift, sc.DriftRuns = 0, 0.01, 4
	if f := sc.RunFactor(1, 0, nil); math.Abs(f-1.01) > 1e-12 {
		t.Errorf("drift at a quarter period: %v, want 1.01", f)
	}
}

// InterruptRate is count over time; no time is no rate.
func TestInterruptRate(t *testing.T) {
	if got := InterruptRate(3000, 500*time.Millisecond); got != 6*physic.KiloHertz {
		t.Errorf("3000 over 0.5 s = %v, want 6 kHz", got)
	}
	if got := InterruptRate(5, 0); got != 0 {
		t.Errorf("over no time: %v", got)
	}
}
