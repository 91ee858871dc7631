package simmodel

import (
	"math/rand/v2"
	"time"
)

// storage is one bulk-only-transport command: the CBW, the data stage (the
// smooth minimum of DataRate and the disk's media rate) and the CSW,
// serialized, each waiting for its interrupt, the handler and the
// turnaround: three interrupts at every ITC, the threshold only adding
// latency (README.md, terms 2 and 5).
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
	// The CBW and the CSW wait for the rest of the window after the ITC
	// boundary they were queued at (QEMU's rule); the data stage's wait is
	// uniform in [0, ITC).
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
