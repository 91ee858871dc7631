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

	"github.com/citune/citune/probe"
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// LoadPlanFile reads a sweep plan file (TOML, as `citune sweep --plan`).
func LoadPlanFile(path string, m *regs.Map) (SweepPlan, error) {
	pf, axes, err := plan.ReadPlanFile(m, path)
	if err != nil {
		return SweepPlan{}, err
	}
	sp := plan.DefaultPlan()
	if err := pf.Apply(&sp); err != nil {
		return SweepPlan{}, fmt.Errorf("%s: %w", path, err)
	}
	sp.Axes = axes
	// The rules citune sweep --plan has (plan.Check); the fields may be
	// chosen on screen later.
	if err := sp.CheckSettings(); err != nil {
		return SweepPlan{}, fmt.Errorf("%s: %w", path, err)
	}
	return SweepPlan{Plan: sp, Source: filepath.Base(path)}, nil
}

// SweepRunner is the Sweeper of package sweep: it runs plans with
// sweep.Runner (journal, held checks, restore on every exit path), which
// writes the results to a JSONL file and hands its events (event.Event)
// to the TUI as they happen. Stopping and starting the same plan again resumes it from
// that file.
type SweepRunner struct {
	Target    *soc.Target
	Prober    probe.Probe
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
	// Now is the sweep's clock (default time.Now): the times of its
	// events, from which the TUI tells how long the sweep has run (tests
	// give a fixed clock so that screens do not depend on the machine's
	// speed).
	Now func() time.Time
	// NewClock, when set, gives each sweep the simulated board's clock
	// (citune tui --sim with the sim probe, as citune sweep): its runs,
	// settle pauses and reloads take their modelled time, nothing
	// sleeps, and the sweep's times are the board's, not this machine's.
	NewClock func() *sweep.SimClock

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
func (s *SweepRunner) Run(ctx context.Context, in plan.Plan, resume bool, onEvent func(event.Event)) (string, *sweep.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := in
	if sp.Mode == "" {
		sp.Mode = plan.DefaultPlan().Mode
	}
	sp.SetDefaultBudget() // as citune sweep
	var keyParts []string
	sp.Axes = slices.Clone(in.Axes)
	for _, ax := range sp.Axes {
		keyParts = append(keyParts, ax.Spec())
	}
	if s.Adjust != nil {
		s.Adjust(&sp)
	}
	key := fmt.Sprintf("%s mode=%s repeat=%d budget=%g", strings.Join(keyParts, " "), sp.Mode, sp.Repeats, sp.Budget)

	var res *results.Results
	if resume && key == s.planKey && s.path != "" {
		var err error
		if res, err = results.Load(s.path); err != nil {
			return "", nil, err
		}
	} else {
		s.n++
		s.path = s.newPath()
		s.planKey = key
	}

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
		OnEvent: onEvent, Command: s.Command, Kernel: s.Kernel, Resume: res, Now: s.Now}
	if s.NewClock != nil {
		r.Clock = s.NewClock()
	}
	f, err := r.OpenOut(s.path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	outcome, err := r.Run(ctx)
	if errors.Is(err, sweep.ErrInterrupted) {
		err = errors.Join(context.Canceled, err)
	}
	return s.path, outcome, err
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
