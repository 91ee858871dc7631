package results

import (
	"time"

	"github.com/citune/citune/probe"
)

// MeasurementOf records a probe run: the record's owner converts into
// it (the sweep's runs and the TUI's probe tab alike).
func MeasurementOf(r probe.Run) Measurement {
	return Measurement{Bytes: r.Bytes, Elapsed: r.Elapsed, Rate: r.Rate, Simulated: r.Simulated, Hash: r.Hash, Sample: r.Sample,
		Integrity: r.Integrity, IntegrityCPU: r.IntegrityCPU, Corrupt: r.Corrupt, Detail: r.Detail, Warmup: r.Warmup,
		IRQs: r.IRQs, IRQsPerSec: r.IRQsPerSec, IRQsPerMiB: r.IRQsPerMiB,
		CPU:          CPUTimes{User: r.CPU.User, System: r.CPU.System, IRQ: r.CPU.IRQ, SoftIRQ: r.CPU.SoftIRQ, Idle: r.CPU.Idle, Total: r.CPU.Total},
		HandlerAvgUS: r.HandlerAvgUS, HandlerMaxUS: r.HandlerMaxUS, HandlerEvents: r.HandlerEvents, Err: r.Err, Unit: r.Unit,
		SenderRate: r.SenderRate, ReceiverRate: r.ReceiverRate, ReadBackRate: r.ReadBackRate}
}

// Measurement is one probe run as the results file records it. It is
// the results format's own type, not probe.Run: a change to the probe's
// structs cannot change the file format silently, and the JSON names
// below are the format (results Version).
type Measurement struct {
	Bytes         int64         `json:"bytes"`
	Elapsed       time.Duration `json:"elapsed_ns"`
	Rate          float64       `json:"rate_bytes_per_s"` // bytes per second, or per Unit
	Simulated     bool          `json:"simulated,omitempty"`
	Hash          string        `json:"hash,omitempty"`
	Sample        string        `json:"sample,omitempty"`
	Integrity     string        `json:"integrity,omitempty"`
	IntegrityCPU  float64       `json:"integrity_cpu_s,omitempty"`
	Corrupt       bool          `json:"corrupt,omitempty"`
	Detail        string        `json:"detail,omitempty"`
	Warmup        bool          `json:"warmup,omitempty"`
	IRQs          uint64        `json:"irqs"`
	IRQsPerSec    float64       `json:"irqs_per_s"`
	IRQsPerMiB    float64       `json:"irqs_per_mib"`
	CPU           CPUTimes      `json:"cpu_s"` // seconds, by kind
	HandlerAvgUS  float64       `json:"handler_avg_us,omitempty"`
	HandlerMaxUS  float64       `json:"handler_max_us,omitempty"`
	HandlerEvents uint64        `json:"handler_events,omitempty"`
	Err           string        `json:"error,omitempty"`
	Unit          string        `json:"unit,omitempty"`
	SenderRate    float64       `json:"sender_rate_bytes_per_s,omitempty"`
	ReceiverRate  float64       `json:"receiver_rate_bytes_per_s,omitempty"`
	ReadBackRate  float64       `json:"readback_rate_bytes_per_s,omitempty"`
}

// CPUTimes are the system's CPU seconds over a run, by kind.
type CPUTimes struct {
	User    float64 `json:"user"`
	System  float64 `json:"system"`
	IRQ     float64 `json:"irq"`
	SoftIRQ float64 `json:"softirq"`
	Idle    float64 `json:"idle"`
	Total   float64 `json:"total"`
}

// Busy is the CPU time not idle.
func (c CPUTimes) Busy() float64 { return c.User + c.System + c.IRQ + c.SoftIRQ }

// CPUPercent is the busy share of all CPUs during the run, 0..100 (0
// when no CPU times were taken).
func (m Measurement) CPUPercent() float64 {
	if m.CPU.Total <= 0 {
		return 0
	}
	return m.CPU.Busy() / m.CPU.Total * 100
}

// PerMiBIRQs is interrupts per MiB moved (false when none were counted).
func (m Measurement) PerMiBIRQs() (float64, bool) {
	if m.IRQs == 0 && m.IRQsPerMiB == 0 {
		return 0, false
	}
	if m.IRQsPerMiB != 0 || m.Bytes == 0 {
		return m.IRQsPerMiB, true
	}
	return float64(m.IRQs) / (float64(m.Bytes) / (1 << 20)), true
}

// PerMiBCPU is busy CPU milliseconds per MiB moved (false when unknown).
func (m Measurement) PerMiBCPU() (float64, bool) {
	busy := m.CPU.Busy()
	if busy <= 0 || m.Bytes <= 0 {
		return 0, false
	}
	return busy * 1000 / (float64(m.Bytes) / (1 << 20)), true
}
