package results

import (
	"fmt"
	"strconv"

	"github.com/citune/citune/sweep/plan"
)

// CheckValues refuses a register axis's value (in the plan, the
// originals or a point's settings) that is not a decimal number of 32
// bits, the only form a sweep records: what turns values into a device
// tree must not read anything else as 0. The error names the record.
func (res *Results) CheckValues() error {
	for _, a := range res.Header.Plan.Axes {
		for _, v := range a.Values {
			if err := res.checkValues(1, "the plan", map[string]string{a.Name: v}); err != nil {
				return err
			}
		}
	}
	if err := res.checkValues(1, "the originals", res.Header.Originals); err != nil {
		return err
	}
	for i, p := range res.Points {
		line := 0
		if i < len(res.pointLines) {
			line = res.pointLines[i]
		}
		if err := res.checkValues(line, "point "+p.Point, p.Settings); err != nil {
			return err
		}
	}
	return nil
}

func (res *Results) checkValues(line int, what string, vals map[string]string) error {
	for _, a := range res.Header.Plan.Axes {
		if a.Kind != plan.KindRegister {
			continue
		}
		v, ok := vals[a.Name]
		if !ok {
			continue
		}
		if n, err := strconv.ParseUint(v, 10, 32); err != nil || strconv.FormatUint(n, 10) != v {
			return fmt.Errorf("line %d: %s: %s = %q is not a field value (a sweep records decimal numbers)", line, what, a.Name, v)
		}
	}
	return nil
}
