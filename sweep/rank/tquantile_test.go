package rank

import (
	"math"
	"testing"
)

// Table values of Student's t (two-sided 95 %, 99 %, 99.8 %; one-sided
// 95 %) and the normal limit.
func TestTQuantile(t *testing.T) {
	for _, c := range []struct {
		p    float64
		dof  int
		want float64
	}{
		{0.975, 4, 2.776},
		{0.975, 10, 2.228},
		{0.995, 8, 3.355},
		{0.999, 4, 7.173},
		{0.999, 20, 3.552},
		{0.95, 30, 1.697},
		{0.975, 100000, 1.960},
		{0.025, 10, -2.228},
		// Few degrees of freedom, where an expansion in 1/dof fails.
		{0.975, 2, 4.303},
		{0.995, 1, 63.657},
		{0.9975, 3, 7.453},
		{0.9995, 5, 6.869},
	} {
		got := TQuantile(c.p, c.dof)
		if math.Abs(got-c.want) > 0.001*math.Abs(c.want) {
			t.Errorf("TQuantile(%g, %d) = %.4f, want %.3f", c.p, c.dof, got, c.want)
		}
	}
	// More degrees of freedom, a smaller quantile: the estimate of the
	// spread is better known.
	for dof := 2; dof < 60; dof++ {
		if TQuantile(0.99, dof) >= TQuantile(0.99, dof-1) {
			t.Errorf("TQuantile(0.99, %d) = %g not below dof %d's %g", dof, TQuantile(0.99, dof), dof-1, TQuantile(0.99, dof-1))
		}
	}
}
