package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Keys are the plan's settings as Set names them: the flags of `citune
// sweep` (--repeat), the keys of a plan file (repeat; baseline_every and
// min_gain there) and the words of the TUI's plan line (repeat=) alike.
var Keys = []string{"mode", "repeat", "warmup", "settle", "seed", "baseline-every", "budget", "min-gain"}

// IsKey reports whether key names a plan setting (any case, _ for -).
func IsKey(key string) bool { return slices.Contains(Keys, canonKey(key)) }

func canonKey(key string) string { return strings.ReplaceAll(strings.ToLower(key), "_", "-") }

// Set sets one setting from its text. Decision: the one parser of plan
// settings; flags, plan files and the TUI all set through it, and Check
// holds every rule across settings, so the same bad value reads the
// same wherever it was given. Set refuses only what cannot be read, and
// a budget of 0 or less: 0 means "no cap" in results files written
// before the budget, which Check accepts, but nobody asks for it.
func (p *Plan) Set(key, value string) error {
	k := canonKey(key)
	bad := func(want string) error {
		return fmt.Errorf("%w: %s %q: want %s", ErrPlan, k, value, want)
	}
	switch k {
	case "mode":
		p.Mode = strings.ToLower(value)
	case "repeat", "warmup", "baseline-every":
		n, err := strconv.Atoi(value)
		if err != nil {
			return bad("a whole number")
		}
		*map[string]*int{"repeat": &p.Repeats, "warmup": &p.Warmup, "baseline-every": &p.BaselineEvery}[k] = n
	case "settle":
		d, err := time.ParseDuration(value)
		if err != nil {
			return bad("a duration (200ms, 1s)")
		}
		p.Settle = d
	case "seed":
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return bad("a whole number")
		}
		p.Seed = n
	case "budget":
		b, err := strconv.ParseFloat(value, 64)
		if err != nil || !(b > 0) {
			return fmt.Errorf("%w: budget %s: %s", ErrPlan, value, budgetWant)
		}
		p.Budget = b
	case "min-gain":
		g, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return bad("a gain in percent")
		}
		p.MinGain = &g
	default:
		return fmt.Errorf("%w: unknown setting %q (known: %s)", ErrPlan, key, strings.Join(Keys, ", "))
	}
	return nil
}

// budgetWant is what a budget must be (Set and Check).
const budgetWant = "a share of the grid's probe runs, above 0 and at most 1"
