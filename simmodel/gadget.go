package simmodel

import (
	"math"
	"time"
)

// The network workloads: a link through the board's network stack, the
// board as a gadget (g_ncm, RNDIS) or as the host of a USB Ethernet
// adapter (usbnet).

// usbnet's queue at high speed: MAX_QUEUE_MEMORY (60 × 1518 bytes) over
// the URB size, rx_urb_size for receiving and hard_mtu for sending
// (usbnet_update_max_qlen(), drivers/net/usb/usbnet.c). rx_urb_size is
// hard_mtu (the 1500-byte MTU and the 14-byte header) unless the
// adapter's driver sets it; the published adapter is not named, so the
// model takes hard_mtu both ways (assumed): 60 URBs.
const (
	usbnetQueueMemory = 60 * 1518
	usbnetMTU         = 1514
)

// NetQueue is usbnet's URB queue length at high speed for URBs of size
// bytes.
func NetQueue(size int64) int { return max(int(usbnetQueueMemory/max(size, 1)), 1) }

// txOverlap is how far the board's network stack and the link overlap
// when the board sends (softMin's exponent): the stack builds frames
// ahead while the queued requests go out. Fitted to the i.MX6SX g_ncm TX
// figures (163 and 166 Mbit/s: the link's gain barely shows) and the VF61
// RNDIS drop.
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

// gadget is n bytes of a steady gadget stream: Queue requests of Xfer
// bytes in flight. A request completes every Xfer/rate; the controller
// raises at most one interrupt per ITC window (coalescing), at least one
// per window in which requests complete. The link moves the least of
//   - the data path (DataRate), and
//   - the queue: a completed request is queued again only after its
//     interrupt (at the next ITC boundary), the handler and the driver's
//     turnaround, so Queue requests go round at most once a window.
//
// The board's network stack (NetRate, plus the handler's time per
// interrupt) then bounds it, differently by direction:
//   - sending, the stack overlaps with the link (softMin, txOverlap):
//     the rate is about the slower of the two;
//   - a gadget receiving gives a request back to the controller only
//     after the stack took its frames (netif_rx in the completion), so
//     the two add up, as serial stages: 1/rate = 1/link + 1/stack (a
//     structural assumption: 2 × qmult requests stay queued; it is what
//     gives the published +25 % on the board's receive rate);
//   - a host receiving through usbnet overlaps them as sending does:
//     usbnet's bottom half takes the frames while the other URBs of its
//     queue (60 at high speed) stay on the wire.
func (sc Scenario) gadget(s Settings, n int64) Transfer {
	data, xrun := sc.DataRate(s)
	req := float64(max(sc.Xfer, MaxPacket))
	q := float64(max(sc.Queue, 1))
	w := s.ITCWindow().Seconds()
	h := sc.SoC.Handler.Seconds()
	// A completed request is handed back only at the next ITC boundary,
	// then the handler and the turnaround pass: so at most Queue requests
	// go round per window, and each takes at least its time on the link.
	// (A mean wait of half a window would let a dry queue beat that.)
	cycle := math.Max(w, req/data) + h + sc.SoC.Turnaround.Seconds()
	queue := q * req / cycle
	link := math.Min(data, queue)
	// Interrupts per byte: one per request, or fewer when the window
	// gathers several; at the rate the link ends up moving, which the
	// handler's time itself bounds, so the two are solved together
	// (a few rounds settle it). The stack is charged the same interrupts
	// the run reports, so its CPU never exceeds the time.
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
