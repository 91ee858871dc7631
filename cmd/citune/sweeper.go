package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/event"
	"github.com/citune/citune/sweep/host"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// sweepKit is the one wiring of every sweep of a command, for `citune
// sweep` and the TUI's Sweep tab (tui.Sweeper) alike.
type sweepKit struct {
	t      *soc.Target
	series probe.Probe // the probe with accounting and cross-run data checks
	name   string
	sim    *probe.SimProbe // the sim probe on the simulated controller
	host   *host.Host      // nil: register axes only
	u      *undo.Session   // the sweep writes through it
	root   fs.FS           // where the device tree is read (paramUsers)
	cmd    []string
	kernel string
}

// newSweepKit wires the probe pr (with env) into sweeps on t.
func (a *app) newSweepKit(t *soc.Target, pr probe.Probe, env probe.Env, h *host.Host, u *undo.Session, root fs.FS, cmd []string) *sweepKit {
	k := &sweepKit{t: t, series: probe.NewSeries(pr, env), name: pr.Name(), host: h, u: u, root: root, cmd: cmd, kernel: a.kernel()}
	if sp, ok := pr.(*probe.SimProbe); ok && t.Simulated() {
		// This machine's kernel plays no part in the figures: none named.
		k.sim, k.kernel = sp, ""
	}
	return k
}

// runner builds the runner of pl (resuming prev when not nil). With the
// sim probe on the simulated controller it runs on the simulated board's
// clock (modelled times, nothing sleeps); other probes take wall time.
func (k *sweepKit) runner(pl plan.Plan, prev *results.Results) *sweep.Config {
	r := &sweep.Config{ParamUsers: paramUsers(k.root, k.t.Profile, k.t, pl), Target: k.t, Prober: k.series, ProbeName: k.name,
		Plan: pl, Host: k.host, Session: k.u, Kernel: k.kernel, Resume: prev, Command: k.cmd}
	if k.sim != nil {
		r.Clock = sweep.NewSimClock(time.Now(), k.sim)
	}
	return r
}

// tuiSweeper is the TUI's tui.Sweeper: each plan's results go to a file
// of their own (out, then out-2, out-3...); running the plan stopped last
// again resumes it from its file.
type tuiSweeper struct {
	kit *sweepKit
	out string
	// fresh: out is the default name, which two sessions started in the
	// same second share: a plan's file is created exclusively (createFresh).
	fresh bool

	mu      sync.Mutex
	path    string // results file of the current plan
	planKey string
	n       int
}

// Run implements tui.Sweeper.
func (s *tuiSweeper) Run(ctx context.Context, in plan.Plan, resume bool, onEvent func(event.Event)) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pl := in
	if pl.Mode == "" {
		pl.Mode = plan.DefaultPlan().Mode
	}
	pl.SetDefaultBudget() // as citune sweep
	pl.Axes = slices.Clone(in.Axes)
	var words []string
	for _, ax := range pl.Axes {
		words = append(words, ax.Spec())
	}
	key := fmt.Sprintf("%s mode=%s repeat=%d budget=%g", strings.Join(words, " "), pl.Mode, pl.Repeats, pl.Budget)
	var prev *results.Results
	if resume && key == s.planKey && s.path != "" {
		var err error
		if prev, err = results.Load(s.path); err != nil {
			return "", err
		}
	} else {
		s.planKey = key
	}
	r := s.kit.runner(pl, prev)
	r.OnEvent = onEvent
	var f io.Closer
	var err error
	switch {
	case prev != nil:
		f, err = r.OpenOut(s.path)
	case s.fresh:
		var fh *os.File
		if fh, _, err = createNew(s.next); err == nil {
			r.Out, f = results.NewWriter(fh), fh
		}
	default:
		s.next()
		f, err = r.OpenOut(s.path)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	_, err = r.Run(ctx)
	if errors.Is(err, sweep.ErrInterrupted) {
		err = errors.Join(context.Canceled, err)
	}
	return s.path, err
}

// next names the next plan's file: out, then out-2, out-3...
func (s *tuiSweeper) next() string {
	s.n++
	s.path = s.out
	if s.n > 1 {
		ext := filepath.Ext(s.out)
		s.path = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(s.out, ext), s.n, ext)
	}
	return s.path
}

// freshName is base+ext, or base-2+ext, base-3+ext... whichever does not
// exist yet.
func freshName(base, ext string) string {
	name := base + ext
	for i := 2; ; i++ {
		if _, err := os.Lstat(name); errors.Is(err, fs.ErrNotExist) {
			return name
		}
		name = fmt.Sprintf("%s-%d%s", base, i, ext)
	}
}

// createFresh creates the first of freshName's names that does not exist,
// exclusively: of two sweeps started in the same second each gets a file
// of its own (freshName alone leaves a window between the look and the
// create, and results.CreateFile takes over a file holding only a header).
func createFresh(base, ext string) (*os.File, string, error) {
	return createNew(func() string { return freshName(base, ext) })
}

// createNew creates, exclusively, the first name next gives that another
// sweep or session has not taken.
func createNew(next func() string) (*os.File, string, error) {
	for {
		name := next()
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, name, err
		}
	}
}

// tuiSweepOut is the default results file of the TUI's first sweep: a
// new tui-sweep-DATE-TIME.jsonl in the state directory (created when
// missing), beside the journal: results are worth keeping, not for /tmp.
func tuiSweepOut(journal string, now time.Time) (string, error) {
	dir := filepath.Dir(journal)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("state directory for the TUI's sweep results: %w (give --sweep-out)", err)
	}
	return freshName(filepath.Join(dir, "tui-sweep-"+now.Format("20060102-150405")), ".jsonl"), nil
}
