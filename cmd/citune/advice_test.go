package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/soc/mmio"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// adviceCases: a library error and the flag the CLI's advice names.
var adviceCases = []struct {
	err  error
	want string
}{
	{fmt.Errorf("%w: compatible x", soc.ErrNoProfile), "--profile"},
	{fmt.Errorf("mapping: %w", mmio.ErrNotRoot), "--sim"},
	{fmt.Errorf("read: %w", probe.ErrNoDirect), "--buffered"},
	{fmt.Errorf("journal: %w: read-only file system", undo.ErrStore), "--journal"},
	{fmt.Errorf("%w: %w", plan.ErrPlan, plan.ErrNoAxes), "--axis"},
	{fmt.Errorf("results file r: %w", results.ErrExists), "--resume"},
	{fmt.Errorf("axis: %w", sweep.ErrNotReloaded), "--reload"},
	{errors.New("something else"), ""},
}

// Library errors say what is wrong; the CLI adds its flags.
func TestAdvice(t *testing.T) {
	for _, tc := range adviceCases {
		got := advice(tc.err)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("advice(%v) = %q, want it to name %q", tc.err, got, tc.want)
		}
	}
}
