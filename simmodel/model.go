// Package simmodel is citune's one model of a ChipIdea USB 2.0 controller
// moving data: the high-speed bulk wire, the controller's AHB master and
// its FIFOs, interrupt threshold coalescing, stream mode, park mode, the
// far end (a USB disk, or a PC pulling from a gadget) and the driver's
// share of the CPU. The simulated probe (probe.SimProbe) is its only
// user at run time; the sweep, report and TUI tests and bench/adaptive.sh
// measure through that probe, so every simulated number in citune comes
// from here. Each term and where its figure comes from is in README.md.
//
// The model is pure: it reads settings (Settings, decoded from the
// controller's registers by ReadSettings) and a Scenario, and returns the
// time, interrupts and CPU of one transfer. Noise and drift are drawn from
// a generator the caller seeds.
package simmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/citune/citune/regs"
	"periph.io/x/conn/v3/physic"
)

// USB 2.0 high-speed bulk (USB 2.0 specification, 5.8.4 and table 5-10).
const (
	// MicroFrame is the high-speed bus interval.
	MicroFrame = 125 * time.Microsecond
	// PacketsPerMicroFrame is the most 512-byte bulk packets a
	// micro-frame carries.
	PacketsPerMicroFrame = 13
	// MaxPacket is the high-speed bulk packet size.
	MaxPacket = 512
	// WireCeiling is 13 × 512 B per 125 µs: 53.248 MB/s.
	WireCeiling = PacketsPerMicroFrame * MaxPacket * 8000 // bytes per second
	// signalRate is the raw 480 Mb/s line rate in bytes per second: a
	// packet is on the wire at this rate, so a streaming FIFO must keep
	// up with it for the packet's duration.
	signalRate = 60e6
	// wordBytes: BURSTSIZE and the AHB bursts count 32-bit words.
	wordBytes = 4
	// otherBurst is the mean length, in AHB cycles, of the bursts other
	// masters (CPU cache line fills, other DMA) hold the bus for.
	otherBurst = 16
	// nakEfficiency: a device-role OUT endpoint whose FIFO is full NAKs;
	// the host pings and resends, wasting part of the bus time.
	nakEfficiency = 0.85
)

// MicroFrameRate is the high-speed micro-frame clock, 8 kHz.
const MicroFrameRate = 8 * physic.KiloHertz

// Workload is what moves over the link.
type Workload int

// Workloads.
const (
	// StorageRead: the board, as host, reads a USB disk with O_DIRECT
	// (dd iflag=direct, hdparm --direct): SCSI READ(10) over bulk-only
	// transport, one command at a time.
	StorageRead Workload = iota
	// StorageWrite: the same, writing.
	StorageWrite
	// GadgetIn: the board is a USB device (g_ncm-like network gadget) and
	// the PC pulls data from it: bulk IN, the board transmits.
	GadgetIn
	// GadgetOut: the PC pushes data to the gadget: bulk OUT, the board
	// receives.
	GadgetOut
)

var workloadNames = map[Workload]string{StorageRead: "read", StorageWrite: "write", GadgetIn: "gadget-in", GadgetOut: "gadget-out"}

func (w Workload) String() string { return workloadNames[w] }

// ParseWorkload reads a workload name (read, write, gadget-in, gadget-out).
func ParseWorkload(s string) (Workload, error) {
	for w, n := range workloadNames {
		if n == s {
			return w, nil
		}
	}
	return 0, fmt.Errorf("unknown workload %q (want read, write, gadget-in or gadget-out)", s)
}

// Role is the controller role the workload needs (regs.Role, the one
// role type of the tree).
func (w Workload) Role() regs.Role {
	if w == GadgetIn || w == GadgetOut {
		return regs.RoleDevice
	}
	return regs.RoleHost
}

// Transmits reports whether data flows from memory to the wire (through
// the TX FIFO, TXPBURST): writes to a disk, and a gadget the PC reads.
func (w Workload) Transmits() bool { return w == StorageWrite || w == GadgetIn }

// NonBurst is the state of the usbmisc "non-burst setting"
// (MX6_BM_NON_BURST_SETTING, bit 1 of the controller's usbmisc control
// word). No simulated register holds it yet: SoCDefault takes what Linux
// leaves per SoC (set on i.MX6, never written on Vybrid).
type NonBurst int

// NonBurst states.
const (
	NonBurstSoCDefault NonBurst = iota
	NonBurstOn
	NonBurstOff
)

// Settings are the controller settings the model reads.
type Settings struct {
	ITC         uint32 // USBCMD.ITC, micro-frames
	AHBBRST     uint32 // SBUSCFG.AHBBRST
	TXPBURST    uint32 // BURSTSIZE.TXPBURST, words
	RXPBURST    uint32 // BURSTSIZE.RXPBURST, words
	TXFIFOTHRES uint32 // TXFILLTUNING.TXFIFOTHRES, bursts
	SDIS        bool   // USBMODE.SDIS: stream mode disabled
	ParkEnable  bool   // USBCMD.ASPE
	ParkCount   uint32 // USBCMD.ASP
	// NonBurst is the usbmisc non-burst setting (see NonBurst).
	NonBurst NonBurst
	// CM is USBMODE.CM: 3 host, 2 device, 0 idle (or QEMU, where it
	// reads 0).
	CM uint32
}

// Role is the controller's role from USBMODE.CM; ok is false when the
// register does not say (idle).
func (s Settings) Role() (r regs.Role, ok bool) { return regs.RoleOfCM(s.CM) }

// ITCWindow is the interrupt threshold as a duration.
func (s Settings) ITCWindow() time.Duration { return time.Duration(s.ITC) * MicroFrame }

// Reserved reports a reserved encoding the controller does not handle
// (SBUSCFG.AHBBRST=4): the model corrupts data then.
func (s Settings) Reserved() bool { return s.AHBBRST == 4 }

// SoC holds the per-SoC terms.
type SoC struct {
	Name string
	// AHB is the clock of the bus the controller's DMA master sits on.
	AHB physic.Frequency
	// Latency is what every AHB burst or single transfer pays before its
	// first data beat: arbitration, address phase and the memory
	// controller's access time.
	Latency time.Duration
	// NonBurst is what Linux leaves in the usbmisc non-burst setting.
	NonBurst bool
	// Handler is the CPU time of one controller interrupt (hard IRQ and
	// completion), Turnaround the driver's time from an interrupt to the
	// next transfer being queued.
	Handler, Turnaround time.Duration
	// StorageCPU and NetCPU are the CPU time per MiB outside the
	// interrupt handler (block layer and user copy for storage; network
	// stack for a gadget link).
	StorageCPU, NetCPU time.Duration
}

// i.MX6 (Cortex-A9 up to 1 GHz, 132 MHz AHB) and Vybrid VF6xx (Cortex-A5
// at 500 MHz, 166 MHz platform bus). The clocks are the SoCs' nominal bus
// clocks; Latency, Handler and Turnaround were fitted to the calibration
// points (README.md), within the 10–33 µs ARM ehci_irq means measured
// with HCD_BH for Handler.
var (
	imx6 = SoC{AHB: 132 * physic.MegaHertz, Latency: 200 * time.Nanosecond, NonBurst: true,
		Handler: 14 * time.Microsecond, Turnaround: 40 * time.Microsecond,
		StorageCPU: 4 * time.Millisecond, NetCPU: 12 * time.Millisecond}
	vf610 = SoC{Name: "vf610", AHB: 166 * physic.MegaHertz, Latency: 200 * time.Nanosecond, NonBurst: false,
		Handler: 30 * time.Microsecond, Turnaround: 80 * time.Microsecond,
		StorageCPU: 8 * time.Millisecond, NetCPU: 24 * time.Millisecond}
)

// ForProfile returns the SoC terms of a citune profile; profiles the model
// does not know (a user's own) get the i.MX6 terms.
func ForProfile(name string) SoC {
	if name == "vf610" || strings.HasPrefix(name, "vf") {
		return vf610
	}
	s := imx6
	s.Name = name
	return s
}

// Disk is the far end of a storage workload: a USB 2.0 flash disk.
type Disk struct {
	// ReadLatency and WriteLatency are the disk's time per SCSI command
	// outside the data stage (command decoding, flash access or program).
	ReadLatency, WriteLatency time.Duration
}

// DefaultDisk is fitted to the i.MX6SX and VF61 figures (README.md).
var DefaultDisk = Disk{ReadLatency: 1200 * time.Microsecond, WriteLatency: 1640 * time.Microsecond}

// Scenario is everything about a run that is not a controller register.
type Scenario struct {
	SoC      SoC
	Workload Workload
	// BusLoad is the share (0..0.95) of AHB cycles other masters hold.
	BusLoad float64
	// Xfer is the bytes per SCSI command (usb-storage max_sectors × 512;
	// 240 sectors on USB 2.0) or per gadget request.
	Xfer int64
	// Queue is how many gadget requests are in flight (storage: one
	// command at a time, bulk-only transport cannot queue).
	Queue int
	Disk  Disk
	// Noise is the relative run-to-run spread (log-normal), Drift the
	// amplitude of a slow drift over runs (period DriftRuns runs).
	Noise, Drift float64
	DriftRuns    int
}

// Default scenario values.
const (
	DefaultStorageXfer = 240 * 512 // usb-storage max_sectors on USB 2.0
	DefaultGadgetXfer  = 4 << 10   // bytes per gadget request
	DefaultQueue       = 16        // gadget requests in flight
	DefaultNoise       = 0.005
	DefaultDrift       = 0.002
	DefaultDriftRuns   = 200
)

// NewScenario returns the default scenario of a workload on a SoC.
func NewScenario(soc SoC, w Workload) Scenario {
	sc := Scenario{SoC: soc, Workload: w, Xfer: DefaultStorageXfer, Queue: 1, Disk: DefaultDisk,
		Noise: DefaultNoise, Drift: DefaultDrift, DriftRuns: DefaultDriftRuns}
	if w.Role() == regs.RoleDevice {
		sc.Xfer, sc.Queue = DefaultGadgetXfer, DefaultQueue
	}
	return sc
}

// nonBurst resolves the setting against the SoC's default.
func (sc Scenario) nonBurst(s Settings) bool {
	switch s.NonBurst {
	case NonBurstOn:
		return true
	case NonBurstOff:
		return false
	}
	return sc.SoC.NonBurst
}

// BurstWords is the length, in 32-bit words, of the AHB bursts the
// controller issues for the workload's direction. AHBBRST 1/5 use INCR4,
// 2/6 INCR8 and 3/7 INCR16 for the bulk of a packet (the INCR-or-single
// tail is too short to matter for 512-byte packets). AHBBRST=0 issues
// bursts of TXPBURST (memory to USB) or RXPBURST words as INCR of
// unspecified length; without the non-burst setting the model assumes
// the interconnect takes each of them as single transfers (1 word). A
// burst size of 0 counts as 1.
func (sc Scenario) BurstWords(s Settings) float64 {
	switch s.AHBBRST {
	case 1, 5, 4:
		return 4
	case 2, 6:
		return 8
	case 3, 7:
		return 16
	}
	if !sc.nonBurst(s) {
		return 1
	}
	b := s.RXPBURST
	if sc.Workload.Transmits() {
		b = s.TXPBURST
	}
	return float64(max(b, 1))
}

// DMARate is the controller's AHB master rate in bytes per second: each
// burst of B words takes B data cycles plus the SoC's latency plus the
// wait for other masters, BusLoad/(1−BusLoad) of their mean burst.
func (sc Scenario) DMARate(s Settings) float64 {
	b := sc.BurstWords(s)
	hz := float64(sc.SoC.AHB) / float64(physic.Hertz)
	lat := sc.SoC.Latency.Seconds() * hz
	load := math.Min(math.Max(sc.BusLoad, 0), 0.95)
	wait := load / (1 - load) * otherBurst
	return hz * wordBytes * b / (b + lat + wait)
}

// WireRate is the bulk rate the bus allows. The far end's host
// controller (device role) fills every micro-frame; this controller as
// host does with park mode at count 3 and loses one packet slot a
// micro-frame per missing park count (it returns to the async schedule
// between transactions).
func (sc Scenario) WireRate(s Settings) float64 {
	pkts := float64(PacketsPerMicroFrame)
	if sc.Workload.Role() == regs.RoleHost {
		park := uint32(0)
		if s.ParkEnable {
			park = min(s.ParkCount, 3)
		}
		pkts -= float64(3-park) / 3
	}
	return pkts * MaxPacket * float64(MicroFrameRate) / float64(physic.Hertz)
}

// DataRate is the payload rate of a data stage and whether the FIFO runs
// dry or over:
//   - Stream mode disabled (SDIS=1): a packet is buffered whole before it
//     moves on, so wire and DMA times add: 1/(1/wire + 1/DMA).
//   - Streaming, receiving in host role: the host starts an IN only with
//     room in the FIFO: min(wire, DMA).
//   - Streaming, receiving in device role: a full FIFO NAKs the PC's OUT,
//     which pings and resends: DMA × 0.85 when the DMA is the slower.
//   - Streaming, transmitting: a packet starts once TXFIFOTHRES bursts
//     are in the FIFO; if the DMA is slower than the 480 Mb/s line and
//     that prefill is less than the 512·(1 − DMA/line) bytes the line
//     drains meanwhile, the FIFO underruns and every packet goes twice.
func (sc Scenario) DataRate(s Settings) (rate float64, xrun bool) {
	wire, dma := sc.WireRate(s), sc.DMARate(s)
	if s.SDIS {
		return 1 / (1/wire + 1/dma), false
	}
	if !sc.Workload.Transmits() {
		if sc.Workload.Role() == regs.RoleDevice && dma < wire {
			return dma * nakEfficiency, true
		}
		return math.Min(wire, dma), false
	}
	rate = math.Min(wire, dma)
	if dma < signalRate {
		need := MaxPacket * (1 - dma/signalRate)
		if float64(s.TXFIFOTHRES)*sc.BurstWords(s)*wordBytes < need {
			return rate / 2, true
		}
	}
	return rate, false
}

// Transfer is the outcome of one unit of work: a SCSI command (storage)
// or Bytes of a gadget stream.
type Transfer struct {
	Bytes   int64
	Elapsed time.Duration
	IRQs    float64
	CPU     time.Duration
	// Xrun is set when the FIFO ran dry or over during the data stage.
	Xrun bool
}

// Rate is the transfer's bytes per second.
func (t Transfer) Rate() float64 { return float64(t.Bytes) / t.Elapsed.Seconds() }

// Transfer models n bytes with settings s. rng draws where each
// completion falls within its interrupt threshold window.
func (sc Scenario) Transfer(s Settings, n int64, rng *rand.Rand) Transfer {
	if sc.Workload.Role() == regs.RoleDevice {
		return sc.gadget(s, n)
	}
	return sc.storage(s, n, rng)
}

// storage is one bulk-only-transport command: CBW (31 bytes out), the
// data stage, CSW (13 bytes in). The three are serialized: each transfer
// completes, the controller raises its interrupt at the next ITC
// boundary (a uniform wait in [0, ITC) micro-frames; at once for ITC 0),
// the handler runs and the driver queues the next. So coalescing never
// merges interrupts here: three per command at every ITC, and the
// threshold only adds latency.
func (sc Scenario) storage(s Settings, n int64, rng *rand.Rand) Transfer {
	rate, xrun := sc.DataRate(s)
	t := time.Duration(float64(n) / rate * float64(time.Second))
	t += 2 * MicroFrame / PacketsPerMicroFrame // CBW and CSW packets
	if sc.Workload == StorageWrite {
		t += sc.Disk.WriteLatency
	} else {
		t += sc.Disk.ReadLatency
	}
	w := s.ITCWindow()
	for range 3 {
		if rng != nil {
			t += time.Duration(rng.Float64() * float64(w))
		} else {
			t += w / 2
		}
		t += sc.SoC.Handler + sc.SoC.Turnaround
	}
	cpu := 3*sc.SoC.Handler + time.Duration(float64(sc.SoC.StorageCPU)*float64(n)/(1<<20))
	return Transfer{Bytes: n, Elapsed: t, IRQs: 3, CPU: cpu, Xrun: xrun}
}

// gadget is n bytes of a steady gadget stream: Queue requests of Xfer
// bytes in flight. A request completes every Xfer/rate; the controller
// raises at most one interrupt per ITC window (coalescing), at least one
// per window in which requests complete. The rate is the least of
//   - the data path (DataRate),
//   - the queue: a completed request is queued again only after its
//     interrupt (half a window on average), the handler and the driver's
//     turnaround; Queue·Xfer bytes must cover that time, and
//   - the CPU: network stack time per byte plus handler time per
//     interrupt may not exceed one CPU.
func (sc Scenario) gadget(s Settings, n int64) Transfer {
	data, xrun := sc.DataRate(s)
	req := float64(max(sc.Xfer, MaxPacket))
	q := float64(max(sc.Queue, 1))
	w := s.ITCWindow().Seconds()
	h := sc.SoC.Handler.Seconds()
	delay := w/2 + h + sc.SoC.Turnaround.Seconds()
	queue := q * req / (req/data + delay)
	perByte := sc.SoC.NetCPU.Seconds() / (1 << 20)
	cpuRate := 1 / (perByte + h/req) // one interrupt per request
	if w > 0 && cpuRate/req > 1/w {
		cpuRate = (1 - h/w) / perByte // one per window
	}
	rate := math.Min(data, math.Min(queue, cpuRate))
	irqRate := rate / req
	if w > 0 {
		irqRate = math.Min(irqRate, 1/w)
	}
	el := float64(n) / rate
	irqs := irqRate * el
	cpu := time.Duration((perByte*float64(n) + irqs*h) * float64(time.Second))
	return Transfer{Bytes: n, Elapsed: time.Duration(el * float64(time.Second)), IRQs: irqs, CPU: cpu, Xrun: xrun}
}

// RunFactor is the multiplier of run k's rate (1-based): log-normal noise
// of spread Noise drawn from rng, times a slow drift of amplitude Drift
// over DriftRuns runs whose phase comes from phase (0..1, seeded by the
// caller).
func (sc Scenario) RunFactor(k uint64, phase float64, rng *rand.Rand) float64 {
	f := 1.0
	if sc.Noise > 0 && rng != nil {
		f *= math.Exp(sc.Noise * rng.NormFloat64())
	}
	if sc.Drift > 0 && sc.DriftRuns > 0 {
		f *= 1 + sc.Drift*math.Sin(2*math.Pi*(float64(k)/float64(sc.DriftRuns)+phase))
	}
	return f
}

// InterruptRate is an interrupt count over a time as a frequency.
func InterruptRate(irqs float64, d time.Duration) physic.Frequency {
	if d <= 0 {
		return 0
	}
	return physic.Frequency(irqs / d.Seconds() * float64(physic.Hertz))
}
