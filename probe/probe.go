// Package probe measures throughput the way the kernel's USB performance
// work did by hand: sequential O_DIRECT reads (like dd iflag=direct),
// verified file writes, external commands such as iperf3 -J, and a
// simulated probe for the simulated controller. Around every run it
// accounts the controller's interrupts (/proc/interrupts), CPU time
// (/proc/stat) and, where tracefs allows, interrupt handler time; it
// checks the integrity of the data it moved (ReadProbe, Reference).
//
// Cancellation contract (the undo and signal handling rely on it): Run,
// Measure and MeasureAll return promptly once their context is
// cancelled, also while a read or write system call is blocked in the
// kernel (a USB device that stopped answering): the read probe reads in a
// goroutine of its own (ring), and a stuck read leaves only its
// goroutine, thread, file and buffer behind. The error wraps ctx.Err().
package probe

import (
	"context"
	"time"
)

// Probe is one configured workload.
type Probe interface {
	// Name describes the probe for humans: "read /dev/sda bs=1M size=64M".
	Name() string
	// Run performs one measured run. progress, if not nil, is called with
	// bytes done and bytes planned (0 when unknown).
	Run(ctx context.Context, progress func(done, total int64)) (Run, error)
}

// Run is the outcome of one run of a probe.
type Run struct {
	Bytes     int64         `json:"bytes"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	Rate      float64       `json:"rate_bytes_per_s"` // bytes per second
	Simulated bool          `json:"simulated,omitempty"`
	// Hash of the data read (read probe) when the run hashed every byte.
	Hash string `json:"hash,omitempty"`
	// Sample is the CRC-32 of the read probe's sample (SampleStride).
	Sample string `json:"sample,omitempty"`
	// Integrity says what this run checked: "full", "sample" or "".
	Integrity string `json:"integrity,omitempty"`
	// IntegrityCPU is the check's own time in seconds, left out of CPU
	// so that settings compare on what the system and I/O path cost.
	IntegrityCPU float64 `json:"integrity_cpu_s,omitempty"`
	// Corrupt is set when the integrity check failed; Detail says where.
	Corrupt bool   `json:"corrupt,omitempty"`
	Detail  string `json:"detail,omitempty"`
	Warmup  bool   `json:"warmup,omitempty"`
	// Accounting over the run.
	IRQs          uint64   `json:"irqs"`
	IRQsPerSec    float64  `json:"irqs_per_s"`
	IRQsPerMiB    float64  `json:"irqs_per_mib"`
	CPU           CPUTimes `json:"cpu_s"` // seconds, by kind
	HandlerAvgUS  float64  `json:"handler_avg_us,omitempty"`
	HandlerMaxUS  float64  `json:"handler_max_us,omitempty"`
	HandlerEvents uint64   `json:"handler_events,omitempty"`
	Err           string   `json:"error,omitempty"`

	// Unit, when set, is the unit of Rate for workloads that do not move
	// counted bytes (a camera's "fps"); Rate is then not bytes per second.
	Unit string `json:"unit,omitempty"`
	// SenderRate and ReceiverRate are iperf3's two ends, bytes per second.
	SenderRate   float64 `json:"sender_rate_bytes_per_s,omitempty"`
	ReceiverRate float64 `json:"receiver_rate_bytes_per_s,omitempty"`
	// ReadBackRate is the write probe's verifying read, bytes per second.
	ReadBackRate float64 `json:"readback_rate_bytes_per_s,omitempty"`

	// marks are the running CRC after each block of markSize bytes, so
	// that repeats name the offset of a difference.
	marks    []uint32
	smarks   []uint32 // the same for the sample check
	markSize int64
	markBase int64
	markSpan int64 // bytes per pass of a timed run that wraps round
	seq      int   // 1-based number of the run within its Result
}

// CPUTimes is CPU time spent during a run, in seconds, from /proc/stat.
type CPUTimes struct {
	User    float64 `json:"user"`
	System  float64 `json:"system"`
	IRQ     float64 `json:"irq"`
	SoftIRQ float64 `json:"softirq"`
	Idle    float64 `json:"idle"`
	Total   float64 `json:"total"`
}
