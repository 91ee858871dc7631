package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// visit applies a point, lets it settle, probes it n times (after the
// warm-ups) and checks after every run that its settings held; it returns
// the point's status, or an error that ends the sweep (cancelled, or a
// failure the next points would share). A screening visit takes no
// warm-ups (adaptive.go). stop, when set, is asked after every counted
// run with the visit's rates so far; true ends the visit early.
func (r *state) visit(ctx context.Context, p *Point, n int, screen bool, stop func(rates []float64) bool) (rank.Status, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	r.visitSeq++
	seq := r.visitSeq
	if cv, ok := r.resumed[seq]; ok {
		if cv.Point.Point != p.Key {
			return "", fmt.Errorf("the results file does not match the plan: its visit %d measured %q where the plan now measures %q", seq, cv.Point.Point, p.Key)
		}
		r.store.AddVisit(cv.Point, cv.Runs)
		r.spent += len(cv.Runs)
		r.count(cv.Point.Status)
		return cv.Point.Status, r.noteFirstRun(cv.Point, cv.Runs, true)
	}
	t0 := r.Clock.Now()
	defer func() { r.elapsed += r.Clock.Now().Sub(t0) }()
	settings := r.settings(p)
	label := rank.SettingsString(settings)
	if p.Baseline {
		label = "baseline (original settings)"
	}
	if err := r.emit(event.Event{Kind: event.PointStarted, Point: p.Key, Settings: settings, Label: label, Message: "applying " + label}); err != nil {
		return "", err
	}
	rec := results.PointRecord{Type: results.TypePoint, Session: r.session, Visit: seq, Point: p.Key, Baseline: p.Baseline, Settings: settings,
		Ignored: r.ignored(p), Note: p.Note, Status: rank.StatusOK, ScreenAdmitted: !screen && r.admitsScreen(p)}
	applied, mism, reloaded, err := r.apply(ctx, p)
	rec.Applied, rec.Reloaded = applied, reloaded
	var runs []results.RunRecord
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		var fatal *fatalError
		if errors.As(err, &fatal) {
			return "", err
		}
		rec.Status, rec.Reason = rank.StatusFailed, err.Error()
	case len(mism) > 0:
		rec.Status, rec.Reason, rec.Changed = rank.StatusNotHeld, "did not stick when written", mism
	default:
		if err := r.sleep(ctx, r.Plan.Settle); err != nil {
			return "", err
		}
		runs, err = r.probe(ctx, p, n, screen, stop, &rec)
		if err != nil {
			return "", err
		}
	}
	for _, rr := range runs {
		if !rr.Screen && results.Counts(rr) {
			rec.Runs++
			rec.Rates = append(rec.Rates, rr.Run.Rate)
		}
	}
	if rec.Rates == nil {
		rec.Rates = []float64{}
	}
	r.store.AddVisit(rec, runs)
	if err := r.noteFirstRun(rec, runs, false); err != nil {
		return "", err
	}
	r.summarise(&rec)
	r.count(rec.Status)
	r.elapsed += r.Clock.Now().Sub(t0)
	t0 = r.Clock.Now()
	if err := r.emit(event.Event{Kind: event.PointClosed, Point: p.Key, Closed: &rec}); err != nil {
		return "", err
	}
	if rec.Status == rank.StatusFailed {
		r.failures++
		if r.failures >= r.MaxFailures {
			return rec.Status, fmt.Errorf("%d points in a row failed; the last: %s", r.failures, rec.Reason)
		}
	} else {
		r.failures = 0
	}
	return rec.Status, nil
}

func (r *state) count(status rank.Status) {
	switch status {
	case rank.StatusNotHeld:
		r.notHeld++
	case rank.StatusCorrupt:
		r.corrupt++
	}
}

// probe measures the warm-ups (none when screening) and n runs, checking
// the settings after each, up to the first run that did not hold, was
// corrupt or failed. An error means the sweep must stop.
func (r *state) probe(ctx context.Context, p *Point, n int, screen bool, stop func([]float64) bool, rec *results.PointRecord) ([]results.RunRecord, error) {
	var runs []results.RunRecord
	var rates []float64
	warmup := r.warmups(screen)
	total := warmup + n
	for i := 0; i < total; i++ {
		mctx := ctx
		if i < warmup {
			// A read probe hashes every byte of a warm-up run (untimed)
			// and only samples the timed ones.
			mctx = probe.WarmupContext(ctx)
		}
		run, perr := r.Prober.Run(mctx, nil)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if r.sim != nil && run.Simulated {
			r.sim.Advance(run.Elapsed)
		}
		r.runs++
		r.total++
		r.spent++
		r.measured++
		wall, sim := r.stamp()
		rr := results.RunRecord{Type: results.TypeRun, Session: r.session, Visit: rec.Visit, Point: p.Key, Baseline: p.Baseline, Seq: i + 1,
			Warmup: i < warmup, Screen: screen && r.Plan.Warmup > 0, Time: wall, SimTime: sim, Run: results.MeasurementOf(run), Held: true}
		if perr != nil {
			rr.Error = perr.Error()
		}
		changed, cerr := r.check(p)
		if len(changed) > 0 {
			rr.Held, rr.Changed = false, changed
		}
		if err := r.emit(event.Event{Kind: event.RunFinished, Point: p.Key, Run: &rr}); err != nil {
			return nil, err
		}
		runs = append(runs, rr)
		kind := rr.Kind()
		switch {
		case cerr != nil:
			rec.Status, rec.Reason = rank.StatusFailed, fmt.Sprintf("reading the settings back after %s %d: %v", kind, i+1, cerr)
		case !rr.Held:
			rec.Status, rec.Reason, rec.Changed = rank.StatusNotHeld, fmt.Sprintf("changed during %s %d", kind, i+1), changed
		case run.Corrupt:
			rec.Status, rec.Reason = rank.StatusCorrupt, fmt.Sprintf("%s %d failed its integrity check: %s", kind, i+1, cmp.Or(run.Detail, "data differ"))
		case perr != nil:
			rec.Status, rec.Reason = rank.StatusFailed, fmt.Sprintf("probe %s %d: %v", kind, i+1, perr)
		default:
			if stop != nil && !rr.Warmup && !rr.Screen && i+1 < total {
				rates = append(rates, rr.Run.Rate)
				if stop(rates) {
					return runs, nil
				}
			}
			continue
		}
		break
	}
	return runs, nil
}

// warmups is the warm-up runs of a visit: the plan's, none when
// screening or where the visits show no first-run effect (fixedcost.go).
func (r *state) warmups(screen bool) int {
	if screen || r.warmSkip {
		return 0
	}
	return r.Plan.Warmup
}

// summarise fills a point record's statistics over all its visits.
func (r *state) summarise(rec *results.PointRecord) {
	if rec.Baseline {
		rec.Total = len(r.store.Baseline())
		rec.Median = rank.Median(r.store.Baseline())
		if rec.Total == 0 {
			rec.Median = 0
		}
		return
	}
	ps := r.store.Point(rec.Point)
	rec.Total = len(ps.Rates)
	rec.Unit = ps.Unit
	if len(ps.Rates) == 0 {
		return
	}
	rec.Median = rank.Median(ps.Rates)
	rec.IRQsPerMiB = results.MedianOf(ps.IRQsPerMiB)
	rec.CPUPerMiB = results.MedianOf(ps.CPUPerMiB)
	if len(r.store.Baseline()) > 0 && rec.Status == rank.StatusOK {
		// The ranking's comparison so far: the same interval the
		// verdict would use now.
		if rp := r.store.Rank().Find(rec.Point); rp != nil {
			rec.VsBaseline = rp.VsBaseline
		}
	}
}

// left estimates the time the rest of the sweep takes ("" before the
// first run): the time per probe run so far (reloads not included) times
// the runs still planned, plus the reloads still planned at reloadEach's
// time (unknown before a board's first: then it says how many it leaves
// out). For an adaptive sweep it is an upper bound: every point still
// racing measured up to twice the plan's runs, as in a tie-break, one
// reload per value and round, within the budget left.
func (r *state) left(seq int) string {
	if r.measured == 0 {
		return ""
	}
	per := max(r.elapsed-r.reloadTime, 0) / time.Duration(r.measured)
	visit := r.Plan.Warmup + r.Plan.Repeats
	runs, reloads := 0, 0
	bound := ""
	switch {
	case r.secondRuns > 0:
		runs = r.secondRuns // the second look's visits still to come
	case r.Plan.Mode == plan.ModeModel && r.alive == nil:
		if r.budget == 0 {
			return ""
		}
		bound, runs = "at most ", r.budget-r.spent
	case r.Plan.Mode == plan.ModeAdaptive || r.Plan.Mode == plan.ModeModel:
		bound = "at most "
		rounds := roundsAfter(r.target, r.Plan.Repeats)
		for _, p := range r.alive {
			// The tie-break round may add Repeats runs and warm-ups.
			runs += max(2*r.Plan.Repeats-r.store.Runs(p.Key), 0) + r.Plan.Warmup*(rounds+2)
		}
		runs += visit // the last baseline
		if r.budget > 0 {
			runs = min(runs, r.budget-r.spent)
		}
		reloads = r.adaptiveReloads(rounds)
	case r.planned > 0:
		runs = (r.planned - seq) * visit
		reloads = r.reloadsAfter(seq)
	default:
		return ""
	}
	d := per * time.Duration(runs)
	more := ""
	if reloads > 0 {
		if each, ok := r.reloadEach(); ok {
			d += each * time.Duration(reloads)
		} else {
			more = fmt.Sprintf(" and %d module reload(s)", reloads)
		}
	}
	sim := ""
	if r.sim != nil {
		sim = ", simulated" // the board's modelled time, not this machine's
	}
	return fmt.Sprintf(" [%sabout %s%s left%s]", bound, d.Round(time.Second), more, sim)
}

// reloadEach is the time one module reload is estimated to take: the
// mean of this session's reloads; before the first, the simulated
// board's nominal time (ok false on a board: not known yet).
func (r *state) reloadEach() (time.Duration, bool) {
	switch {
	case r.reloads > 0:
		return r.reloadTime / time.Duration(r.reloads), true
	case r.sim != nil:
		return r.sim.nominalReload(), true
	}
	return 0, false
}

// reloadsAfter counts the module reloads a grid or one-factor sweep
// still makes after its visit seq (1-based, as visitSeq).
func (r *state) reloadsAfter(seq int) int {
	if seq < 1 || seq > len(r.sched) || !r.hasModParams() {
		return 0
	}
	n := 0
	cur := r.modKey(r.sched[seq-1].Values)
	for _, p := range r.sched[seq:] {
		if k := r.modKey(p.Values); k != cur {
			n, cur = n+1, k
		}
	}
	return n
}

// adaptiveReloads bounds the module reloads an adaptive race still makes
// in this round and rounds more: one per value whose points still need
// runs and round, less one for the value loaded now, and one back to the
// original values unless nothing else is loaded by then.
func (r *state) adaptiveReloads(rounds int) int {
	if !r.hasModParams() {
		return 0
	}
	need := map[string]bool{}
	for _, p := range r.alive {
		if r.store.Runs(p.Key) < r.Plan.Repeats {
			need[r.modKey(p.Values)] = true
		}
	}
	cur, orig := r.modKey(r.cur), r.modKey(r.orig)
	n := (rounds + 1) * len(need)
	if need[cur] {
		n--
	}
	back := cur != orig
	if len(need) > 0 {
		back = len(need) > 1 || !need[orig]
	}
	if back {
		n++
	}
	return n
}

func (r *state) hasModParams() bool {
	return slices.ContainsFunc(r.axes, func(a plan.Axis) bool { return a.Kind == plan.KindModParam })
}

func (r *state) progress(seq int, rec *results.PointRecord) {
	pos := fmt.Sprintf("[%d]", seq)
	if r.planned > 0 {
		pos = fmt.Sprintf("[%d/%d]", seq, r.planned)
	}
	eta := r.left(seq)
	name := rank.SettingsString(rec.Settings)
	if rec.Baseline {
		name = "baseline"
	}
	switch rec.Status {
	case rank.StatusOK:
		s := fmt.Sprintf("%s %s: %s (median of %d)", pos, name, r.ByteUnit.Rate(rec.Median, rec.Unit), rec.Total)
		if rec.VsBaseline != nil {
			// The comparison so far: the closing ranking has the final one.
			s += ", so far " + rec.VsBaseline.String()
		}
		r.logf("%s%s\n", s, eta)
	case rank.StatusNotHeld:
		r.logf("%s %s: NOT HELD (%s): %s%s\n", pos, name, rec.Reason, strings.Join(rec.Changed, "; "), eta)
	case rank.StatusCorrupt:
		r.logf("%s %s: CORRUPT: %s%s\n", pos, name, rec.Reason, eta)
	default:
		r.logf("%s %s: %s: %s%s\n", pos, name, rec.Status, rec.Reason, eta)
	}
}

func (r *state) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	return r.Clock.Sleep(ctx, d)
}
