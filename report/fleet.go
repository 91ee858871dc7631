package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/citune/citune/sweep/rank"
)

// A fleet report compares many boards (a LAVA farm): it groups the files
// by SoC, controller, plan and probe (only those measure the same thing),
// shows each point's median per board with the spread between them, and
// says whether one setting wins on every board of the group (one value
// for the SoC's dtsi) or the winner differs (per-board overrides).
//
// Decisions:
//   - A board's winners are its first-ranked point and every point tied
//     with it: a setting statistically as good as the winner on every
//     board is a common winner, even where noise put another first.
//   - Among several common winners, and when there is none, the setting
//     recommended for all boards is the one whose worst loss against each
//     board's own winner is smallest (maximin): a dtsi value must not hurt
//     any board much. Its loss is named, to weigh against overrides.
//   - The spread of a point is (max - min) / mean of its medians across
//     the boards that measured it, in %; with one board there is none.
//   - Files are a fleet when they name at least two different boards in
//     their headers, or when Options.Fleet asks for it (older files: each
//     file is then a board, named by its file).

// Fleet is the files grouped for comparison across boards.
type Fleet struct {
	Groups []*FleetGroup
}

// FleetGroup is the files of one SoC, controller, plan and probe.
type FleetGroup struct {
	Profile, Controller, Plan, Probe string
	Sweeps                           []*Sweep
	// Boards are the column names: each file's board, or its label.
	Boards []string
	// Points are the point labels in the order of the first file's
	// ranking (baseline excluded), then those only other files have.
	Points []string
	// Winners are each board's winner (nil: nothing ranked).
	Winners []*Point
	// Common are the points that win (or tie the winner) on every board.
	Common []string
	// Pick is the one setting recommended for every board of the group
	// (maximin, see above); PickLoss its worst loss against a board's own
	// winner in %, PickWorst that board. "" when no point was measured on
	// every board.
	Pick      string
	PickLoss  float64
	PickWorst string
}

// isFleet reports whether ss are a fleet (see above).
func isFleet(ss []*Sweep, o Options) bool {
	if len(ss) < 2 {
		return false
	}
	if o.Fleet {
		return true
	}
	seen := map[string]bool{}
	for _, s := range ss {
		if s.BoardName != "" {
			seen[s.BoardName] = true
		}
	}
	return len(seen) >= 2
}

// NewFleet groups ss.
func NewFleet(ss []*Sweep) *Fleet {
	uniqueLabels(ss)
	f := &Fleet{}
	byKey := map[string]*FleetGroup{}
	for _, s := range ss {
		k := strings.Join([]string{s.Profile, s.Controller, s.PlanString(), s.Probe}, "\x00")
		g := byKey[k]
		if g == nil {
			g = &FleetGroup{Profile: s.Profile, Controller: s.Controller, Plan: s.PlanString(), Probe: s.Probe}
			byKey[k] = g
			f.Groups = append(f.Groups, g)
		}
		g.Sweeps = append(g.Sweeps, s)
	}
	slices.SortStableFunc(f.Groups, func(a, b *FleetGroup) int {
		return cmp.Or(strings.Compare(a.Profile, b.Profile), strings.Compare(a.Controller, b.Controller))
	})
	for _, g := range f.Groups {
		g.settle()
	}
	return f
}

func (g *FleetGroup) settle() {
	count := map[string]int{}
	for _, s := range g.Sweeps {
		count[cmp.Or(s.BoardName, s.Label)]++
	}
	for _, s := range g.Sweeps {
		b := cmp.Or(s.BoardName, s.Label)
		if count[b] > 1 {
			b += " (" + s.Label + ")"
		}
		g.Boards = append(g.Boards, b)
		g.Winners = append(g.Winners, s.Winner())
	}
	g.Points = compareRows(g.Sweeps)

	// Common winners: first or tied with the first on every board.
	wins := func(s *Sweep, label string) bool {
		p := byLabel(s, label)
		// A board whose verdict keeps the original settings (or decides
		// nothing) has no winning point.
		if p == nil || s.Verdict.Kind != rank.VerdictApply || p.Status != rank.StatusOK || len(p.Blocked) > 0 {
			return false
		}
		return p.Key == s.Verdict.Point || p.Tied && p.Vs != nil && p.Vs.Change == rank.ChangeFaster
	}
	for _, l := range g.Points {
		if !slices.ContainsFunc(g.Sweeps, func(s *Sweep) bool { return !wins(s, l) }) {
			g.Common = append(g.Common, l)
		}
	}

	// The maximin pick: among the common winners if any, else among the
	// points measured on every board that can be made permanent, against
	// each board's own recommendation (none where a board's verdict does
	// not apply one).
	cands := g.Common
	if len(cands) == 0 {
		cands = g.Points
	}
	best := math.Inf(-1)
	for _, l := range cands {
		worst, worstBoard, ok := math.Inf(1), "", true
		for i, s := range g.Sweeps {
			p, w := byLabel(s, l), s.winning()
			if p == nil || w == nil || p.Status != rank.StatusOK || len(p.Blocked) > 0 || w.Median <= 0 {
				ok = false
				break
			}
			if r := p.Median / w.Median; r < worst {
				worst, worstBoard = r, g.Boards[i]
			}
		}
		if ok && worst > best {
			best = worst
			g.Pick, g.PickWorst = l, worstBoard
			g.PickLoss = (1 - worst) * 100
		}
	}
}

// Spread is the spread of a point's medians across the boards in %, if
// two boards measured it.
func (g *FleetGroup) Spread(label string) (float64, bool) {
	var xs []float64
	for _, s := range g.Sweeps {
		p := g.point(s, label)
		if p != nil && (p.Status == rank.StatusOK || p.Status == rank.StatusEliminated) && len(p.Rates) > 0 {
			xs = append(xs, p.Median)
		}
	}
	if len(xs) < 2 {
		return 0, false
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	mean := sum / float64(len(xs))
	if mean <= 0 {
		return 0, false
	}
	return (slices.Max(xs) - slices.Min(xs)) / mean * 100, true
}

// point is s's point with label, or its baseline for "baseline".
func (g *FleetGroup) point(s *Sweep, label string) *Point {
	if label == "baseline" {
		return s.Baseline
	}
	return byLabel(s, label)
}

// Verdict says whether one setting wins on every board of the group.
func (g *FleetGroup) Verdict() string {
	soc := g.Profile
	n := len(g.Sweeps)
	var none []string
	for i, w := range g.Winners {
		if w == nil {
			none = append(none, g.Boards[i])
		}
	}
	switch {
	case len(none) == n:
		return "no board ranked a point: nothing to compare"
	case len(none) > 0:
		return fmt.Sprintf("no point was ranked on %s: no verdict for the SoC until every board has one", strings.Join(none, ", "))
	case g.allOriginal() && n > 1:
		return fmt.Sprintf("every point swept was significantly slower than the original settings on every board of the %s (%d): keep the SoC's dtsi as it is", soc, n)
	case n == 1:
		return fmt.Sprintf("one board only (%s): its winner is %s; sweep more boards of the %s before putting it in the SoC's dtsi", g.Boards[0], g.winnerLabel(0), soc)
	case len(g.Common) > 0:
		v := fmt.Sprintf("%s wins on every board of the %s (%d)", g.Pick, soc, n)
		if len(g.Common) > 1 {
			v += fmt.Sprintf(" (tied with %s on every board; it loses least against each board's own winner: at most %.1f %% on %s)", strings.Join(slices.DeleteFunc(slices.Clone(g.Common), func(l string) bool { return l == g.Pick }), ", "), g.PickLoss, g.PickWorst)
		}
		return v + ": one value for the SoC's dtsi (" + soc + "), no per-board overrides"
	}
	var each []string
	for i := range g.Winners {
		each = append(each, g.Boards[i]+": "+g.winnerLabel(i))
	}
	v := fmt.Sprintf("the winner differs between the boards of the %s (%s): per-board overrides in each board's dts", soc, strings.Join(each, "; "))
	if g.Pick != "" {
		v += fmt.Sprintf("; as one value for the SoC's dtsi, %s loses least: %.1f %% against the winner of %s", g.Pick, g.PickLoss, g.PickWorst)
	}
	return v
}

// allOriginal reports whether no board's verdict changes anything.
func (g *FleetGroup) allOriginal() bool {
	return len(g.Sweeps) > 0 && !slices.ContainsFunc(g.Sweeps, func(s *Sweep) bool { return s.Verdict.Kind == rank.VerdictApply })
}

// winnerLabel names board i's winner: its verdict's recommendation, the
// original settings where the verdict keeps them, or "no decision".
func (g *FleetGroup) winnerLabel(i int) string {
	s := g.Sweeps[i]
	switch s.Verdict.Kind {
	case rank.VerdictKeep:
		return "the original settings"
	case rank.VerdictNone:
		return "no decision"
	}
	if w := s.winning(); w != nil {
		return w.Label
	}
	return g.Winners[i].Label
}

// Summary says per group whether one setting wins, and if the SoCs agree.
func (f *Fleet) Summary() string {
	var parts []string
	// The SoC-level claim needs one comparable group per SoC: the same
	// SoC swept with two plans is two groups that measured different
	// things.
	picks := map[string]string{}
	groups := map[string]int{}
	for _, g := range f.Groups {
		groups[g.Profile]++
		name := g.Profile + " " + g.Controller
		switch {
		case g.allOriginal():
			boards := fmt.Sprintf("on every board (%d)", len(g.Sweeps))
			if len(g.Sweeps) == 1 {
				boards = "(one board)"
			}
			parts = append(parts, fmt.Sprintf("%s: the original settings %s", name, boards))
			picks[g.Profile] = "the original settings"
			continue
		case len(g.Sweeps) == 1 && g.Pick != "":
			parts = append(parts, fmt.Sprintf("%s: %s (one board)", name, g.Pick))
		case len(g.Common) > 0:
			parts = append(parts, fmt.Sprintf("%s: %s on every board (%d)", name, g.Pick, len(g.Sweeps)))
		case g.Pick != "":
			parts = append(parts, fmt.Sprintf("%s: the winner differs between its %d boards", name, len(g.Sweeps)))
			continue
		default:
			parts = append(parts, fmt.Sprintf("%s: no point measured on every board", name))
			continue
		}
		picks[g.Profile] = g.Pick
	}
	list := strings.Join(parts, "; ")
	same, n := map[string]bool{}, 0
	for soc, p := range picks {
		if groups[soc] > 1 {
			return list
		}
		same[p] = true
		n++
	}
	switch {
	case n > 1 && len(same) == 1:
		return "one setting is best on every SoC: " + list
	case n > 1:
		return "the best setting differs between the SoCs, each SoC's dtsi gets its own: " + list
	}
	return list
}

// fleetCell is a board's entry for a point: "27.34 #1", "27.31 2=",
// "not-held", "CORRUPT", "-".
func fleetCell(s *Sweep, p *Point) string {
	switch {
	case p == nil:
		return "-"
	case p.Baseline:
		return s.Rate(p.Median)
	case p.Status == rank.StatusCorrupt:
		return "CORRUPT"
	case p.Status == rank.StatusEliminated && len(p.Rates) > 0:
		return s.Rate(p.Median) + " elim."
	case p.Status != rank.StatusOK:
		return string(p.Status)
	}
	c := s.Rate(p.Median)
	switch r := rankCell(p); {
	case r == "":
	case p.Tied:
		c += " " + r
	default:
		c += " #" + r
	}
	return c
}

// table is the group's points by board.
func (g *FleetGroup) table() *table {
	unit := g.Sweeps[0].RateUnit()
	t := &table{head: []string{"point"}, right: []bool{false}}
	for _, b := range g.Boards {
		t.head = append(t.head, b+" "+unit)
		t.right = append(t.right, true)
	}
	t.head = append(t.head, "spread")
	t.right = append(t.right, true)
	for _, l := range append([]string{"baseline"}, g.Points...) {
		r := []string{l}
		if l == "baseline" {
			r[0] = "baseline (" + g.Sweeps[0].Originals() + ")"
		}
		r = append(r, mapf(g.Sweeps, func(s *Sweep) string { return fleetCell(s, g.point(s, l)) })...)
		sp := ""
		if v, ok := g.Spread(l); ok {
			sp = fmt.Sprintf("%.1f %%", v)
		}
		t.add(append(r, sp)...)
	}
	return t
}

func (g *FleetGroup) boardTable() *table {
	t := &table{head: []string{"board", "file", "kernel", "state", "winner", "vs baseline"}}
	for i, s := range g.Sweeps {
		w, vs := "-", ""
		if p := g.Winners[i]; p != nil {
			w, vs = g.winnerLabel(i), p.Vs.Short()
			if r := s.winning(); r != nil {
				vs = r.Vs.Short()
			} else {
				vs = "best swept " + vs
			}
		}
		t.add(g.Boards[i], s.File, s.kernelCell(), s.State, w, vs)
	}
	return t
}

func (g *FleetGroup) title() string {
	return fmt.Sprintf("%s %s, %d board%s", g.Profile, g.Controller, len(g.Sweeps), plural(len(g.Sweeps)))
}

// heading counts the files, the boards (a file without a board name is
// a board of its own) and the SoCs.
func (f *Fleet) heading() string {
	files, boards, socs := 0, map[string]bool{}, map[string]bool{}
	for _, g := range f.Groups {
		files += len(g.Sweeps)
		socs[g.Profile] = true
		for _, s := range g.Sweeps {
			boards[cmp.Or(s.BoardName, "file:"+s.File)] = true
		}
	}
	return fmt.Sprintf("%d results files from %d boards, %d SoC%s", files, len(boards), len(socs), plural(len(socs)))
}

func writeFleetText(w io.Writer, ss []*Sweep, o Options) {
	width := o.textWidth()
	f := NewFleet(ss)
	fmt.Fprintf(w, "fleet: %s\n", f.heading())
	fmt.Fprint(w, wrap("", f.Summary(), width))
	for _, g := range f.Groups {
		fmt.Fprintf(w, "\n== %s\n", g.title())
		fmt.Fprintf(w, "plan: %s\nprobe: %s\n", g.Plan, g.Probe)
		g.boardTable().textFit(w, "  ", o.Width)
		fmt.Fprintf(w, "\n  each point's median per board (rank; = tied with the board's fastest) and the spread between the boards:\n")
		g.table().textFit(w, "  ", o.Width)
		fmt.Fprint(w, wrap("verdict: ", g.Verdict(), width))
	}
	writeFileNotesText(w, ss, width)
}

func writeFleetMarkdown(w io.Writer, ss []*Sweep) {
	f := NewFleet(ss)
	fmt.Fprintf(w, "### USB throughput across a fleet: %s\n\n", f.heading())
	fmt.Fprintf(w, "%s\n", f.Summary())
	for _, g := range f.Groups {
		fmt.Fprintf(w, "\n#### %s\n\n", g.title())
		fmt.Fprintf(w, "- plan: %s\n- probe: %s\n\n", g.Plan, g.Probe)
		g.boardTable().markdown(w)
		fmt.Fprintf(w, "\nEach point's median per board (rank; = tied with the board's fastest) and the spread between the boards:\n\n")
		g.table().markdown(w)
		fmt.Fprintf(w, "\n**Verdict:** %s\n", g.Verdict())
	}
	writeFileNotesMarkdown(w, ss)
}
