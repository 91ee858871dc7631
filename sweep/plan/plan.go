package plan

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/rank"
)

// Modes.
const (
	ModeGrid     = "grid"     // every combination, shuffled, baseline again at intervals
	ModeOFAT     = "ofat"     // one factor at a time around the original settings
	ModeAdaptive = "adaptive" // race the grid's points, dropping the clearly worse
	ModeModel    = "model"    // screen a design, fit an additive model, confirm its top
)

// Plan is what to sweep and how.
type Plan struct {
	Axes []Axis `json:"axes"`
	Mode string `json:"mode"`
	// Repeats is the number of measured probe runs per point; Warmup
	// runs before them are recorded but not counted.
	Repeats int `json:"repeats"`
	Warmup  int `json:"warmup"`
	// Settle is the pause between applying a point and probing it.
	Settle time.Duration `json:"settle_ns"`
	// Seed orders the grid and the adaptive race.
	Seed int64 `json:"seed"`
	// BaselineEvery measures the baseline again after this many points
	// (grid); 0 measures it only first and last.
	BaselineEvery int `json:"baseline_every"`
	// Budget caps an adaptive race at this share of the probe runs the
	// grid of the same plan takes (warm-ups and baseline visits
	// included); 0 is no cap (files written before the cap). Other modes
	// ignore it.
	Budget float64 `json:"budget,omitempty"`
	// MinGain is the practical threshold of the verdict in percent
	// (`--min-gain`; nil: rank.DefaultMinGainPct): a gain smaller than
	// it is no change.
	MinGain *float64 `json:"min_gain_pct,omitempty"`
}

// MinGainPct is the plan's practical threshold.
func (p Plan) MinGainPct() float64 {
	if p.MinGain == nil {
		return rank.DefaultMinGainPct
	}
	return *p.MinGain
}

// DefaultBudget is an adaptive race's budget unless one is given: a
// third of the grid's probe runs. Decision: the race's point is a cost a
// user can plan on; bench/adaptive.sh shows it spending about a quarter on
// average and finding the grid's winner (or one the grid calls tied) more
// often than a second grid agrees with the first.
const DefaultBudget = 1.0 / 3

// SetDefaultBudget gives a new adaptive or model plan without a budget
// DefaultBudget (a plan read back from a results file keeps its own).
func (p *Plan) SetDefaultBudget() {
	if (p.Mode == ModeAdaptive || p.Mode == ModeModel) && p.Budget == 0 {
		p.Budget = DefaultBudget
	}
}

// DefaultPlan has the defaults of `citune sweep`.
func DefaultPlan() Plan {
	return Plan{Mode: ModeGrid, Repeats: 5, Warmup: 1, Settle: 200 * time.Millisecond, BaselineEvery: 8}
}

// MaxRepeats bounds the runs a point (and the warm-ups, and the points
// between baselines): a plan read back from a results file is checked as
// strictly as a new one, and 2^31 runs is no plan.
const MaxRepeats = 10_000

// Check validates the plan's shape (not against the live system; see
// sweep.Config): every rule of a plan, wherever its settings came from (Set).
func (p *Plan) Check() error { return p.check(true) }

// CheckSettings is Check without the rule that a plan has axes, for a
// plan whose axes come later (the TUI's plan line, settings-only files).
func (p *Plan) CheckSettings() error { return p.check(false) }

func (p *Plan) check(axes bool) error {
	var errs []error
	switch p.Mode {
	case ModeGrid, ModeOFAT, ModeAdaptive, ModeModel:
	default:
		errs = append(errs, fmt.Errorf("%w: mode %q (want grid, ofat, adaptive or model)", ErrPlan, p.Mode))
	}
	if axes && len(p.Axes) == 0 {
		errs = append(errs, fmt.Errorf("%w: %w", ErrPlan, ErrNoAxes))
	}
	if p.Repeats < 1 || p.Repeats > MaxRepeats {
		errs = append(errs, fmt.Errorf("%w: repeat %d: at least 1, at most %d", ErrPlan, p.Repeats, MaxRepeats))
	}
	if p.Warmup > MaxRepeats || p.BaselineEvery > MaxRepeats {
		errs = append(errs, fmt.Errorf("%w: warmup %d, baseline-every %d: at most %d", ErrPlan, p.Warmup, p.BaselineEvery, MaxRepeats))
	}
	if (p.Mode == ModeAdaptive || p.Mode == ModeModel) && p.Repeats < 3 {
		errs = append(errs, fmt.Errorf("%w: the %s mode needs 3 or more runs a point (it races points up to that many runs)", ErrPlan, p.Mode))
	}
	switch {
	case p.Budget < 0 || p.Budget > 1 || math.IsNaN(p.Budget):
		errs = append(errs, fmt.Errorf("%w: budget %g: %s", ErrPlan, p.Budget, budgetWant))
	case p.Budget != 0 && p.Mode != ModeAdaptive && p.Mode != ModeModel:
		errs = append(errs, fmt.Errorf("%w: budget %g: only an adaptive or model sweep has a budget (mode %s measures every point)", ErrPlan, p.Budget, p.Mode))
	}
	if g := p.MinGain; g != nil && (*g < 0 || *g > 50 || math.IsNaN(*g)) {
		errs = append(errs, fmt.Errorf("%w: min-gain %g: a gain in percent from 0 to 50", ErrPlan, *g))
	}
	if p.Warmup < 0 || p.Settle < 0 || p.BaselineEvery < 0 {
		errs = append(errs, fmt.Errorf("%w: warmup, settle and baseline-every cannot be negative", ErrPlan))
	}
	seen := map[string]bool{}
	for _, a := range p.Axes {
		k := string(a.Kind) + "|" + strings.ToUpper(a.Name)
		if seen[k] {
			errs = append(errs, fmt.Errorf("%w: axis %s given twice", ErrPlan, a.Name))
		}
		seen[k] = true
	}
	return errors.Join(errs...)
}

// Bind checks a plan read back from a results file against m and returns
// it with its axes built again (the file records names and values, not
// the map's references), as NewAxis builds them.
func (p Plan) Bind(m *regs.Map) (Plan, error) {
	axes := p.Axes
	p.Axes = nil
	for _, a := range axes {
		b, err := NewAxis(m, a.SpecName(), a.Values)
		if err != nil {
			return p, err
		}
		p.Axes = append(p.Axes, b)
	}
	return p, nil
}

// PlanFile is a TOML plan (`--plan FILE`). Every key is optional; flags
// given on the command line win over the file. Example:
//
//	mode = "grid"
//	repeat = 5
//	warmup = 1
//	settle = "200ms"
//	seed = 7
//	baseline_every = 8
//	axis = ["AHBBRST=0,2,3", "sysfs:/sys/block/sda/queue/max_sectors_kb=64,512"]
//
//	[[axes]]
//	name = "TXPBURST"
//	values = [8, 16, 32]
type PlanFile struct {
	Mode          *string     `toml:"mode"`
	Repeat        *int        `toml:"repeat"`
	Warmup        *int        `toml:"warmup"`
	Settle        *string     `toml:"settle"`
	Seed          *int64      `toml:"seed"`
	BaselineEvery *int        `toml:"baseline_every"`
	Budget        *float64    `toml:"budget"`
	MinGain       *float64    `toml:"min_gain"`
	Axis          []string    `toml:"axis"`
	Axes          []axisTable `toml:"axes"`
}

type axisTable struct {
	Name   string `toml:"name"`
	Values []any  `toml:"values"`
}

// ParsePlanFile decodes a TOML plan strictly (unknown keys are errors)
// and checks its axes against m.
func ParsePlanFile(m *regs.Map, name string, data []byte) (PlanFile, []Axis, error) {
	var pf PlanFile
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&pf)
	if err != nil {
		return pf, nil, fmt.Errorf("%s: %w: %v", name, ErrPlan, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var ks []string
		for _, k := range und {
			ks = append(ks, k.String())
		}
		return pf, nil, fmt.Errorf("%s: %w: unknown keys %s (known: mode, repeat, warmup, settle, seed, baseline_every, budget, min_gain, axis, [[axes]] name/values)", name, ErrPlan, strings.Join(ks, ", "))
	}
	var axes []Axis
	var errs []error
	add := func(a Axis, err error) {
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		axes = append(axes, a)
	}
	for _, s := range pf.Axis {
		add(ParseAxis(m, s))
	}
	for _, t := range pf.Axes {
		var vals []string
		for _, v := range t.Values {
			switch x := v.(type) {
			case string:
				vals = append(vals, x)
			case int64:
				vals = append(vals, strconv.FormatInt(x, 10))
			default:
				errs = append(errs, fmt.Errorf("%s: %w: axis %s: value %v is neither a number nor a string", name, ErrPlan, t.Name, v))
			}
		}
		add(NewAxis(m, t.Name, vals))
	}
	if err := pf.Apply(&Plan{}); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return pf, axes, errors.Join(errs...)
}

// ReadPlanFile reads the TOML plan file at path and parses it
// (ParsePlanFile).
func ReadPlanFile(m *regs.Map, path string) (PlanFile, []Axis, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return PlanFile{}, nil, err
	}
	return ParsePlanFile(m, path, data)
}

// Apply sets the plan's fields that the file gives, through Set.
func (pf PlanFile) Apply(p *Plan) error {
	var errs []error
	set := func(key, value string) {
		if err := p.Set(key, value); err != nil {
			errs = append(errs, err)
		}
	}
	if pf.Mode != nil {
		set("mode", *pf.Mode)
	}
	ints := func(k string, v *int) {
		if v != nil {
			set(k, strconv.Itoa(*v))
		}
	}
	ints("repeat", pf.Repeat)
	ints("warmup", pf.Warmup)
	ints("baseline-every", pf.BaselineEvery)
	if pf.Settle != nil {
		set("settle", *pf.Settle)
	}
	if pf.Seed != nil {
		set("seed", strconv.FormatInt(*pf.Seed, 10))
	}
	floats := func(k string, v *float64) {
		if v != nil {
			set(k, strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	floats("budget", pf.Budget)
	floats("min-gain", pf.MinGain)
	return errors.Join(errs...)
}
