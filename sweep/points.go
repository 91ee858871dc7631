package sweep

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
)

// Point is one combination of axis values.
type Point struct {
	Key string
	// Values has one value per axis; axes the hardware ignores at this
	// point (Ignored) carry their original value.
	Values   []string
	Ignored  []bool
	Baseline bool
	Note     string
	// Group is the number of grid combinations the point stands for.
	Group int
}

// dep says that axis only takes effect while a field has a value (the
// profile knob's "requires": BURSTSIZE needs SBUSCFG.AHBBRST=0).
type dep struct {
	axis     int
	cond     regs.Change
	condAxis int    // the axis sweeping the condition's field, or -1
	live     uint32 // the condition field's value when it is not swept
}

func (r *state) makePoint(vals []string, vary int) *Point {
	vals = slices.Clone(vals)
	p := &Point{Ignored: make([]bool, len(vals)), Group: 1}
	var notes []string
	// One factor at a time: when the varied axis needs a condition that
	// another axis sweeps, set that axis so that the change takes effect.
	for _, d := range r.deps {
		if d.axis != vary || d.condAxis < 0 || vals[vary] == r.orig[vary] {
			continue
		}
		if r.axes[d.condAxis].Number(vals[d.condAxis]) != d.cond.Value {
			vals[d.condAxis] = strconv.FormatUint(uint64(d.cond.Value), 10)
			notes = append(notes, fmt.Sprintf("%s=%d so that %s takes effect", d.cond.Ref.Field.Name, d.cond.Value, r.axes[d.axis].Label()))
		}
	}
	for _, d := range r.deps {
		have := d.live
		if d.condAxis >= 0 {
			have = r.axes[d.condAxis].Number(vals[d.condAxis])
		}
		if have != d.cond.Value {
			p.Ignored[d.axis] = true
			vals[d.axis] = r.orig[d.axis]
		}
	}
	p.Values = vals
	p.Note = strings.Join(notes, "; ")
	var ks []string
	for i, a := range r.axes {
		if !p.Ignored[i] {
			ks = append(ks, a.Name+"="+vals[i])
		}
	}
	p.Key = strings.Join(ks, " ")
	return p
}

func (r *state) baselinePoint() *Point {
	return &Point{Key: results.BaselineKey, Values: slices.Clone(r.orig), Ignored: make([]bool, len(r.axes)), Baseline: true, Group: 1}
}

// gridPoints is every combination, those that differ only in settings
// the hardware ignores grouped into one.
func (r *state) gridPoints() []*Point {
	var pts []*Point
	byKey := map[string]*Point{}
	n := len(r.axes)
	idx := make([]int, n)
	for {
		vals := make([]string, n)
		for i, a := range r.axes {
			vals[i] = a.Values[idx[i]]
		}
		p := r.makePoint(vals, -1)
		if q := byKey[p.Key]; q != nil {
			q.Group++
		} else {
			byKey[p.Key] = p
			pts = append(pts, p)
		}
		i := n - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(r.axes[i].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	return pts
}

// ofatPoints varies one axis at a time, the others at their original
// values.
func (r *state) ofatPoints() []*Point {
	var pts []*Point
	seen := map[string]bool{}
	for i, a := range r.axes {
		for _, v := range a.Values {
			if v == r.orig[i] {
				continue
			}
			vals := slices.Clone(r.orig)
			vals[i] = v
			p := r.makePoint(vals, i)
			if seen[p.Key] || p.Ignored[i] {
				continue
			}
			seen[p.Key] = true
			pts = append(pts, p)
		}
	}
	return pts
}

// groupingNotes says which settings were grouped because the hardware
// ignores them.
func (r *state) groupingNotes(pts []*Point) []string {
	var notes []string
	for _, d := range r.deps {
		grouped, total := 0, 0
		var at []string
		for _, p := range pts {
			if p.Ignored[d.axis] {
				grouped++
				total += p.Group
				if d.condAxis >= 0 {
					v := r.axes[d.condAxis].Label() + "=" + p.Values[d.condAxis]
					if !slices.Contains(at, v) {
						at = append(at, v)
					}
				}
			}
		}
		if grouped == 0 {
			continue
		}
		where := "at the other points"
		if len(at) > 0 {
			where = "at " + strings.Join(at, ", ")
		}
		notes = append(notes, fmt.Sprintf("%s takes effect only with %s: %s it stays at its original value %s (%d combinations measured as %d points)",
			r.axes[d.axis].Label(), d.cond.String(), where, r.orig[d.axis], total, grouped))
	}
	return notes
}

// modKey is a point's module-parameter values, "" without such axes.
func (r *state) modKey(vals []string) string {
	var ks []string
	for i, a := range r.axes {
		if a.Kind == plan.KindModParam || a.Kind == plan.KindCmdline || a.Kind == plan.KindDT {
			ks = append(ks, vals[i])
		}
	}
	return strings.Join(ks, "\x00")
}

// byReload orders pts so that a module-parameter value is loaded once:
// the points at the original values first, then the other values' groups
// in the order their first point has (in the plan, once it has points),
// pts' shuffled order kept within a group. reverse puts the groups the
// other way round (an adaptive round starts with the values the last one
// ended with).
func (r *state) byReload(pts []*Point, reverse bool) []*Point {
	if !r.hasModParams() {
		return pts
	}
	// From the plan's points once they exist: the same from round to round.
	order := pts
	if r.points != nil {
		order = r.points
	}
	rank := map[string]int{r.modKey(r.orig): 0}
	for _, p := range order {
		if _, ok := rank[r.modKey(p.Values)]; !ok {
			rank[r.modKey(p.Values)] = len(rank)
		}
	}
	out := slices.Clone(pts)
	slices.SortStableFunc(out, func(a, b *Point) int {
		ra, rb := rank[r.modKey(a.Values)], rank[r.modKey(b.Values)]
		if reverse {
			ra, rb = rb, ra
		}
		return ra - rb
	})
	return out
}

// schedule is the order of a grid or one-factor sweep's visits, and the
// reloads it needs: the baseline, the points, the baseline again after
// every BaselineEvery points and at the end. A baseline between points is
// left out where it would need a reload (two reloads cost more than the
// drift it watches); reschedule plans the rest again after each one.
func (r *state) schedule() (visits []*Point, reloads int) {
	tail, reloads := r.scheduleFrom(r.modKey(r.orig), r.points, r.Plan.BaselineEvery)
	return append([]*Point{r.baselinePoint()}, tail...), reloads
}

// scheduleFrom is the visits of pts, the values cur loaded, with the
// baseline after every every points and at the end, and their reloads.
func (r *state) scheduleFrom(cur string, pts []*Point, every int) (visits []*Point, reloads int) {
	add := func(p *Point) {
		if k := r.modKey(p.Values); k != cur {
			reloads++
			cur = k
		}
		visits = append(visits, p)
	}
	base := r.baselinePoint()
	for i, p := range pts {
		add(p)
		if every > 0 && (i+1)%every == 0 && i+1 < len(pts) && r.modKey(base.Values) == cur {
			add(base)
		}
	}
	add(base)
	return visits, reloads
}

func shuffled(pts []*Point, seed int64) []*Point {
	out := slices.Clone(pts)
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (r *state) settings(p *Point) map[string]string {
	m := map[string]string{}
	for i, a := range r.axes {
		if !p.Ignored[i] {
			m[a.Name] = p.Values[i]
		}
	}
	return m
}

func (r *state) ignored(p *Point) []string {
	var s []string
	for i, a := range r.axes {
		if p.Ignored[i] {
			s = append(s, a.Name)
		}
	}
	return s
}

func (r *state) info(p *Point) results.PointInfo {
	g := p.Group
	if g == 1 {
		g = 0
	}
	return results.PointInfo{Key: p.Key, Settings: r.settings(p), Ignored: r.ignored(p), Note: p.Note, Group: g}
}
