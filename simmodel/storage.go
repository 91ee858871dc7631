package simmodel

import (
	"math/rand/v2"
	"time"
)

// storage is one bulk-only-transport command: CBW (31 bytes out), the
// data stage, CSW (13 bytes in). The data stage moves at the smooth
// minimum of the controller's path (DataRate) and the disk's media rate;
// the disk adds its fixed time per command. The three transfers are
// serialized: each completes, the controller raises its interrupt at the
// next ITC boundary (at once for ITC 0), the handler runs and the driver
// queues the next. The short CBW and CSW wait for nearly a whole window;
// the data stage, ending at no fixed phase, for half of one on average.
// So coalescing never merges interrupts here: three per command at every
// ITC, and the threshold only adds latency.
func (sc Scenario) storage(s Settings, n int64, rng *rand.Rand) Transfer {
	path, xrun := sc.DataRate(s)
	media, k, cmd := sc.Disk.ReadRate, float64(readOverlap), sc.Disk.ReadCommand
	if sc.Workload == StorageWrite {
		media, k, cmd = sc.Disk.WriteRate, writeOverlap, sc.Disk.WriteCommand
	}
	rate := path
	if media > 0 {
		rate = softMin(path, media, k)
	}
	t := time.Duration(float64(n) / rate * float64(time.Second))
	pkt := MicroFrame / PacketsPerMicroFrame // the CBW's and the CSW's packet
	t += 2*pkt + cmd
	w := s.ITCWindow()
	after := sc.SoC.Handler + sc.SoC.Turnaround
	// The CBW and the CSW are queued the handler and the turnaround after
	// an interrupt, so after an ITC boundary, and are done a packet
	// later: each waits for the rest of that window (or more, when the
	// driver's time is longer than a window), as QEMU's rule has it
	// (the next interrupt no earlier than ITC after the last). The data
	// stage ends at no fixed phase (the disk's own timing varies): its
	// wait is uniform in [0, ITC).
	short := time.Duration(0)
	if w > 0 {
		if ph := (after + pkt) % w; ph > 0 {
			short = w - ph
		}
	}
	t += 2*short + 3*after
	if rng != nil {
		t += time.Duration(rng.Float64() * float64(w))
	} else {
		t += w / 2
	}
	cpu := 3*sc.SoC.Handler + time.Duration(float64(sc.SoC.StorageCPU)*float64(n)/(1<<20))
	return Transfer{Bytes: n, Elapsed: t, IRQs: 3, CPU: cpu, Xrun: xrun}
}
