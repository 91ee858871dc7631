package probe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/citune/citune/regs"
)

// SimController is what the sim probe needs of a simulated controller:
// register reads, and Transfer, which lets a simulated ehci-hcd write its
// cached USBCMD back as the real driver does around transfers.
// *sim.Sim implements it.
type SimController interface {
	Read32(off uint32) (uint32, error)
	Transfer()
}

// Constants of the sim probe's model (see SimProbe).
const (
	simMicroframe = 125 * time.Microsecond
	simWireRate   = 13 * 512 * 8000 // B/s: 13 bulk packets of 512 B per 125 µs micro-frame
	simAHBRate    = 132e6           // B/s: the USB master's share of a 132 MHz, 32-bit AHB (1/4)
	simBurstCost  = 8               // AHB cycles of arbitration and address phase per burst
	simOverhead   = 35 * time.Microsecond
	simNoise      = 0.005 // relative spread of per-run rate and per-transfer overhead
	simPacket     = 512
	// DefaultSimSize and DefaultSimXfer: a 64 MiB read in SCSI READ(10)
	// commands of 120 KiB (usb-storage's max_sectors 240 on USB 2.0).
	DefaultSimSize = 64 << 20
	DefaultSimXfer = 120 << 10
)

// SimProbe is the probe of the simulated controller. It models a USB 2.0
// high-speed mass-storage transfer (bulk-only transport) of Size bytes
// in SCSI commands of Xfer bytes, from the controller's current settings:
//
//   - Each command is three serialized bulk transfers (command block,
//     data, status). The host learns that a transfer completed at the
//     next interrupt, which the controller holds back for up to
//     USBCMD.ITC micro-frames (125 µs each): every transfer waits a
//     uniformly distributed part of that, half of it on average, plus a
//     fixed 35 µs of driver and device turnaround. One interrupt per
//     transfer: the count does not depend on ITC.
//   - Data moves at the slower of the wire and the controller's DMA. The
//     wire carries at most 13 packets of 512 bytes per micro-frame
//     (53.2 MB/s). The DMA's AHB rate is 132 MB/s (the USB master's share
//     of the bus) times B/(B+8) for bursts of B 32-bit words, 8 cycles
//     being the per-burst arbitration and address phase. B is 4, 8 or 16
//     for SBUSCFG.AHBBRST INCR4/INCR8/INCR16 (with or without the INCR
//     tail), and BURSTSIZE.RXPBURST (reads) or TXPBURST (writes) when
//     AHBBRST is 0 (0 counts as 1).
//   - With streaming disabled (USBMODE.SDIS=1) each packet is buffered
//     whole before it moves on: DMA and wire add up instead of overlapping
//     (rate = 1/(1/wire + 1/DMA)).
//   - Writes (Write set) with streaming: a packet starts once
//     TXFILLTUNING.TXFIFOTHRES bursts are in the FIFO; when the DMA is
//     slower than the wire and that prefetch is less than the
//     512·(1 − DMA/wire) bytes the wire would otherwise drain, the FIFO
//     underruns and each packet is sent twice.
//   - AHBBRST=4 is reserved: the probe reports a corrupted word.
//   - A run draws its noise from a generator seeded with Seed and the run
//     number, so a sequence of runs is the same every time: 0.5 % per-run
//     spread of the data rate and of the turnaround, and the interrupt
//     wait of each transfer.
//
// Run takes no wall time to speak of: Elapsed and Rate are modelled time,
// and every Run says Simulated. Before each command the probe calls
// Transfer, so a simulated driver reverts USBCMD just as ehci-hcd would.
type SimProbe struct {
	Ctl   SimController
	Map   *regs.Map
	Size  int64
	Xfer  int64
	Seed  uint64
	Write bool

	runs uint64
}

// Name implements Probe.
func (p *SimProbe) Name() string {
	dir := "read"
	if p.Write {
		dir = "write"
	}
	return fmt.Sprintf("sim %s size=%s xfer=%s seed=%d (simulated)", dir, fmtSize(p.Size), fmtSize(p.Xfer), p.Seed)
}

// simSettings are the knobs the model reads.
type simSettings struct {
	itc, ahbbrst, rxpburst, txpburst, sdis, txfifothres uint32
}

func (p *SimProbe) field(reg, field string) (uint32, error) {
	r := p.Map.Register(reg)
	if r == nil {
		return 0, nil
	}
	f := r.Field(field)
	if f == nil {
		return 0, nil
	}
	v, err := p.Ctl.Read32(r.Offset)
	if err != nil {
		return 0, fmt.Errorf("sim probe: reading %s: %w", reg, err)
	}
	return f.Get(v), nil
}

func (p *SimProbe) settings() (s simSettings, err error) {
	for _, x := range []struct {
		reg, field string
		dst        *uint32
	}{
		{"USBCMD", "ITC", &s.itc},
		{"SBUSCFG", "AHBBRST", &s.ahbbrst},
		{"BURSTSIZE", "RXPBURST", &s.rxpburst},
		{"BURSTSIZE", "TXPBURST", &s.txpburst},
		{"USBMODE", "SDIS", &s.sdis},
		{"TXFILLTUNING", "TXFIFOTHRES", &s.txfifothres},
	} {
		if *x.dst, err = p.field(x.reg, x.field); err != nil {
			return s, err
		}
	}
	return s, nil
}

// dataRate is the modelled payload rate in bytes per second.
func (s simSettings) dataRate(write bool) float64 {
	var burst float64
	switch s.ahbbrst {
	case 1, 5, 4:
		burst = 4
	case 2, 6:
		burst = 8
	case 3, 7:
		burst = 16
	default:
		b := s.rxpburst
		if write {
			b = s.txpburst
		}
		burst = float64(max(b, 1))
	}
	dma := simAHBRate * burst / (burst + simBurstCost)
	wire := float64(simWireRate)
	if s.sdis != 0 {
		return 1 / (1/wire + 1/dma)
	}
	rate := math.Min(wire, dma)
	if write && dma < wire {
		need := simPacket * (1 - dma/wire)
		if float64(s.txfifothres)*burst*4 < need {
			rate /= 2 // FIFO underrun: every packet goes twice
		}
	}
	return rate
}

// Run implements Probe.
func (p *SimProbe) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	p.runs++
	rng := rand.New(rand.NewPCG(p.Seed, p.runs))
	runFactor := 1 + simNoise*rng.NormFloat64()
	r := Run{Simulated: true}
	var modelled time.Duration
	var done int64
	corruptAt := int64(-1)
	var s simSettings
	for done < p.Size {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		p.Ctl.Transfer()
		var err error
		if s, err = p.settings(); err != nil {
			return r, err
		}
		n := min(p.Xfer, p.Size-done)
		data := time.Duration(float64(n) / (s.dataRate(p.Write) * runFactor) * float64(time.Second))
		modelled += data
		for range 3 { // command block, data, status
			wait := time.Duration(rng.Float64() * float64(s.itc) * float64(simMicroframe))
			turn := time.Duration(float64(simOverhead) * (1 + simNoise*rng.NormFloat64()))
			modelled += wait + turn
			r.IRQs++
		}
		if s.ahbbrst == 4 && corruptAt < 0 {
			corruptAt = done + rng.Int64N(n/4)*4
		}
		done += n
		if progress != nil {
			progress(done, p.Size)
		}
	}
	r.Bytes, r.Elapsed = done, modelled
	if modelled > 0 {
		r.Rate = float64(done) / modelled.Seconds()
		r.IRQsPerSec = float64(r.IRQs) / modelled.Seconds()
	}
	if done > 0 {
		r.IRQsPerMiB = float64(r.IRQs) / (float64(done) / (1 << 20))
	}
	if corruptAt >= 0 {
		r.Corrupt = true
		r.Detail = fmt.Sprintf("simulated: the word at byte offset %d arrived corrupted (SBUSCFG.AHBBRST=4 is a reserved encoding)", corruptAt)
	}
	return r, nil
}
