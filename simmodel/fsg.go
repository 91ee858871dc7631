package simmodel

import (
	"math"
	"math/rand/v2"
	"time"
)

// The mass-storage gadget (f_mass_storage), README.md term 7: the PC
// reads the backing file through Buffers buffers the gadget's thread
// refills once the controller sent them and their completion came back.

// FSGBufLen is f_mass_storage's buffer size (FSG_BUFLEN, 16 KiB).
const FSGBufLen = 16 << 10

// DefaultBuffers is f_mass_storage's buffer count by default
// (CONFIG_USB_GADGET_STORAGE_NUM_BUFFERS, 2).
const DefaultBuffers = 2

// Backing is the mass-storage gadget's backing file as the gadget's
// thread reads it.
type Backing struct {
	// Rate is the backing store's raw read rate, bytes per second.
	Rate float64
	// Spread is how bursty the refills are: a buffer's refill time is
	// Rate's mean time times (1 − Spread + Spread × an exponential draw),
	// so 0 is a steady reader and 1 a fully random one.
	Spread float64
	// Command is the device's time per SCSI command outside the data
	// stage (CBW decoding, the CSW).
	Command time.Duration
}

// DefaultBacking: Rate the published raw read ("20MiB/s", Snowball, musb:
// measurements.md 001), Spread fitted to its +6.4 % from 2 to 4 buffers,
// Command assumed.
var DefaultBacking = Backing{Rate: 20 << 20, Spread: 1, Command: 50 * time.Microsecond}

// fsgCommands is how many commands the mean command time is taken over:
// the refill times are drawn from a fixed generator, the same for every
// setting (common random numbers), so settings compare without noise.
const fsgCommands = 256

// fsg is n bytes read by the PC from the mass-storage gadget, in SCSI
// commands of Xfer bytes (the host's max_sectors), each moved through
// the buffers as a pipeline:
//
//	refill k starts when refill k−1 is done and buffer k−Buffers is free;
//	buffer k goes on the wire when refilled and after buffer k−1;
//	buffer k is free a completion after it was sent.
func (sc Scenario) fsg(s Settings, n int64) Transfer {
	link, xrun := sc.DataRate(s)
	w := s.ITCWindow().Seconds()
	h := sc.SoC.Handler.Seconds()
	after := h + sc.SoC.Turnaround.Seconds()
	// done is when a transfer that ends at t is handed back: at the next
	// ITC boundary, then the handler and the turnaround.
	done := func(t float64) float64 {
		if w > 0 {
			t = math.Ceil(t/w) * w
		}
		return t + after
	}
	xfer := max(sc.Xfer, MaxPacket)
	nb := int((xfer + FSGBufLen - 1) / FSGBufLen)
	bufs := max(sc.Buffers, 1)
	b := sc.Backing
	rng := rand.New(rand.NewPCG(0x5eed, uint64(nb)))
	fill := make([]float64, nb)
	sent := make([]float64, nb)
	free := make([]float64, nb)
	var clock float64 // the time since the first command began
	for range fsgCommands {
		// The CBW (one packet out) and its completion start the command.
		t := done(clock + b.Command.Seconds() + MaxPacket/link)
		for k := range nb {
			size := float64(min(FSGBufLen, xfer-int64(k)*FSGBufLen))
			mean := size / b.Rate
			f := mean * (1 - b.Spread + b.Spread*rng.ExpFloat64())
			start := t
			if k > 0 {
				start = fill[k-1]
			}
			if k >= bufs {
				start = math.Max(start, free[k-bufs])
			}
			fill[k] = start + f
			on := fill[k]
			if k > 0 {
				on = math.Max(on, sent[k-1])
			}
			sent[k] = on + size/link
			free[k] = done(sent[k])
		}
		// The CSW goes once the last buffer's completion is in; the next
		// command starts after the CSW's own.
		clock = done(free[nb-1] + MaxPacket/link)
	}
	per := clock / fsgCommands // seconds per command
	cmds := float64(n) / float64(xfer)
	el := per * cmds
	irqs := cmds * float64(nb+2)
	if w > 0 {
		irqs = math.Min(irqs, el/w)
	}
	cpu := time.Duration((irqs*h + sc.SoC.StorageCPU.Seconds()*float64(n)/(1<<20)) * float64(time.Second))
	return Transfer{Bytes: n, Elapsed: time.Duration(el * float64(time.Second)), IRQs: irqs, CPU: cpu, Xrun: xrun}
}
