package probe

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/soc/sim"
)

var _ SimController = (*sim.Sim)(nil)

func newSim(t *testing.T, driver bool, log2 uint) (*sim.Sim, *regs.Map) {
	t.Helper()
	m := regs.ChipIdea()
	return sim.New(sim.Config{Map: m, Size: 0x200, Driver: driver, Log2IrqThresh: log2}), m
}

// set writes FIELD=VALUE through the register map, as citune set does.
func set(t *testing.T, s *sim.Sim, m *regs.Map, reg, field string, v uint32) {
	t.Helper()
	r := m.Register(reg)
	cur, _ := s.Read32(r.Offset)
	if err := s.Write32(r.Offset, r.Field(field).Put(cur, v)); err != nil {
		t.Fatal(err)
	}
}

func simRun(t *testing.T, p *SimProbe) Run {
	t.Helper()
	r, err := p.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Simulated || r.Corrupt {
		t.Fatalf("run %+v", r)
	}
	return r
}

func simRate(t *testing.T, s *sim.Sim, m *regs.Map, write bool) float64 {
	t.Helper()
	return simRun(t, &SimProbe{Ctl: s, Map: m, Size: 16 << 20, Xfer: DefaultSimXfer, Seed: 3, Write: write}).Rate
}

func TestSimDeterministic(t *testing.T) {
	s, m := newSim(t, false, 0)
	a := &SimProbe{Ctl: s, Map: m, Size: 8 << 20, Xfer: DefaultSimXfer, Seed: 42}
	b := &SimProbe{Ctl: s, Map: m, Size: 8 << 20, Xfer: DefaultSimXfer, Seed: 42}
	ra, err := Measure(context.Background(), a, Options{Repeat: 4})
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := Measure(context.Background(), b, Options{Repeat: 4})
	for i := range ra.Runs {
		if ra.Runs[i].Rate != rb.Runs[i].Rate {
			t.Errorf("run %d: %v and %v with one seed", i+1, ra.Runs[i].Rate, rb.Runs[i].Rate)
		}
	}
	if ra.Stats.StdDev == 0 || ra.Stats.CV > 0.02 {
		t.Errorf("spread %v (CV %v): want a little noise", ra.Stats.StdDev, ra.Stats.CV)
	}
	if !ra.Simulated || len(ra.Notes) != 0 {
		t.Errorf("simulated %v, notes %q", ra.Simulated, ra.Notes)
	}
	// 3 interrupts per 120 KiB command
	if got := ra.Runs[0].IRQs; got != 3*((8<<20+DefaultSimXfer-1)/DefaultSimXfer) {
		t.Errorf("%d interrupts", got)
	}
}

// The probe reads the registers before every command and hands them to
// the model (whose terms simmodel's tests check one by one).
func TestSimRespondsToSettings(t *testing.T) {
	s, m := newSim(t, false, 0)
	set(t, s, m, "USBCMD", "ITC", 1)
	set(t, s, m, "SBUSCFG", "AHBBRST", 0)
	set(t, s, m, "BURSTSIZE", "RXPBURST", 16)
	set(t, s, m, "BURSTSIZE", "TXPBURST", 16)
	set(t, s, m, "USBMODE", "SDIS", 0)
	base := simRate(t, s, m, false)

	set(t, s, m, "USBCMD", "ITC", 64)
	if r := simRate(t, s, m, false); r > base/3 {
		t.Errorf("ITC 64: %v, want far below %v (8 ms waits)", r, base)
	}
	set(t, s, m, "USBCMD", "ITC", 1)

	set(t, s, m, "BURSTSIZE", "RXPBURST", 1)
	if r := simRate(t, s, m, false); r > base*0.8 {
		t.Errorf("RX burst 1 word: %v, want well below %v", r, base)
	}
	set(t, s, m, "SBUSCFG", "AHBBRST", 3) // INCR16 overrides BURSTSIZE
	if r := simRate(t, s, m, false); r < base*0.98 {
		t.Errorf("INCR16: %v, want about %v", r, base)
	}
	set(t, s, m, "SBUSCFG", "AHBBRST", 0)
	set(t, s, m, "BURSTSIZE", "RXPBURST", 16)

	// Stream mode matters where the DMA is slow enough to show through
	// the disk's own rate: under bus load (idle, the disk sets the pace).
	loaded := func() float64 {
		return simRun(t, &SimProbe{Ctl: s, Map: m, Size: 16 << 20, Seed: 3, BusLoad: 0.8}).Rate
	}
	streaming := loaded()
	set(t, s, m, "USBMODE", "SDIS", 1)
	if r := loaded(); r > streaming*0.97 {
		t.Errorf("streaming disabled under bus load: %v, want below %v", r, streaming)
	}
	if r := simRate(t, s, m, false); r < base*0.97 {
		t.Errorf("streaming disabled on an idle bus: %v, want about %v (the disk sets the pace)", r, base)
	}
	set(t, s, m, "USBMODE", "SDIS", 0)

	// Writes under bus load with short bursts underrun without enough
	// FIFO prefill.
	set(t, s, m, "BURSTSIZE", "TXPBURST", 4)
	set(t, s, m, "TXFILLTUNING", "TXFIFOTHRES", 0)
	w := &SimProbe{Ctl: s, Map: m, Size: 16 << 20, Seed: 3, Workload: simmodel.StorageWrite, BusLoad: 0.8}
	low := simRun(t, w).Rate
	set(t, s, m, "TXFILLTUNING", "TXFIFOTHRES", 32)
	if high := simRun(t, w).Rate; high < 1.5*low {
		t.Errorf("write, TXFIFOTHRES 0 → 32: %v → %v, want the underrun gone", low, high)
	}
}

// A workload runs only on a controller in its role.
func TestSimWorkloadNeedsItsRole(t *testing.T) {
	s, m := newSim(t, false, 0)
	set(t, s, m, "USBMODE", "CM", 3)
	_, err := (&SimProbe{Ctl: s, Map: m, Size: 1 << 20, Workload: simmodel.GadgetIn}).Run(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "the gadget-in workload needs a controller in device role, and this one is in host role") {
		t.Errorf("gadget on a host: %v", err)
	}
	if _, err := (&SimProbe{Ctl: s, Map: m, Size: 1 << 20}).Run(context.Background(), nil); err != nil {
		t.Errorf("read on a host: %v", err)
	}
}

// On a gadget link, interrupts and CPU per MiB fall as ITC rises.
func TestSimGadgetInterrupts(t *testing.T) {
	s, m := newSim(t, false, 0)
	p := &SimProbe{Ctl: s, Map: m, Size: 16 << 20, Seed: 3, Workload: simmodel.GadgetIn}
	if !strings.Contains(p.Name(), "sim gadget-in size=16MiB xfer=4KiB") {
		t.Errorf("name %q", p.Name())
	}
	var prev Run
	for i, itc := range []uint32{1, 8, 32} {
		set(t, s, m, "USBCMD", "ITC", itc)
		r := simRun(t, p)
		busy := r.CPU.System / (float64(r.Bytes) / (1 << 20))
		if i > 0 && (r.IRQsPerMiB >= prev.IRQsPerMiB || busy >= prev.CPU.System/(float64(prev.Bytes)/(1<<20))) {
			t.Errorf("ITC %d: %.1f interrupts/MiB, %.4f s CPU/MiB: want both below the last point's", itc, r.IRQsPerMiB, busy)
		}
		prev = r
	}
}

func TestSimDriverRevertsITC(t *testing.T) {
	s, m := newSim(t, true, 0) // ehci-hcd with ITC 1
	set(t, s, m, "USBCMD", "ITC", 64)
	withDriver := simRate(t, s, m, false)
	s2, _ := newSim(t, false, 0)
	set(t, s2, m, "USBCMD", "ITC", 64)
	if without := simRate(t, s2, m, false); withDriver < 3*without {
		t.Errorf("the driver's USBCMD write-back should undo ITC 64: %v vs %v", withDriver, without)
	}
	if v, _ := s.Read32(m.Register("USBCMD").Offset); m.Register("USBCMD").Field("ITC").Get(v) != 1 {
		t.Errorf("USBCMD %#x after the run: the driver did not revert ITC", v)
	}
}

func TestSimReservedBurstCorrupts(t *testing.T) {
	s, m := newSim(t, false, 0)
	r := m.Register("SBUSCFG")
	s.Write32(r.Offset, 4) // bypassing citune's value checks
	res, err := Measure(context.Background(), &SimProbe{Ctl: s, Map: m, Size: 4 << 20, Xfer: DefaultSimXfer, Seed: 1}, Options{Repeat: 3})
	if !errors.Is(err, ErrCorrupt) || !res.Corrupt || !strings.Contains(res.Runs[0].Detail, "simulated: the word at byte offset") {
		t.Fatalf("err %v, result %+v", err, res)
	}
}

func TestSimCheck(t *testing.T) {
	s, m := newSim(t, false, 0)
	good := SimProbe{Ctl: s, Map: m, Size: 1 << 20, Seed: 9, Write: true, Qmult: simmodel.DefaultQmult, Buffers: simmodel.DefaultBuffers}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	if got := good.Name(); got != "sim write size=1MiB xfer=120KiB seed=9 (simulated)" {
		t.Errorf("name %q", got)
	}
	tests := map[string]struct {
		change func(p *SimProbe)
		want   string
	}{
		"no controller": {func(p *SimProbe) { p.Ctl = nil }, "run `citune --sim probe sim`"},
		"no map":        {func(p *SimProbe) { p.Map = nil }, "run `citune --sim probe sim`"},
		"no size":       {func(p *SimProbe) { p.Size = 0 }, "--size must be positive"},
		"small xfer":    {func(p *SimProbe) { p.Xfer = 100 }, "--xfer at least 512 bytes"},
		"bus load":      {func(p *SimProbe) { p.BusLoad = 2 }, "--bus-load 2: give a share from 0 to 0.95"},
		"no qmult":      {func(p *SimProbe) { p.Qmult = 0 }, "--qmult 0: give 1 to 100"},
		"big qmult":     {func(p *SimProbe) { p.Qmult = 101 }, "--qmult 101: give 1 to 100"},
		"few buffers":   {func(p *SimProbe) { p.Buffers = 1 }, "--num-buffers 1: f_mass_storage takes 2 to 32"},
		"many buffers":  {func(p *SimProbe) { p.Buffers = 33 }, "--num-buffers 33"},
		"noise":         {func(p *SimProbe) { p.Noise = 0.5 }, "--noise 0.5: give at most 0.2"},
	}
	for name, tc := range tests {
		p := good
		tc.change(&p)
		if err := p.Check(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a usage error containing %q", name, err, tc.want)
		}
	}
}

// No run is faster than the USB 2.0 high-speed bulk wire, whatever the
// noise: 13 × 512 bytes a micro-frame, 53.248 MB/s (less what park mode
// leaves out in host role). Noise of 80 % would put runs far above it;
// they stop at it.
func TestSimNeverBeatsTheWire(t *testing.T) {
	s, m := newSim(t, false, 0)
	for _, name := range simmodel.WorkloadNames() {
		w, err := simmodel.ParseWorkload(name)
		if err != nil {
			t.Fatal(err)
		}
		p := &SimProbe{Ctl: s, Map: m, Size: 4 << 20, Seed: 9, Workload: w, Noise: 0.8}
		top := 0.0
		for range 80 {
			top = max(top, simRun(t, p).Rate)
		}
		if top > simmodel.WireCeiling {
			t.Errorf("%v: a run at %.0f B/s, above the wire's %d", w, top, simmodel.WireCeiling)
		}
		if top < 0.9*simmodel.WireCeiling {
			t.Errorf("%v: the fastest of 80 runs at 80 %% noise is %.1f MB/s: the cap was never reached, so this test shows nothing", w, top/1e6)
		}
	}
}

// With noise, no run reports more interrupts than one a window, or more
// CPU than its time.
func TestSimNoiseKeepsBounds(t *testing.T) {
	s, m := newSim(t, false, 0)
	for _, name := range simmodel.WorkloadNames() {
		w, _ := simmodel.ParseWorkload(name)
		p := &SimProbe{Ctl: s, Map: m, Size: 4 << 20, Seed: 9, Workload: w, Noise: 0.2}
		for range 20 {
			r := simRun(t, p)
			if r.IRQsPerSec > 8000*1.001 {
				t.Errorf("%s: %.0f interrupts/s at ITC 1", name, r.IRQsPerSec)
			}
			if r.CPU.System > r.CPU.Total*1.0001 || r.CPU.Total > r.Elapsed.Seconds()*1.0001 {
				t.Errorf("%s: CPU %+v in %v", name, r.CPU, r.Elapsed)
			}
		}
	}
}
