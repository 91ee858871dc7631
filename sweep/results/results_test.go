package results_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

func header() results.Header {
	return results.Header{Type: results.TypeHeader, Format: results.Format, Version: results.Version,
		Originals: map[string]string{"USBCMD.ITC": "8"}}
}

func run(session, visit int, point string, rate float64) results.RunRecord {
	return results.RunRecord{Type: results.TypeRun, Session: session, Visit: visit, Point: point,
		Baseline: point == results.BaselineKey, Held: true, Run: results.Measurement{Bytes: 64 << 20, Rate: rate}}
}

func point(session, visit int, key string, status rank.Status) results.PointRecord {
	return results.PointRecord{Type: results.TypePoint, Session: session, Visit: visit, Point: key,
		Baseline: key == results.BaselineKey, Settings: map[string]string{"USBCMD.ITC": strings.TrimPrefix(key, "ITC=")}, Status: status}
}

type syncBuffer struct {
	bytes.Buffer
	syncs int
	fail  error
}

func (s *syncBuffer) Sync() error { s.syncs++; return s.fail }

// The writer puts one JSON object per line and syncs after each, and a
// results file written with it reads back record by record.
func TestWriteAndReadBack(t *testing.T) {
	var buf syncBuffer
	w := results.NewWriter(&buf)
	recs := []any{
		header(),
		run(1, 1, results.BaselineKey, 100), point(1, 1, results.BaselineKey, rank.StatusOK),
		results.EventRecord{Type: results.TypeEvent, Session: 1, Event: results.EventApply, Point: "ITC=1"},
		run(1, 2, "ITC=1", 120), point(1, 2, "ITC=1", rank.StatusOK),
		results.EndRecord{Type: results.TypeEnd, Session: 1, Status: "interrupted", ProbeRuns: 2},
		results.ResumeRecord{Type: results.TypeResume, Session: 2, Live: map[string]string{"USBCMD.ITC": "8"}},
		map[string]any{"type": "calibration", "note": "a record type from a later version"},
		run(2, 3, "ITC=64", 90),
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if buf.syncs != len(recs) {
		t.Errorf("%d syncs for %d records", buf.syncs, len(recs))
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n != len(recs) {
		t.Errorf("%d lines for %d records", n, len(recs))
	}
	res, err := results.Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 || len(res.Points) != 2 || len(res.Events) != 1 || len(res.Ends) != 1 || len(res.Resumes) != 1 {
		t.Errorf("read back %d runs, %d points, %d events, %d ends, %d resumes", len(res.Runs), len(res.Points), len(res.Events), len(res.Ends), len(res.Resumes))
	}
	if res.Sessions() != 2 || res.ProbeRuns() != 3 || res.Header.Originals["USBCMD.ITC"] != "8" {
		t.Errorf("sessions %d, probe runs %d, originals %v", res.Sessions(), res.ProbeRuns(), res.Header.Originals)
	}
	// The run of visit 3 was never closed: it is not a visit.
	vs := res.Visits()
	if len(vs) != 2 || len(vs[2].Runs) != 1 || vs[2].Runs[0].Run.Rate != 120 {
		t.Errorf("visits %+v", vs)
	}
	rk := res.Rank(rank.Policy{})
	if w := rk.Winner(); w == nil || w.Key != "ITC=1" || rk.Baseline.Median != 100 || len(rk.Ranked) != 1 {
		t.Errorf("ranking %+v", rk)
	}

	failing := results.NewWriter(&syncBuffer{fail: errors.New("EIO")})
	if err := failing.Write(header()); err == nil || !strings.Contains(err.Error(), "results: EIO") {
		t.Errorf("failing sync: %v", err)
	}
	if err := results.NewWriter(&bytes.Buffer{}).Write(math.NaN()); err == nil || !strings.HasPrefix(err.Error(), "results: ") {
		t.Errorf("a record JSON cannot hold: %v", err)
	}
	if err := results.NewWriter(errWriter{}).Write(header()); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failing write: %v", err)
	}
}

type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// A damaged or foreign file is refused with the line and the reason; a
// last line cut short by a crash is ignored.
func TestReadRefuses(t *testing.T) {
	h := `{"type":"header","format":"citune-sweep","version":1}`
	for src, want := range map[string]string{
		"":                                    "no header record",
		`{"type":"run","point":"x"}` + "\n":   `line 1: "run" record, want the header`,
		h + "\n" + h + "\n":                   "line 2: a second header",
		h + "\n\n" + `{"type":"point"` + "\n": "line 2: unexpected end of JSON input",
		h + "\n" + `not json` + "\n":          "line 2: invalid character",
		h + "\n" + `{"type":"run","seq":"one"}` + "\n":                 "line 2: json: cannot unmarshal string",
		`{"type":"header","format":"citune-sweep","version":3}` + "\n": "line 1: format \"citune-sweep\" version 3; this citune reads citune-sweep version 1 and 2",
		`{"type":"header","format":"other"}` + "\n":                    `format "other" version 0`,
	} {
		_, err := results.Read(strings.NewReader(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Read(%q) = %v, want %q", src, err, want)
		}
	}
	res, err := results.Read(strings.NewReader(h + "\n" + `{"type":"run","point":"x","held":true,"run":{"rate_bps":5}}` + "\n" + `{"type":"point","poi`))
	if err != nil || len(res.Runs) != 1 || len(res.Points) != 0 {
		t.Errorf("incomplete last line: %v, %+v", err, res)
	}
}

// Load names the file in its errors.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := results.Load(filepath.Join(dir, "none.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := results.Load(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") {
		t.Errorf("bad file: %v, want it named", err)
	}
	good := filepath.Join(dir, "good.jsonl")
	if err := os.WriteFile(good, []byte(`{"type":"header","format":"citune-sweep","version":1,"profile":"imx6q"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := results.Load(good); err != nil || res.Header.Profile != "imx6q" {
		t.Errorf("good file: %v, %+v", err, res)
	}
}

// A new sweep never overwrites measurements: CreateFile refuses a file
// with runs (and a symlink), and replaces one that holds no measurement.
func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.jsonl")
	f, err := results.CreateFile(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"header","format":"citune-sweep","version":1}` + "\n" + `{"type":"event","event":"apply"}` + "\n")
	f.Close()
	// Only a header and an event: replaced.
	f, err = results.CreateFile(p)
	if err != nil {
		t.Fatalf("a file without runs: %v", err)
	}
	f.Close()
	if b, _ := os.ReadFile(p); len(b) != 0 {
		t.Errorf("the replaced file still holds %q", b)
	}
	for _, rec := range []string{`{"type":"run","point":"baseline"}`, `{"type":"point","point":"baseline"}`} {
		if err := os.WriteFile(p, []byte(`{"type":"header"}`+"\n"+rec+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := results.CreateFile(p); !errors.Is(err, results.ErrExists) || !strings.Contains(err.Error(), p) {
			t.Errorf("a file with %s: %v, want ErrExists naming it", rec, err)
		}
	}
	// A symlink is never followed, even to an empty file.
	target := filepath.Join(dir, "empty")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := results.CreateFile(link); !errors.Is(err, results.ErrExists) {
		t.Errorf("symlink: %v, want ErrExists", err)
	}
	if _, err := results.CreateFile(filepath.Join(dir, "no/such/dir/r.jsonl")); err == nil || errors.Is(err, results.ErrExists) {
		t.Errorf("missing directory: %v", err)
	}
}

// Resuming cuts off a line a crash left incomplete and appends after the
// last whole record; a symlink is refused.
func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.jsonl")
	whole := `{"type":"header","format":"citune-sweep","version":1}` + "\n" + `{"type":"run","point":"baseline","held":true}` + "\n"
	if err := os.WriteFile(p, []byte(whole+`{"type":"run","poi`), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := results.OpenAppend(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := results.NewWriter(f).Write(results.ResumeRecord{Type: results.TypeResume, Session: 2}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b, _ := os.ReadFile(p)
	if !strings.HasPrefix(string(b), whole+`{"type":"resume","session":2,`) {
		t.Errorf("after resuming the file holds %q", b)
	}
	res, err := results.Load(p)
	if err != nil || res.Sessions() != 2 {
		t.Errorf("resumed file: %v, %+v", err, res)
	}
	// A whole file is appended to as it is.
	if f, err = results.OpenAppend(p); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if b2, _ := os.ReadFile(p); !bytes.Equal(b, b2) {
		t.Error("opening a whole file for appending changed it")
	}
	if _, err := results.OpenAppend(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if _, err := results.OpenAppend(link); err == nil {
		t.Error("OpenAppend followed a symlink")
	}
}

// When a later session measured a visit again, its closed visit counts;
// an earlier session's record of the same visit is ignored whatever
// order the records come in.
func TestVisitsLatestSessionWins(t *testing.T) {
	res := &results.Results{
		Runs:   []results.RunRecord{run(2, 1, "ITC=1", 200), run(1, 1, "ITC=1", 100)},
		Points: []results.PointRecord{point(2, 1, "ITC=1", rank.StatusOK), point(1, 1, "ITC=1", rank.StatusNotHeld)},
	}
	v := res.Visits()[1]
	if v.Point.Session != 2 || v.Point.Status != rank.StatusOK || len(v.Runs) != 1 || v.Runs[0].Run.Rate != 200 {
		t.Errorf("visit 1 = %+v, want session 2's", v)
	}
}

// Points the adaptive race dropped rank as eliminated, with its reason.
func TestRankEliminated(t *testing.T) {
	res := &results.Results{
		Header: header(),
		Runs:   []results.RunRecord{run(1, 1, results.BaselineKey, 100), run(1, 2, "ITC=1", 120), run(1, 3, "ITC=64", 80)},
		Points: []results.PointRecord{point(1, 1, results.BaselineKey, rank.StatusOK), point(1, 2, "ITC=1", rank.StatusOK),
			point(1, 3, "ITC=64", rank.StatusOK)},
		Events: []results.EventRecord{{Type: results.TypeEvent, Event: results.EventEliminated, Point: "ITC=64", Message: "slower than ITC=1"},
			{Type: results.TypeEvent, Event: results.EventWarning, Point: "ITC=1", Message: "hot"}},
	}
	if e := res.Eliminated(); len(e) != 1 || e["ITC=64"] != "slower than ITC=1" {
		t.Errorf("Eliminated = %v", e)
	}
	rk := res.Rank(rank.Policy{})
	if len(rk.Ranked) != 1 || len(rk.Excluded) != 1 || rk.Excluded[0].Status != rank.StatusEliminated || rk.Excluded[0].Reason != "slower than ITC=1" {
		t.Errorf("ranking %+v", rk)
	}
}

// The board is named by what the user called it, else its model (and
// host); a hostname alone names nothing.
func TestBoardIDString(t *testing.T) {
	for _, c := range []struct {
		b    *results.BoardID
		want string
	}{
		{nil, ""},
		{&results.BoardID{Name: "sabrelite-03", Model: "SABRE Lite", Host: "h"}, "sabrelite-03"},
		{&results.BoardID{Model: "SABRE Lite", Host: "imx6q-03"}, "SABRE Lite (imx6q-03)"},
		{&results.BoardID{Model: "SABRE Lite"}, "SABRE Lite"},
		{&results.BoardID{Host: "laptop"}, ""},
	} {
		if got := c.b.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.b, got, c.want)
		}
	}
}

// Interrupts and CPU per MiB come from the counts and the bytes moved,
// or the probe's own per-MiB figure; nothing counted is unknown, not 0.
func TestMeasurementPerMiB(t *testing.T) {
	for _, c := range []struct {
		m      results.Measurement
		irq    float64
		irqOK  bool
		cpu    float64
		cpuOK  bool
		reason string
	}{
		{results.Measurement{Bytes: 64 << 20, IRQs: 6400, CPU: results.CPUTimes{System: 0.2, IRQ: 0.1, SoftIRQ: 0.02, User: 0.04, Idle: 9}}, 100, true, 5.625, true, "counts over 64 MiB; idle CPU does not count"},
		{results.Measurement{Bytes: 64 << 20, IRQs: 6400, IRQsPerMiB: 90}, 90, true, 0, false, "the probe's own figure wins; no CPU"},
		{results.Measurement{IRQs: 10}, 0, true, 0, false, "no bytes: the per-MiB figure as given"},
		{results.Measurement{Bytes: 1 << 20}, 0, false, 0, false, "nothing counted"},
		{results.Measurement{CPU: results.CPUTimes{System: 1}}, 0, false, 0, false, "CPU but no bytes"},
	} {
		irq, irqOK := c.m.PerMiBIRQs()
		cpu, cpuOK := c.m.PerMiBCPU()
		if irqOK != c.irqOK || math.Abs(irq-c.irq) > 1e-9 || cpuOK != c.cpuOK || math.Abs(cpu-c.cpu) > 1e-9 {
			t.Errorf("%s: irq %v %v, cpu %v %v; want %v %v, %v %v", c.reason, irq, irqOK, cpu, cpuOK, c.irq, c.irqOK, c.cpu, c.cpuOK)
		}
	}
}

// The store counts only measured, held, intact runs; a point that once
// did not hold keeps that status; the pooled noise is taken within
// points of two runs or more.
func TestStore(t *testing.T) {
	s := results.NewStore()
	bl := []results.RunRecord{run(1, 1, results.BaselineKey, 100), run(1, 1, results.BaselineKey, 110)}
	s.AddVisit(point(1, 1, results.BaselineKey, rank.StatusOK), bl)
	warm := run(1, 2, "ITC=1", 999)
	warm.Warmup = true
	moved := run(1, 2, "ITC=1", 998)
	moved.Held = false
	bad := run(1, 2, "ITC=1", 997)
	bad.Run.Corrupt = true
	failed := run(1, 2, "ITC=1", 996)
	failed.Error = "EIO"
	irq := run(1, 2, "ITC=1", 130)
	irq.Run.IRQs, irq.Run.CPU.System = 64, 0.064
	s.AddVisit(point(1, 2, "ITC=1", rank.StatusOK), []results.RunRecord{warm, moved, bad, failed, run(1, 2, "ITC=1", 120), irq})
	if n := s.Runs("ITC=1"); n != 2 {
		t.Errorf("ITC=1 has %d runs, want 2 (warm-up, moved, corrupt and failed runs do not count)", n)
	}
	if p := s.Point("ITC=1"); p == nil || len(p.IRQsPerMiB) != 1 || p.IRQsPerMiB[0] != 1 || len(p.CPUPerMiB) != 1 || p.CPUPerMiB[0] != 1 {
		t.Errorf("point stats %+v", p)
	}
	if s.Runs("ITC=64") != 0 || s.Point("ITC=64") != nil {
		t.Error("an unvisited point has runs")
	}
	if b := s.Baseline(); len(b) != 2 {
		t.Errorf("baseline %v", b)
	}

	// Not held once: the later ok visit does not bring it back.
	nh := point(1, 3, "ITC=64", rank.StatusNotHeld)
	nh.Reason, nh.Changed = "ITC changed", []string{"ITC: 64 -> 8"}
	s.AddVisit(nh, nil)
	s.AddVisit(point(1, 4, "ITC=64", rank.StatusOK), []results.RunRecord{run(1, 4, "ITC=64", 500)})
	if p := s.Point("ITC=64"); p.Status != rank.StatusNotHeld || len(p.Rates) != 0 || p.Changed[0] != "ITC: 64 -> 8" {
		t.Errorf("ITC=64 %+v, want not-held without rates", p)
	}
	// A baseline visit that failed adds nothing.
	s.AddVisit(point(1, 5, results.BaselineKey, rank.StatusFailed), []results.RunRecord{run(1, 5, results.BaselineKey, 1)})
	if len(s.Baseline()) != 2 {
		t.Error("a failed baseline visit was counted")
	}
	// Eliminating a point that is not ok changes nothing.
	s.Eliminate("ITC=64", "slower")
	if s.Point("ITC=64").Status != rank.StatusNotHeld {
		t.Error("elimination overrode not-held")
	}

	sd, dof := s.PooledLogSD()
	want := math.Sqrt((sq(math.Log(100)-math.Log(110)) + sq(math.Log(120)-math.Log(130))) / 2 / 2)
	if dof != 2 || math.Abs(sd-want) > 1e-12 {
		t.Errorf("PooledLogSD = %v, %d; want %v, 2", sd, dof, want)
	}
	if sd, dof := results.NewStore().PooledLogSD(); !math.IsNaN(sd) || dof != 0 {
		t.Errorf("empty store: %v, %d", sd, dof)
	}
	// A zero rate cannot be logged: that point is left out.
	z := results.NewStore()
	z.AddVisit(point(1, 1, "ITC=1", rank.StatusOK), []results.RunRecord{run(1, 1, "ITC=1", 0), run(1, 1, "ITC=1", 5)})
	if _, dof := z.PooledLogSD(); dof != 0 {
		t.Errorf("a zero rate was pooled (dof %d)", dof)
	}

	if m := results.MedianOf(nil); m != nil {
		t.Error("MedianOf(nil) is not nil")
	}
	if m := results.MedianOf([]float64{3, 1, 2}); m == nil || *m != 2 {
		t.Errorf("MedianOf = %v", m)
	}
}

func sq(x float64) float64 { return x * x }

// Among tied points the store ranks first the one that changes fewer of
// the original settings (SetOriginal).
func TestStoreOriginals(t *testing.T) {
	noisy := func(s *results.Store, visit int, key string, settings map[string]string, x float64) {
		p := point(1, visit, key, rank.StatusOK)
		p.Settings = settings
		var rs []results.RunRecord
		for _, f := range []float64{1, 1.03, 0.97, 1.02, 0.98} {
			rs = append(rs, run(1, visit, key, x*f))
		}
		s.AddVisit(p, rs)
	}
	s := results.NewStore()
	noisy(s, 1, results.BaselineKey, nil, 90)
	noisy(s, 2, "a", map[string]string{"AHBBRST": "7", "ITC": "1"}, 100.2)
	noisy(s, 3, "b", map[string]string{"AHBBRST": "2", "ITC": "1"}, 100)
	if w := s.Rank().Winner(); w == nil || w.Key != "a" {
		t.Fatalf("without originals: %+v, want the higher median", w)
	}
	s.SetOriginal(map[string]string{"AHBBRST": "2", "ITC": "8"})
	if w := s.Rank().Winner(); w == nil || w.Key != "b" {
		t.Errorf("with originals: %+v, want b (keeps AHBBRST)", w)
	}
}

// A point record's median is median_bytes_per_s; a file written before
// that name (median_rate) reads the same.
func TestPointMedianNames(t *testing.T) {
	h := `{"type":"header","format":"citune-sweep","version":1,"profile":"imx6q"}`
	for _, k := range []string{"median_rate", "median_bytes_per_s"} {
		res, err := results.Read(strings.NewReader(h + "\n" + `{"type":"point","point":"x","status":"ok","runs":1,"rates":[5],"total_runs":1,"` + k + `":5}` + "\n"))
		if err != nil || len(res.Points) != 1 || res.Points[0].Median != 5 {
			t.Errorf("%s: %v, %+v", k, err, res.Points)
		}
	}
}

// A screening run stays out of its point's rates until a later visit
// admits it (PointRecord.ScreenAdmitted); then it joins them once, as a
// visit of its own, and is no longer a screening rate.
func TestStoreScreenAdmitted(t *testing.T) {
	for _, admit := range []bool{false, true} {
		s := results.NewStore()
		// every run with its interrupts and CPU: admitted, the screening
		// run's join the point's medians with its rate
		withIRQs := func(r results.RunRecord) results.RunRecord {
			r.Run.IRQs, r.Run.CPU.Total, r.Run.CPU.User = 1000, 1, 0.5
			return r
		}
		sc := withIRQs(run(1, 1, "ITC=1", 100))
		sc.Screen = true
		s.AddVisit(point(1, 1, "ITC=1", rank.StatusOK), []results.RunRecord{sc})
		if s.Runs("ITC=1") != 0 || len(s.Screened("ITC=1")) != 1 {
			t.Fatalf("after screening: %d runs, screened %v", s.Runs("ITC=1"), s.Screened("ITC=1"))
		}
		rec := point(1, 2, "ITC=1", rank.StatusOK)
		rec.ScreenAdmitted = admit
		s.AddVisit(rec, []results.RunRecord{withIRQs(run(1, 2, "ITC=1", 110)), withIRQs(run(1, 2, "ITC=1", 120))})
		s.AddVisit(point(1, 3, "ITC=1", rank.StatusOK), []results.RunRecord{withIRQs(run(1, 3, "ITC=1", 130))})
		want, visits, screened := 3, 2, 1
		if admit {
			want, visits, screened = 4, 3, 0
		}
		if p := s.Point("ITC=1"); s.Runs("ITC=1") != want || p.Visits != visits || len(s.Screened("ITC=1")) != screened {
			t.Errorf("admitted %v: %d runs in %d visits (want %d in %d), screened %v", admit, s.Runs("ITC=1"), p.Visits, want, visits, s.Screened("ITC=1"))
		}
		if p := s.Point("ITC=1"); len(p.IRQsPerMiB) != want || len(p.CPUPerMiB) != want {
			t.Errorf("admitted %v: %d interrupt and %d CPU figures for %d runs", admit, len(p.IRQsPerMiB), len(p.CPUPerMiB), want)
		}
	}
}
