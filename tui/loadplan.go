package tui

import (
	"fmt"
	"path/filepath"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
)

// LoadPlanFile reads a sweep plan file (TOML, as `citune sweep --plan`).
func LoadPlanFile(path string, m *regs.Map) (SweepPlan, error) {
	pf, axes, err := plan.ReadPlanFile(m, path)
	if err != nil {
		return SweepPlan{}, err
	}
	sp := plan.DefaultPlan()
	if err := pf.Apply(&sp); err != nil {
		return SweepPlan{}, fmt.Errorf("%s: %w", path, err)
	}
	sp.Axes = axes
	// The rules citune sweep --plan has (plan.Check); the fields may be
	// chosen on screen later.
	if err := sp.CheckSettings(); err != nil {
		return SweepPlan{}, fmt.Errorf("%s: %w", path, err)
	}
	return SweepPlan{Plan: sp, Source: filepath.Base(path)}, nil
}
