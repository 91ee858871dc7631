package probe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/simmodel"
	"github.com/citune/citune/units"
	"periph.io/x/conn/v3/physic"
)

// SimController is what the sim probe needs of a simulated controller:
// register reads, and Transfer, which lets a simulated ehci-hcd write its
// cached USBCMD back as the real driver does. One that also has SoC()
// string names its profile, whose bus and CPU terms the model takes.
type SimController interface {
	Read32(off uint32) (uint32, error)
	Transfer()
}

// NonBurstReader is the seam for the usbmisc non-burst setting: a
// simulated controller that models its usbmisc window reports the bit
// (ok true); otherwise the model takes what Linux leaves on the SoC.
type NonBurstReader interface {
	NonBurst() (on, ok bool)
}

// Defaults of the sim probe: a 64 MiB read in SCSI READ(10) commands of
// 120 KiB (usb-storage's max_sectors 240 on USB 2.0).
const (
	DefaultSimSize = 64 << 20
	DefaultSimXfer = simmodel.DefaultStorageXfer
	simPacket      = simmodel.MaxPacket
)

// SimProbe is the probe of the simulated controller. Each run moves Size
// bytes in units of Xfer (a SCSI command, or a gadget request) through
// package simmodel, the one model of the bus, the controller and the
// driver (simmodel/README.md). Its noise comes from a generator seeded
// with Seed and the run number, so a sequence of runs is the same every
// time; Elapsed, Rate, interrupts and CPU are modelled, and no run is
// faster than the wire allows. SBUSCFG.AHBBRST=4 (reserved) corrupts a
// word.
type SimProbe struct {
	Ctl  SimController
	Map  *regs.Map
	Size int64
	Xfer int64 // bytes per unit; 0: the workload's default
	Seed uint64
	// Write is the StorageWrite workload (kept for callers that predate
	// Workload); Workload wins when it is not a read.
	Write    bool
	Workload simmodel.Workload
	BusLoad  float64 // the share of AHB cycles other masters hold (0..0.95)
	// Noise and Drift override the model's run-to-run spread and slow
	// drift when set (negative: none).
	Noise, Drift float64
	// NonBurst overrides the usbmisc non-burst setting when the
	// controller does not report it (NonBurstReader).
	NonBurst simmodel.NonBurst
	// Qmult (simmodel.QueueOf) and Buffers (the mass-storage gadget's
	// num_buffers): 0 takes the model's default.
	Qmult, Buffers int

	runs    uint64
	reloads uint64
}

func (p *SimProbe) workload() simmodel.Workload {
	if p.Write && p.Workload == simmodel.StorageRead {
		return simmodel.StorageWrite
	}
	return p.Workload
}

// Scenario is the model scenario the probe runs.
func (p *SimProbe) Scenario() simmodel.Scenario {
	name := ""
	if s, ok := p.Ctl.(interface{ SoC() string }); ok {
		name = s.SoC()
	}
	sc := simmodel.NewScenario(simmodel.ForProfile(name), p.workload())
	if p.Xfer > 0 {
		sc.Xfer = p.Xfer
		if sc.Workload.Network() && sc.Workload.Role() == regs.RoleHost {
			sc.Queue = simmodel.NetQueue(p.Xfer)
		}
	}
	if p.Qmult > 0 && (sc.Workload == simmodel.GadgetIn || sc.Workload == simmodel.GadgetOut) {
		sc.Queue = simmodel.QueueOf(p.Qmult)
	}
	if p.Buffers > 0 && sc.Workload == simmodel.GadgetStorage {
		sc.Buffers = p.Buffers
	}
	sc.BusLoad = p.BusLoad
	if p.Noise != 0 {
		sc.Noise = max(p.Noise, 0)
	}
	if p.Drift != 0 {
		sc.Drift = max(p.Drift, 0)
	}
	return sc
}

// Name implements Probe.
func (p *SimProbe) Name() string {
	sc := p.Scenario()
	var b strings.Builder
	fmt.Fprintf(&b, "sim %s size=%s xfer=%s", sc.Workload, units.Size(p.Size), units.Size(sc.Xfer))
	if p.BusLoad > 0 {
		fmt.Fprintf(&b, " bus-load=%g", p.BusLoad)
	}
	if p.Qmult > 0 && p.Qmult != simmodel.DefaultQmult && (sc.Workload == simmodel.GadgetIn || sc.Workload == simmodel.GadgetOut) {
		fmt.Fprintf(&b, " qmult=%d", p.Qmult)
	}
	if sc.Workload == simmodel.GadgetStorage {
		fmt.Fprintf(&b, " num-buffers=%d", sc.Buffers)
	}
	switch p.NonBurst {
	case simmodel.NonBurstOn:
		b.WriteString(" non-burst=on")
	case simmodel.NonBurstOff:
		b.WriteString(" non-burst=off")
	}
	fmt.Fprintf(&b, " seed=%d (simulated)", p.Seed)
	return b.String()
}

// settings reads the controller and the non-burst seam.
func (p *SimProbe) settings() (simmodel.Settings, error) {
	s, err := simmodel.ReadSettings(p.Map, p.Ctl)
	if err != nil {
		return s, err
	}
	s.NonBurst = p.NonBurst
	// An explicit --non-burst wins; otherwise the controller's usbmisc
	// word says, where it is mapped; else the SoC's Linux default.
	if nb, ok := p.Ctl.(NonBurstReader); ok && p.NonBurst == simmodel.NonBurstSoCDefault {
		if on, known := nb.NonBurst(); known {
			s.NonBurst = simmodel.NonBurstOff
			if on {
				s.NonBurst = simmodel.NonBurstOn
			}
		}
	}
	return s, nil
}

// reloadStream sets the sequence of reload draws apart from the runs'
// (which use the run number) and the drift's phase (0).
const reloadStream = 1 << 63

// ReloadTime is the modelled time of the next module reload of the
// simulated board's driver stack, drawn from a generator seeded with Seed
// and the reload's number; the sweep's SimClock advances by it.
func (p *SimProbe) ReloadTime() time.Duration {
	p.reloads++
	return simmodel.DefaultReload.Time(rand.New(rand.NewPCG(p.Seed, reloadStream|p.reloads)))
}

// NominalReloadTime is the model's reload time without noise, for a
// plan's estimate before it starts.
func (p *SimProbe) NominalReloadTime() time.Duration { return simmodel.DefaultReload.Nominal() }

// Run implements Probe.
func (p *SimProbe) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	p.runs++
	rng := rand.New(rand.NewPCG(p.Seed, p.runs))
	sc := p.Scenario()
	phase := rand.New(rand.NewPCG(p.Seed, 0)).Float64()
	factor := sc.RunFactor(p.runs, phase, rng)
	r := Run{Simulated: true}
	var modelled, cpu time.Duration
	var irqs float64
	var done int64
	corruptAt := int64(-1)
	// The driver acts around the run's first transfer, then the settings
	// are read once: what it writes around later transfers is the same.
	p.Ctl.Transfer()
	s, err := p.settings()
	if err != nil {
		return r, err
	}
	if role, ok := s.Role(); ok && role != sc.Workload.Role() {
		return r, fmt.Errorf("sim probe: the %s workload needs a controller in %s role, and this one is in %s role (USBMODE.CM=%d); an OTG port starts in that role with --sim-role %s", sc.Workload, sc.Workload.Role(), role, s.CM, sc.Workload.Role())
	}
	var t simmodel.Transfer
	for done < p.Size {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		// A deterministic workload's transfer is computed once a size.
		if n := min(sc.Xfer, p.Size-done); !sc.Deterministic() || t.Bytes != n {
			t = sc.Transfer(s, n, rng)
		}
		n := t.Bytes
		modelled += time.Duration(float64(t.Elapsed) / factor)
		cpu += t.CPU
		irqs += t.IRQs
		if s.Reserved() && corruptAt < 0 {
			corruptAt = done + rng.Int64N(max(n/4, 1))*4
		}
		done += n
		if progress != nil {
			progress(done, p.Size)
		}
	}
	// No run beats the wire: 13 packets of 512 bytes a micro-frame, less
	// what park mode leaves out in host role.
	modelled = max(modelled, time.Duration(math.Ceil(float64(done)/sc.WireRate(s)*float64(time.Second))))
	// Noise moves the time, not what bounds it: the controller raises at
	// most one interrupt a window, and one CPU is busy at most all of it.
	if w := s.ITCWindow(); w > 0 {
		irqs = math.Min(irqs, math.Ceil(float64(modelled)/float64(w)))
	}
	cpu = min(cpu, modelled)
	r.Bytes, r.Elapsed = done, modelled
	r.IRQs = uint64(irqs + 0.5)
	if modelled > 0 {
		r.Rate = float64(done) / modelled.Seconds()
		r.IRQsPerSec = float64(simmodel.InterruptRate(irqs, modelled)) / float64(physic.Hertz)
		// One CPU: busy time in the handler (IRQ) and outside it (system).
		busy := cpu.Seconds()
		r.CPU = CPUTimes{System: busy, Total: max(modelled.Seconds(), busy)}
		r.CPU.Idle = r.CPU.Total - busy
	}
	if done > 0 {
		r.IRQsPerMiB = irqs / (float64(done) / (1 << 20))
	}
	// The model's handler time per interrupt (no spread: no maximum).
	if r.IRQs > 0 {
		r.HandlerEvents = r.IRQs
		r.HandlerAvgUS = float64(sc.SoC.Handler) / float64(time.Microsecond)
	}
	if corruptAt >= 0 {
		r.Corrupt = true
		r.Detail = fmt.Sprintf("simulated: the word at byte offset %d arrived corrupted (SBUSCFG.AHBBRST=4 is a reserved encoding)", corruptAt)
	}
	return r, nil
}
