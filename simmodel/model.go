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
//
// Decision: a package of its own, not part of soc/sim or probe: soc/sim
// is a register file and stays one, the model is arithmetic that tests
// and benchmarks check on its own, and with one caller the tests that
// measure through the sim probe cannot grow a second formula.
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
	// masters (CPU cache line fills, other DMA) hold the bus for
	// (assumed).
	otherBurst = 16
	// nakEfficiency: a device-role OUT endpoint whose FIFO is full NAKs;
	// the host pings and resends, wasting part of the bus time.
	nakEfficiency = 0.85
	// minFIFOThres is TXFILLTUNING.TXFIFOTHRES's least effective value,
	// in bursts ([SDK] TXFILLTUNING, "min 2"; chipidea.md §2).
	minFIFOThres = 2
)

// MicroFrameRate is the high-speed micro-frame clock, 8 kHz.
const MicroFrameRate = 8 * physic.KiloHertz

// Workload is what moves over the link.
type Workload int

// Workloads (README.md, "Workloads").
const (
	StorageRead   Workload = iota // host reads a USB disk, O_DIRECT, one SCSI command at a time
	StorageWrite                  // the same, writing
	GadgetIn                      // a g_ncm-like gadget the PC pulls from (the board transmits)
	GadgetOut                     // the PC pushes to the gadget (the board receives)
	GadgetStorage                 // a mass-storage gadget the PC reads (fsg.go)
	NetTx                         // host sends through a USB Ethernet adapter (usbnet)
	NetRx                         // host receives through it
)

var workloadNames = map[Workload]string{StorageRead: "read", StorageWrite: "write", GadgetIn: "gadget-in", GadgetOut: "gadget-out",
	GadgetStorage: "gadget-storage", NetTx: "net-tx", NetRx: "net-rx"}

// workloadOrder is how the workloads are listed to people.
var workloadOrder = []Workload{StorageRead, StorageWrite, NetTx, NetRx, GadgetIn, GadgetOut, GadgetStorage}

func (w Workload) String() string { return workloadNames[w] }

// WorkloadNames lists the workloads' names.
func WorkloadNames() []string {
	var ns []string
	for _, w := range workloadOrder {
		ns = append(ns, workloadNames[w])
	}
	return ns
}

// ParseWorkload reads a workload name (WorkloadNames).
func ParseWorkload(s string) (Workload, error) {
	for w, n := range workloadNames {
		if n == s {
			return w, nil
		}
	}
	return 0, fmt.Errorf("unknown workload %q (want %s)", s, strings.Join(WorkloadNames(), ", "))
}

// Role is the controller role the workload needs (regs.Role, the one
// role type of the tree).
func (w Workload) Role() regs.Role {
	if w == GadgetIn || w == GadgetOut || w == GadgetStorage {
		return regs.RoleDevice
	}
	return regs.RoleHost
}

// Transmits reports whether data flows from memory to the wire (through
// the TX FIFO, TXPBURST): writes to a disk, a gadget the PC reads, and
// frames the board sends.
func (w Workload) Transmits() bool {
	return w == StorageWrite || w == GadgetIn || w == GadgetStorage || w == NetTx
}

// Network reports whether the workload is a network link through the
// board's stack (a gadget, or a USB Ethernet adapter on a host port).
func (w Workload) Network() bool { return w == GadgetIn || w == GadgetOut || w == NetTx || w == NetRx }

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
	// StorageCPU is the CPU time per MiB outside the interrupt handler
	// for storage (block layer, user copy).
	StorageCPU time.Duration
	// The network stack's CPU cost on a gadget link, per Ethernet frame
	// (skb allocation, the protocol layers) and per byte (copies and
	// checksum), for the board sending (TX) and receiving (RX); see
	// NetRate.
	NetTxFrame, NetRxFrame time.Duration
	NetTxByte, NetRxByte   time.Duration
	// HostRxFrame and HostRxByte are the stack's costs receiving through
	// a USB Ethernet adapter in host role (usbnet and the adapter's
	// driver: an skb per URB, the frame's fix-up and checksum).
	HostRxFrame, HostRxByte time.Duration
}

// i.MX6 (the i.MX6UL takes its terms too: assumed) and Vybrid VF6xx, at
// their nominal bus clocks. Latency, Turnaround and the network costs are
// fitted, Handler measured on i.MX6 and assumed twice that on Vybrid
// (README.md, terms 3, 6 and 8, and "Validation").
var (
	imx6 = SoC{AHB: 132 * physic.MegaHertz, Latency: 200 * time.Nanosecond, NonBurst: true,
		Handler: 14 * time.Microsecond, Turnaround: 40 * time.Microsecond,
		StorageCPU: 4 * time.Millisecond,
		NetTxFrame: 33 * time.Microsecond, NetTxByte: 23 * time.Nanosecond,
		NetRxFrame: 6 * time.Microsecond, NetRxByte: 9 * time.Nanosecond,
		HostRxFrame: 25 * time.Microsecond, HostRxByte: 17 * time.Nanosecond}
	vf610 = SoC{Name: "vf610", AHB: 166 * physic.MegaHertz, Latency: 240 * time.Nanosecond, NonBurst: false,
		Handler: 30 * time.Microsecond, Turnaround: 80 * time.Microsecond,
		StorageCPU: 8 * time.Millisecond,
		NetTxFrame: 46 * time.Microsecond, NetTxByte: 31 * time.Nanosecond,
		NetRxFrame: 9 * time.Microsecond, NetRxByte: 13 * time.Nanosecond,
		HostRxFrame: 35 * time.Microsecond, HostRxByte: 24 * time.Nanosecond}
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

// Disk is the far end of a storage workload: a USB 2.0 flash disk. A
// command costs a fixed part (decoding, the flash access) and a part per
// byte: the disk's media rate, which the data stage cannot beat however
// fast the controller moves data.
type Disk struct {
	// ReadCommand and WriteCommand are the disk's fixed time per SCSI
	// command outside the data stage.
	ReadCommand, WriteCommand time.Duration
	// ReadRate and WriteRate are the media rates in bytes per second.
	ReadRate, WriteRate float64
}

// DefaultDisk is fitted (README.md, term 2 and "Validation").
var DefaultDisk = Disk{ReadCommand: 50 * time.Microsecond, WriteCommand: 170 * time.Microsecond, ReadRate: 30.0e6, WriteRate: 30.0e6}

// readOverlap and writeOverlap are softMin's exponents for the
// controller's path against the disk's media: reads pipeline, writes less
// so (README.md, term 2; fitted with the disk's rates).
const (
	readOverlap  = 12
	writeOverlap = 4
)

// softMin is the smooth minimum of a and b, (a^-k + b^-k)^(-1/k): the
// slower of two stages that overlap, with no cliff where they cross
// (k = 1 is the two in series, a large k the plain minimum).
func softMin(a, b, k float64) float64 {
	m := math.Min(a, b)
	if a <= 0 || b <= 0 {
		return m
	}
	return m * math.Pow(math.Pow(m/a, k)+math.Pow(m/b, k), -1/k)
}

// Scenario is everything about a run that is not a controller register.
type Scenario struct {
	SoC      SoC
	Workload Workload
	// BusLoad is the share (0..0.95) of AHB cycles other masters hold.
	BusLoad float64
	// Xfer is the bytes per SCSI command (usb-storage max_sectors × 512;
	// 240 sectors on USB 2.0) or per gadget request.
	Xfer int64
	// Queue is how many network requests are in flight (storage: one
	// command at a time, bulk-only transport cannot queue): u_ether's
	// qlen, 2 × qmult at high speed (QueueOf), or usbnet's (NetQueue).
	Queue int
	// Buffers is f_mass_storage's buffer count (GadgetStorage).
	Buffers int
	Disk    Disk
	// Backing is the mass-storage gadget's backing file (GadgetStorage).
	Backing Backing
	// Noise is the relative run-to-run spread (log-normal), Drift the
	// amplitude of a slow drift over runs (period DriftRuns runs).
	Noise, Drift float64
	DriftRuns    int
}

// Default scenario values.
const (
	DefaultStorageXfer = 240 * 512 // usb-storage max_sectors on USB 2.0
	// DefaultGadgetXfer is the bytes per gadget request (assumed; README.md,
	// term 5).
	DefaultGadgetXfer = 4 << 10
	// DefaultQmult is g_ether/g_ncm's qmult (QMULT_DEFAULT in u_ether.h).
	DefaultQmult = 5
	// NetFrame is the Ethernet frame size the network stack's costs
	// count (1500-byte MTU and the 14-byte header).
	NetFrame         = 1514
	DefaultNoise     = 0.005
	DefaultDrift     = 0.002
	DefaultDriftRuns = 200
)

// NewScenario returns the default scenario of a workload on a SoC.
func NewScenario(soc SoC, w Workload) Scenario {
	sc := Scenario{SoC: soc, Workload: w, Xfer: DefaultStorageXfer, Queue: 1, Disk: DefaultDisk,
		Noise: DefaultNoise, Drift: DefaultDrift, DriftRuns: DefaultDriftRuns}
	switch w {
	case GadgetIn, GadgetOut:
		sc.Xfer, sc.Queue = DefaultGadgetXfer, QueueOf(DefaultQmult)
	case NetTx, NetRx:
		sc.Xfer, sc.Queue = usbnetMTU, NetQueue(usbnetMTU)
	case GadgetStorage:
		sc.Buffers, sc.Backing = DefaultBuffers, DefaultBacking
	}
	return sc
}

// QueueOf is u_ether's request queue length at high speed for qmult:
// DEFAULT_QLEN (2, double buffering) × qmult (u_ether.c, qlen()).
func QueueOf(qmult int) int { return 2 * max(qmult, 1) }

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
// controller issues for the workload's direction (README.md, term 3):
// INCR4/8/16 by AHBBRST, else TXPBURST or RXPBURST words, single
// transfers without the non-burst setting; a size of 0 counts as 1.
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

// WireRate is the bulk rate the bus allows: every micro-frame full, less a
// third of a packet slot per missing park count in host role (README.md,
// term 1; assumed).
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
// dry or over, by stream mode, direction and role (README.md, term 4).
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
	if p := sc.Underrun(s); p > 0 {
		// Each packet that underruns goes again.
		return rate / (1 + p), true
	}
	return rate, false
}

// Underrun is the share of transmitted packets whose FIFO runs dry in
// stream mode: 0 when the DMA keeps up with the line or the prefill covers
// the 512·(1 − DMA/line) bytes the line drains meanwhile, graded linearly
// up to every packet with no prefill (README.md, term 4; assumed).
func (sc Scenario) Underrun(s Settings) float64 {
	if s.SDIS || !sc.Workload.Transmits() {
		return 0
	}
	dma := sc.DMARate(s)
	if dma >= signalRate {
		return 0
	}
	need := MaxPacket * (1 - dma/signalRate)
	// TXFIFOTHRES prefills at least 2 bursts ([SDK]); in device role the
	// minimum whatever the field holds (assumed: README.md, term 4).
	thres := max(s.TXFIFOTHRES, minFIFOThres)
	if sc.Workload.Role() == regs.RoleDevice {
		thres = minFIFOThres
	}
	have := float64(thres) * sc.BurstWords(s) * wordBytes
	return math.Max(0, 1-have/need)
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

// Transfer models n bytes with settings s. rng draws where each
// completion falls within its interrupt threshold window.
func (sc Scenario) Transfer(s Settings, n int64, rng *rand.Rand) Transfer {
	switch {
	case sc.Workload.Network():
		return sc.gadget(s, n)
	case sc.Workload == GadgetStorage:
		return sc.fsg(s, n)
	}
	return sc.storage(s, n, rng)
}

// Deterministic reports whether Transfer gives the same result for the
// same settings and size (it draws nothing from its generator): the
// caller may reuse one.
func (sc Scenario) Deterministic() bool { return sc.Workload.Network() || sc.Workload == GadgetStorage }

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
