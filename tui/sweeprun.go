package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// LoadPlanFile reads a sweep plan file (TOML, as `citune sweep --plan`).
func LoadPlanFile(path string, m *regs.Map) (SweepPlan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return SweepPlan{}, err
	}
	pf, axes, err := plan.ParsePlanFile(m, path, data)
	if err != nil {
		return SweepPlan{}, err
	}
	sp := plan.DefaultPlan()
	pf.Apply(&sp)
	if sp.Repeats < rank.MinRunsForCI {
		return SweepPlan{}, fmt.Errorf("%s: repeat = %d: want at least %d (with fewer runs per point no difference can be told from noise: no confidence interval)", path, sp.Repeats, rank.MinRunsForCI)
	}
	sp.Axes = axes
	return SweepPlan{Plan: sp, Source: filepath.Base(path)}, nil
}

// SweepRunner is the Sweeper of package sweep: it runs plans with
// sweep.Runner (journal, held checks, restore on every exit path), which
// writes the results to a JSONL file, and turns the runner's events
// (sweep.Event) into the TUI's updates as they happen. Stopping and starting the same plan again resumes it from
// that file.
type SweepRunner struct {
	Target    *soc.Target
	Prober    sweep.Prober
	ProbeName string
	// Out is the results file of the first plan; later plans add -2,
	// -3... Empty: new files in the temporary directory.
	Out string
	// Host applies file and module-parameter axes (nil: register axes
	// only); Session is the TUI's undo session, through which the sweep
	// writes (nil: a session that keeps no journal); Command and Kernel go
	// into the header.
	Host    *host.Host
	Session *undo.Session
	Command []string
	Kernel  string
	// Adjust, when set, changes each plan before it runs (tests and
	// benchmarks drop the settle time).
	Adjust func(*plan.Plan)
	// Since measures the time a sweep has run (default time.Since; tests
	// give a fixed clock so that screens do not depend on the machine's
	// speed).
	Since func(time.Time) time.Duration

	mu      sync.Mutex
	path    string // results file of the current plan
	planKey string
	n       int
}

// Path is the results file of the last plan run.
func (s *SweepRunner) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

// Run implements Sweeper.
func (s *SweepRunner) Run(ctx context.Context, in plan.Plan, done []results.PointRecord, report func(SweepUpdate)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := in
	if sp.Mode == "" {
		sp.Mode = plan.DefaultPlan().Mode
	}
	var keyParts []string
	sp.Axes = slices.Clone(in.Axes)
	for _, ax := range sp.Axes {
		keyParts = append(keyParts, ax.Spec())
	}
	if s.Adjust != nil {
		s.Adjust(&sp)
	}
	key := fmt.Sprintf("%s mode=%s repeat=%d", strings.Join(keyParts, " "), sp.Mode, sp.Repeats)

	var res *results.Results
	var f *os.File
	var err error
	if len(done) > 0 && key == s.planKey && s.path != "" {
		if res, err = results.Load(s.path); err != nil {
			return err
		}
		if f, err = results.OpenAppend(s.path); err != nil {
			return err
		}
	} else {
		s.n++
		s.path = s.newPath()
		s.planKey = key
		if f, err = results.CreateFile(s.path); err != nil {
			return err
		}
	}
	defer f.Close()

	since := s.Since
	if since == nil {
		since = time.Since
	}
	st := &streamer{axes: sp.Axes, report: report, started: time.Now(), since: since, points: map[string]*results.PointRecord{}}
	if res != nil {
		st.resume(res)
	}
	report(SweepUpdate{Results: s.path})
	// Module parameters are module-wide: the header and a note name the
	// controllers a modparam axis changes (from the profile: the TUI
	// reads no device tree).
	users := map[string][]soc.ParamUser{}
	for _, ax := range sp.Axes {
		if ax.Kind == plan.KindModParam {
			users[ax.Name] = soc.ParamScope(nil, s.Target.Profile, ax.Name)
		}
	}
	r := &sweep.Runner{ParamUsers: users, Target: s.Target, Prober: s.Prober, ProbeName: s.ProbeName, Plan: sp, Host: s.Host, Session: s.Session,
		Out: results.NewWriter(f), OnEvent: st.event, Command: s.Command, Kernel: s.Kernel, Resume: res}
	outcome, err := r.Run(ctx)
	if outcome != nil {
		if w := outcome.Ranking.Winner(); w != nil {
			best := make([]string, len(sp.Axes))
			for i, a := range sp.Axes {
				best[i] = w.Settings[a.Name]
			}
			report(SweepUpdate{Best: best, Done: st.done, Total: st.total, Elapsed: st.since(st.started)})
		}
		if outcome.RestoreErr != nil {
			report(SweepUpdate{Note: "RESTORE FAILED: " + outcome.RestoreErr.Error()})
		}
	}
	if errors.Is(err, sweep.ErrInterrupted) {
		return errors.Join(context.Canceled, err)
	}
	return err
}

// newPath names the results file of a new plan.
func (s *SweepRunner) newPath() string {
	if s.Out != "" {
		if s.n == 1 {
			return s.Out
		}
		ext := filepath.Ext(s.Out)
		return fmt.Sprintf("%s-%d%s", strings.TrimSuffix(s.Out, ext), s.n, ext)
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("citune-tui-%s-%d-%d.jsonl", time.Now().Format("20060102-150405"), os.Getpid(), s.n))
}

// streamer turns the runner's events into TUI updates.
type streamer struct {
	axes    []plan.Axis
	report  func(SweepUpdate)
	started time.Time
	since   func(time.Time) time.Duration
	points  map[string]*results.PointRecord // by point key, folded over all visits
	closed  map[string]bool
	done    int
	total   int
	current string
}

// resume counts what an earlier session finished.
func (s *streamer) resume(res *results.Results) {
	s.closed = map[string]bool{}
	for _, p := range res.Points {
		if !p.Baseline {
			s.closed[p.Point] = true
		}
	}
	n := 0
	for _, p := range res.Header.Points {
		if p.Key != results.BaselineKey {
			n++
		}
	}
	s.total = n - len(s.closed)
}

func (s *streamer) update(u SweepUpdate) {
	u.Done, u.Total, u.Elapsed = s.done, s.total, s.since(s.started)
	s.report(u)
}

// event is the runner's OnEvent: it runs on the sweep's goroutine, as
// report may.
func (s *streamer) event(e sweep.Event) {
	switch e.Kind {
	case sweep.SweepStarted:
		if e.Header == nil {
			return // a resume: resume counted the points
		}
		for _, p := range e.Header.Points {
			if p.Key != results.BaselineKey {
				s.total++
			}
		}
		note := ""
		if len(e.Notes) > 0 {
			note = e.Notes[0]
		}
		s.update(SweepUpdate{Note: note})
	case sweep.PointStarted:
		s.current = e.Label
		s.update(SweepUpdate{Current: s.current})
	case sweep.RunFinished:
		what := "run"
		if e.Run.Warmup {
			what = "warm-up run"
		}
		s.update(SweepUpdate{Current: fmt.Sprintf("%s, %s %d", s.current, what, e.Run.Seq)})
	case sweep.PointClosed:
		s.update(SweepUpdate{Point: s.point(*e.Closed)})
	case sweep.PointEliminated:
		if e.Replayed {
			return // already in the results being resumed
		}
		if p := s.points[e.Point]; p != nil && statusOK(*p) {
			p.Status, p.Reason, p.Changed = rank.StatusEliminated, e.Message, nil
			cp := *p
			s.update(SweepUpdate{Point: &cp})
			return
		}
		s.update(SweepUpdate{Note: e.Kind.String() + ": " + e.Message})
	case sweep.ModuleReload, sweep.SettingsRestored:
		s.update(SweepUpdate{Note: e.Kind.String() + ": " + e.Message})
	}
}

// point folds a visit into the point's record over all visits.
func (s *streamer) point(r results.PointRecord) *results.PointRecord {
	if r.Baseline {
		return &r
	}
	p := s.points[r.Point]
	if p == nil {
		p = &results.PointRecord{}
		s.points[r.Point] = p
	}
	*p = foldVisit(*p, r)
	if s.closed == nil {
		s.closed = map[string]bool{}
	}
	if !s.closed[r.Point] {
		s.closed[r.Point] = true
		s.done++
	}
	cp := *p
	return &cp
}

// foldVisit is the point's record after visit r, given its record prev
// over the earlier visits (zero for none): r's, with the rates of every
// visit, the last interrupt, CPU and baseline figures measured, and the
// first reason the point was excluded. The first reason sticks, as in
// the sweep's own ranking; an elimination gives way to a later failure.
func foldVisit(prev, r results.PointRecord) results.PointRecord {
	p := r
	p.Rates = append(slices.Clone(prev.Rates), r.Rates...)
	if p.IRQsPerMiB == nil {
		p.IRQsPerMiB = prev.IRQsPerMiB
	}
	if p.CPUPerMiB == nil {
		p.CPUPerMiB = prev.CPUPerMiB
	}
	if p.VsBaseline == nil {
		p.VsBaseline = prev.VsBaseline
	}
	if !statusOK(prev) && (prev.Status != rank.StatusEliminated || statusOK(r)) {
		p.Status, p.Reason, p.Changed = prev.Status, prev.Reason, prev.Changed
	}
	return p
}
