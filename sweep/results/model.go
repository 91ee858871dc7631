package results

import (
	"fmt"
	"strings"
)

// ModelFit is one fit of a model-mode sweep's additive model of log
// rate (sweep/fit): the terms it chose, how well it fits, the points it
// predicts on top, and, when it fits too badly to be trusted, why the
// sweep raced the points instead.
type ModelFit struct {
	Round int `json:"round"`
	// Points were measured, Runs are the observations (probe runs).
	Points int `json:"points"`
	Runs   int `json:"runs"`
	// Terms are the axes and the interactions (A×B) the model has.
	Terms []string `json:"terms"`
	// R2 is the share of the runs' variance (log rate) it explains;
	// ResidualPct the residual standard deviation, NoisePct the run
	// noise (both in % of the rate).
	R2          float64 `json:"r2"`
	ResidualPct float64 `json:"residual_pct"`
	NoisePct    float64 `json:"noise_pct"`
	// TopMisfitPct is how far, beyond the noise, the measured points near
	// the predicted top are from the predictions (in % of the rate).
	TopMisfitPct float64  `json:"top_misfit_pct"`
	Top          []string `json:"top,omitempty"`
	// Fallback, when set, says why the sweep raced instead.
	Fallback string `json:"fallback,omitempty"`
}

// String is the fit in one line, for people.
func (m *ModelFit) String() string {
	s := fmt.Sprintf("model (round %d): %s; R² %.4f, residual %.2f %% against run noise %.2f %% (%.2f %% beyond it at the top), on %d runs of %d points",
		m.Round+1, strings.Join(m.Terms, " + "), m.R2, m.ResidualPct, m.NoisePct, m.TopMisfitPct, m.Runs, m.Points)
	if m.Fallback != "" {
		s += "; fits badly (" + m.Fallback + "): racing the points instead"
	}
	return s
}
