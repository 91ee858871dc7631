package simmodel

import (
	"math"
	"time"
)

// The network workloads: a link through the board's network stack, the
// board as a gadget (g_ncm, RNDIS) or as the host of a USB Ethernet
// adapter (usbnet).

// usbnet's queue at high speed: MAX_QUEUE_MEMORY over the URB size
// (usbnet_update_max_qlen(), drivers/net/usb/usbnet.c), hard_mtu both ways
// (assumed: README.md, term 8): 60 URBs.
const (
	usbnetQueueMemory = 60 * 1518
	usbnetMTU         = 1514
)

// NetQueue is usbnet's URB queue length at high speed for URBs of size
// bytes.
func NetQueue(size int64) int { return max(int(usbnetQueueMemory/max(size, 1)), 1) }

// txOverlap is softMin's exponent for the stack and the link when the
// board sends (it builds frames ahead); fitted (README.md, term 6).
const txOverlap = 4

// NetRate is the rate, in bytes per second, at which the board's
// network stack alone can send (transmit) or receive frames: its cost
// per 1514-byte frame and per byte (SoC.NetTxFrame, NetTxByte,
// NetRxFrame, NetRxByte).
func (sc Scenario) NetRate() float64 {
	frame, byt := sc.SoC.NetRxFrame, sc.SoC.NetRxByte
	switch {
	case sc.Workload.Transmits():
		frame, byt = sc.SoC.NetTxFrame, sc.SoC.NetTxByte
	case sc.Workload == NetRx:
		frame, byt = sc.SoC.HostRxFrame, sc.SoC.HostRxByte
	}
	perByte := frame.Seconds()/NetFrame + byt.Seconds()
	if perByte <= 0 {
		return math.Inf(1)
	}
	return 1 / perByte
}

// gadget is n bytes of a steady gadget (or usbnet) stream: Queue requests
// of Xfer bytes in flight, at most one interrupt per ITC window. The link
// moves the least of the data path and the queue, which goes round at most
// once a window; the board's network stack then bounds it: overlapping
// with the link when sending or receiving through usbnet, in series when a
// gadget receives (README.md, terms 5, 6 and 8).
func (sc Scenario) gadget(s Settings, n int64) Transfer {
	data, xrun := sc.DataRate(s)
	req := float64(max(sc.Xfer, MaxPacket))
	q := float64(max(sc.Queue, 1))
	w := s.ITCWindow().Seconds()
	h := sc.SoC.Handler.Seconds()
	// (A mean wait of half a window would let a dry queue beat this.)
	cycle := math.Max(w, req/data) + h + sc.SoC.Turnaround.Seconds()
	queue := q * req / cycle
	link := math.Min(data, queue)
	// Interrupts per byte and the rate bound each other through the
	// handler's time: a few rounds settle them. The stack is charged the
	// interrupts the run reports, so its CPU never exceeds the time.
	rate := link
	var irqPerByte float64
	for range 6 {
		irqPerByte = 1 / req
		if w > 0 && rate*w > req {
			irqPerByte = 1 / (rate * w)
		}
		stack := 1 / (1/sc.NetRate() + irqPerByte*h)
		if sc.Workload != GadgetOut {
			rate = softMin(link, stack, txOverlap)
		} else {
			rate = 1 / (1/link + 1/stack)
		}
	}
	el := float64(n) / rate
	irqs := irqPerByte * float64(n)
	cpu := time.Duration((float64(n)/sc.NetRate() + irqs*h) * float64(time.Second))
	return Transfer{Bytes: n, Elapsed: time.Duration(el * float64(time.Second)), IRQs: irqs, CPU: cpu, Xrun: xrun}
}
