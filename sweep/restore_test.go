package sweep_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/sweep/sweeptest"
	"github.com/citune/citune/undo"
)

// journalWatch fails the test if a register is written before the
// journal holds its original.
type journalWatch struct {
	regs.Accessor
	t       *testing.T
	path    string
	checked bool
}

func (w *journalWatch) Write32(off, v uint32) error {
	if !w.checked {
		w.checked = true
		j, err := undo.Load(w.path)
		if err != nil || len(j.Entries) != 1 || len(j.Entries[0].Fields) == 0 {
			w.t.Errorf("first write at %#x before the journal has the originals: %v %+v", off, err, j)
		}
	}
	return w.Accessor.Write32(off, v)
}

func TestCancelInTheMiddleOfAPointRestoresTheImage(t *testing.T) {
	tg, img := imageTarget(t, "imx6q")
	before, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3", "TXPBURST=8,32", "RXPBURST=8,32")
	tg.Intercept(func(a regs.Accessor) regs.Accessor { return &journalWatch{Accessor: a, t: t, path: s.journal} })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.land.Before = func(n int) {
		if n == 8 { // the second run of the second point
			cancel()
		}
	}
	out, err := s.runner.Run(ctx)
	if !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("error %v, want ErrInterrupted", err)
	}
	if out.Status != results.StatusInterrupted || !out.Restored {
		t.Errorf("outcome %+v", out)
	}
	after, _ := os.ReadFile(img)
	if !bytes.Equal(before, after) {
		t.Errorf("image differs after the interrupted sweep")
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left after a restore: %v", err)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 2 { // baseline and the first point
		t.Errorf("%d point records, want 2", len(res.Points))
	}
	if e := res.Ends[0]; e.Status != results.StatusInterrupted || !strings.Contains(e.Error, "resume") {
		t.Errorf("end %+v", e)
	}
}

func TestResumeDoesNotRedoFinishedPoints(t *testing.T) {
	tg, _ := imageTarget(t, "imx6q")
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3,7", "TXPBURST=8,16")
	s.runner.Plan.BaselineEvery = 2
	// No verdict's second look (TestConfirm tests it): the visits are
	// the plan's alone.
	noConfirm := 50.0
	s.runner.Plan.MinGain = &noConfirm
	ctx, cancel := context.WithCancel(context.Background())
	s.land.Before = func(n int) {
		if n == 11 {
			cancel()
		}
	}
	if _, err := s.runner.Run(ctx); !errors.Is(err, sweep.ErrInterrupted) {
		t.Fatal(err)
	}
	first, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	closed := len(first.Points)

	// A crash may leave half a line behind.
	f, err := os.OpenFile(s.out, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"run","sess`)
	f.Close()

	f, err = results.OpenAppend(s.out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prev, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	land := &sweeptest.Landscape{Target: tg, Seed: 3}
	r2 := &sweep.Config{Target: tg, Prober: land, Plan: s.runner.Plan, Out: results.NewWriter(f), Resume: prev, Journal: s.journal}
	out, err := r2.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := results.Load(s.out)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resumes) != 1 || res.Sessions() != 2 {
		t.Fatalf("resumes %+v", res.Resumes)
	}
	// Points: 2 with AHBBRST=0, 1 each for 3 and 7: 4, plus baselines
	// first, after every 2 points and last: 4 points + 3 baselines = 7
	// visits of 3 runs.
	if got := len(res.Visits()); got != 7 {
		t.Errorf("%d closed visits, want 7", got)
	}
	for _, p := range res.Points {
		if p.Session == 2 && p.Visit <= closed {
			t.Errorf("visit %d (%s) measured again", p.Visit, p.Point)
		}
	}
	if land.Runs != (7-closed)*3 {
		t.Errorf("second session probed %d runs, want %d", land.Runs, (7-closed)*3)
	}
	if out.TotalProbeRuns != len(res.Runs) {
		t.Errorf("total %d, records %d", out.TotalProbeRuns, len(res.Runs))
	}
	// RXPBURST stays 0 (0.85 on the landscape): AHBBRST=7 (0.955) wins.
	if res.Rank(rank.Policy{}).Winner().Key != "SBUSCFG.AHBBRST=7" {
		t.Errorf("winner %+v", res.Rank(rank.Policy{}).Winner())
	}

	// A different plan is refused.
	p2 := s.runner.Plan
	p2.Repeats = 4
	r3 := &sweep.Config{Target: tg, Prober: land, Plan: p2, Out: results.NewWriter(&bytes.Buffer{}), Resume: res}
	if _, err := r3.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "plan differs") {
		t.Errorf("error %v", err)
	}
}

// failingWrites fails the n-th register write.
type failingWrites struct {
	regs.Accessor
	n, count int
}

func (f *failingWrites) Write32(off, v uint32) error {
	f.count++
	if f.count == f.n {
		return errors.New("bus error")
	}
	return f.Accessor.Write32(off, v)
}

func TestAnErrorRestoresAndIsRecorded(t *testing.T) {
	tg, img := imageTarget(t, "imx6q")
	before, _ := os.ReadFile(img)
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3", "ITC=1,8")
	tg.Intercept(func(a regs.Accessor) regs.Accessor { return &failingWrites{Accessor: a, n: 4} })
	out, err := s.runner.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "bus error") || errors.Is(err, sweep.ErrInterrupted) {
		t.Fatalf("error %v", err)
	}
	if out.Status != results.StatusFailed || !out.Restored {
		t.Errorf("outcome %+v", out)
	}
	if after, _ := os.ReadFile(img); !bytes.Equal(before, after) {
		t.Error("image not restored after the error")
	}
	if _, err := os.Stat(s.journal); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("journal left: %v", err)
	}
	res, _ := results.Load(s.out)
	if e := res.Ends[0]; e.Status != results.StatusFailed || !strings.Contains(e.Error, "bus error") || !e.Restored {
		t.Errorf("end %+v", e)
	}
}

func TestProbeFailures(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3,7")
	// One failed run fails its point; the sweep goes on.
	s.land.Fail = func(n int) error {
		if n == 4 {
			return errors.New("device vanished")
		}
		return nil
	}
	out, err := s.runner.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Ranking.Excluded) != 1 || out.Ranking.Excluded[0].Status != rank.StatusFailed || !strings.Contains(out.Ranking.Excluded[0].Reason, "device vanished") {
		t.Errorf("excluded %+v", out.Ranking.Excluded)
	}
	// Three failed points in a row end the sweep, restored.
	s = newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3,7")
	s.land.Fail = func(n int) error {
		if n > 3 {
			return errors.New("device vanished")
		}
		return nil
	}
	out, err = s.runner.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "3 points in a row failed") || out.Status != results.StatusFailed || !out.Restored {
		t.Fatalf("error %v, outcome %+v", err, out)
	}
}

func TestCancelDuringAProbeRun(t *testing.T) {
	tg := simTarget(t, "imx6q", soc.SimOptions{ResetValues: true})
	before := snapshot(t, tg)
	s := newRunner(t, tg, plan.ModeGrid, "AHBBRST=0,3")
	ctx, cancel := context.WithCancel(context.Background())
	s.land.Before = func(n int) {
		if n == 5 {
			s.land.Block = true
			cancel() // the run in progress sees its context end
		}
	}
	out, err := s.runner.Run(ctx)
	if !errors.Is(err, sweep.ErrInterrupted) || !out.Restored {
		t.Fatalf("error %v, outcome %+v", err, out)
	}
	if after := snapshot(t, tg); !slices.Equal(before.Registers, after.Registers) {
		t.Error("registers not restored")
	}
}
