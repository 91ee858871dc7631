package report

import (
	"fmt"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/units"
)

// The machine form of results files (`citune report --json`): one object
// per file, every point, lower-case keys; byte rates as units.Rate.

// JSONPoint is one point of a results file.
type JSONPoint struct {
	Label    string            `json:"label"`
	Settings map[string]string `json:"settings,omitempty"`
	Baseline bool              `json:"baseline,omitempty"`
	Rank     int               `json:"rank,omitempty"`
	Tied     bool              `json:"tied,omitempty"`
	Status   string            `json:"status"`
	Reason   string            `json:"reason,omitempty"`
	Runs     int               `json:"runs"`
	Median   *units.Rate       `json:"median,omitempty"`
	Min      *units.Rate       `json:"min,omitempty"`
	Max      *units.Rate       `json:"max,omitempty"`
	// VsBaseline is the ranking's comparison, as the results file has it.
	VsBaseline *rank.Comparison `json:"vs_baseline,omitempty"`
	// Original marks the point whose settings are the original ones.
	Original   bool     `json:"original_settings,omitempty"`
	IRQsPerSec *float64 `json:"irqs_per_s,omitempty"`
	IRQsPerMiB *float64 `json:"irqs_per_mib,omitempty"`
	HandlerAvg *float64 `json:"handler_avg_us,omitempty"`
	CPUPct     *float64 `json:"cpu_pct,omitempty"`
}

// JSONTarget is the controller a sweep measured, with the keys every
// --json's "target" has (docs/json.md).
type JSONTarget struct {
	Profile    string `json:"profile"`
	Controller string `json:"controller"`
	Node       string `json:"node"`
	Base       string `json:"base"`
	Kind       string `json:"kind"`
	Path       string `json:"path,omitempty"`
	Simulated  bool   `json:"simulated"`
}

// JSONSweep is one results file.
type JSONSweep struct {
	File       string     `json:"file"`
	Target     JSONTarget `json:"target"`
	Profile    string     `json:"profile"`
	Controller string     `json:"controller"`
	Node       string     `json:"node,omitempty"`
	Role       string     `json:"role,omitempty"`
	// Simulated: on the simulated controller; RealProbe: with a real
	// probe (sweep --force), whose rates owe nothing to the simulation.
	Simulated   bool       `json:"simulated"`
	RealProbe   bool       `json:"real_probe,omitempty"`
	Probe       string     `json:"probe"`
	Mode        string     `json:"mode"`
	State       string     `json:"state"`
	StateDetail string     `json:"state_detail,omitempty"`
	Warnings    []string   `json:"warnings,omitempty"`
	Baseline    *JSONPoint `json:"baseline,omitempty"`
	// Winner is the verdict's recommended point, if any.
	Winner string `json:"winner,omitempty"`
	// Verdict is the ranking's decision, with its text.
	Verdict     rank.Verdict `json:"verdict"`
	VerdictText []string     `json:"verdict_text"`
	Points      []JSONPoint  `json:"points"`
	DTS         string       `json:"dts,omitempty"`
	DTSError    string       `json:"dts_error,omitempty"`
}

func numPtr(n Num) *float64 {
	if !n.OK {
		return nil
	}
	return &n.V
}

func pointJSON(s *Sweep, p *Point) JSONPoint {
	j := JSONPoint{Label: p.Label, Settings: p.Settings, Baseline: p.Baseline, Rank: p.Rank, Tied: p.Tied,
		Status: string(p.Status), Reason: p.Reason, Runs: p.Runs(), IRQsPerSec: numPtr(p.IRQsPerSec),
		IRQsPerMiB: numPtr(p.IRQsPerMiB), HandlerAvg: numPtr(p.HandlerAvgUS), CPUPct: numPtr(p.CPUPct)}
	if p.Runs() > 0 {
		md, lo, hi := units.RateOf(p.Median, s.Unit), units.RateOf(p.Min, s.Unit), units.RateOf(p.Max, s.Unit)
		j.Median, j.Min, j.Max = &md, &lo, &hi
	}
	j.VsBaseline, j.Original = p.Vs, p.Original
	return j
}

// JSON is the machine form of the sweeps.
func JSON(ss []*Sweep) []JSONSweep {
	out := []JSONSweep{}
	for _, s := range ss {
		j := JSONSweep{File: s.File, Target: JSONTarget{Profile: s.Profile, Controller: s.Controller, Node: s.Node,
			Base: fmt.Sprintf("%#08x", s.Base), Kind: s.Target, Path: s.TargetPath, Simulated: s.Simulated()}, Profile: s.Profile, Controller: s.Controller, Node: s.Node, Role: s.Role,
			Simulated: s.Simulated(), RealProbe: s.RealProbe(), Probe: s.Probe, Mode: s.Plan.Mode, State: s.State, StateDetail: s.StateDetail, Warnings: s.Warnings,
			DTS: s.DTS, DTSError: s.DTSErr, Points: []JSONPoint{}}
		if s.Baseline != nil {
			b := pointJSON(s, s.Baseline)
			j.Baseline = &b
		}
		if w := s.winning(); w != nil {
			j.Winner = w.Label
		}
		j.Verdict, j.VerdictText = s.Verdict, s.VerdictLines()
		for _, p := range s.all() {
			j.Points = append(j.Points, pointJSON(s, p))
		}
		out = append(out, j)
	}
	return out
}
