package main

import (
	"github.com/citune/citune/report"
)

// The machine form of `citune report --json`: one object per results
// file, every point (ranked, excluded, eliminated), lower-case keys like
// every other --json. Rates in bytes per second come in the units dd,
// hdparm and iperf3 print too: MiB/s, SI MB/s and Mbit/s.

type jsonRate struct {
	Value  float64  `json:"value"` // in the probe's unit (bytes/s for a byte rate)
	Unit   string   `json:"unit"`
	MiBps  *float64 `json:"mib_s,omitempty"`
	MBps   *float64 `json:"mb_s,omitempty"`
	Mbitps *float64 `json:"mbit_s,omitempty"`
}

func rateJSON(s *report.Sweep, v float64) jsonRate {
	r := jsonRate{Value: v, Unit: s.Unit}
	if s.Unit == "" || s.Unit == "B/s" {
		r.Unit = "B/s"
		mib, mb, mbit := v/(1<<20), v/1e6, v*8/1e6
		r.MiBps, r.MBps, r.Mbitps = &mib, &mb, &mbit
	}
	return r
}

type jsonDiff struct {
	Pct         float64  `json:"pct"`
	Lo          *float64 `json:"ci_lo,omitempty"`
	Hi          *float64 `json:"ci_hi,omitempty"`
	Level       float64  `json:"level,omitempty"`
	Significant bool     `json:"significant"`
}

type jsonPoint struct {
	Label      string            `json:"label"`
	Settings   map[string]string `json:"settings,omitempty"`
	Baseline   bool              `json:"baseline,omitempty"`
	Rank       int               `json:"rank,omitempty"`
	Tied       bool              `json:"tied,omitempty"`
	Status     string            `json:"status"`
	Reason     string            `json:"reason,omitempty"`
	Runs       int               `json:"runs"`
	Median     *jsonRate         `json:"median,omitempty"`
	Min        *jsonRate         `json:"min,omitempty"`
	Max        *jsonRate         `json:"max,omitempty"`
	VsBaseline *jsonDiff         `json:"vs_baseline,omitempty"`
	IRQsPerSec *float64          `json:"irqs_per_s,omitempty"`
	IRQsPerMiB *float64          `json:"irqs_per_mib,omitempty"`
	HandlerAvg *float64          `json:"handler_avg_us,omitempty"`
	CPUPct     *float64          `json:"cpu_pct,omitempty"`
}

type jsonSweep struct {
	File        string      `json:"file"`
	Profile     string      `json:"profile"`
	Controller  string      `json:"controller"`
	Node        string      `json:"node,omitempty"`
	Role        string      `json:"role,omitempty"`
	Probe       string      `json:"probe"`
	Mode        string      `json:"mode"`
	State       string      `json:"state"`
	StateDetail string      `json:"state_detail,omitempty"`
	Warnings    []string    `json:"warnings,omitempty"`
	Baseline    *jsonPoint  `json:"baseline,omitempty"`
	Winner      string      `json:"winner,omitempty"`
	Points      []jsonPoint `json:"points"`
	DTS         string      `json:"dts,omitempty"`
	DTSError    string      `json:"dts_error,omitempty"`
}

func numPtr(n report.Num) *float64 {
	if !n.OK {
		return nil
	}
	v := n.V
	return &v
}

func pointJSON(s *report.Sweep, p *report.Point) jsonPoint {
	j := jsonPoint{Label: p.Label, Settings: p.Settings, Baseline: p.Baseline, Rank: p.Rank, Tied: p.Tied,
		Status: string(p.Status), Reason: p.Reason, Runs: p.Runs(), IRQsPerSec: numPtr(p.IRQsPerSec),
		IRQsPerMiB: numPtr(p.IRQsPerMiB), HandlerAvg: numPtr(p.HandlerAvgUS), CPUPct: numPtr(p.CPUPct)}
	if p.Runs() > 0 {
		md, lo, hi := rateJSON(s, p.Median), rateJSON(s, p.Min), rateJSON(s, p.Max)
		j.Median, j.Min, j.Max = &md, &lo, &hi
	}
	if d := p.Vs; d != nil {
		j.VsBaseline = &jsonDiff{Pct: d.Pct, Significant: d.Significant}
		if d.HasCI() {
			lo, hi := d.Lo, d.Hi
			j.VsBaseline.Lo, j.VsBaseline.Hi, j.VsBaseline.Level = &lo, &hi, d.Level
		}
	}
	return j
}

// reportJSON is the machine form of the sweeps.
func reportJSON(ss []*report.Sweep) []jsonSweep {
	out := []jsonSweep{}
	for _, s := range ss {
		j := jsonSweep{File: s.File, Profile: s.Profile, Controller: s.Controller, Node: s.Node, Role: s.Role,
			Probe: s.Probe, Mode: s.Mode, State: s.State, StateDetail: s.StateDetail, Warnings: s.Warnings,
			DTS: s.DTS, DTSError: s.DTSErr, Points: []jsonPoint{}}
		if s.Baseline != nil {
			b := pointJSON(s, s.Baseline)
			j.Baseline = &b
		}
		if w := s.Winner(); w != nil {
			j.Winner = w.Label
		}
		for _, group := range [][]*report.Point{s.Ranked, s.Excluded, s.Eliminated} {
			for _, p := range group {
				j.Points = append(j.Points, pointJSON(s, p))
			}
		}
		out = append(out, j)
	}
	return out
}
