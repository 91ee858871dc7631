package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

func TestBadFiles(t *testing.T) {
	grid, err := os.ReadFile("testdata/grid.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := grid[:bytes.IndexByte(grid, '\n')+1]
	lines := bytes.SplitAfter(grid, []byte("\n"))
	damaged := bytes.Join([][]byte{lines[0], lines[1], lines[2][:30], []byte("\n"), lines[3]}, nil)
	cases := []struct {
		name, data, want string
	}{
		{"empty", "", "empty: not a citune sweep results file"},
		{"blank", "\n\n", "empty: not a citune sweep results file"},
		{"csv", "file,profile,point\nr.jsonl,imx6q,baseline\n", `not a citune sweep results file: line 1 is not a JSON record (it starts "file,profile,point")`},
		{"other json", `{"kind":"citune-snapshot","version":1}` + "\n", `not a citune sweep results file: line 1 is JSON but not a sweep header`},
		{"other format", `{"type":"header","format":"fio","version":1}` + "\n", `not a citune sweep results file: its header says format "fio"`},
		{"newer", `{"type":"header","format":"citune-sweep","version":3}` + "\n", "results file version 3: this citune reads version 1 and 2"},
		{"header cut", string(first[:200]), "truncated: the file ends inside its header record (200 bytes)"},
		{"header damaged", string(first[:200]) + "\n" + string(lines[1]), "damaged: the header record (line 1) is incomplete"},
		{"line damaged", string(damaged), "damaged: line 3 is not a complete JSON record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("x.jsonl", []byte(c.data), LoadOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.jsonl: ") {
				t.Fatalf("got %v, want x.jsonl: ...%s", err, c.want)
			}
		})
	}
}

func TestInterrupted(t *testing.T) {
	for _, name := range []string{"interrupted", "killed"} {
		s := load(t, name)[0]
		if len(s.Ranked) != 4 || s.Planned != 12 || len(s.Missing) != 8 {
			t.Errorf("%s: %d ranked of %d planned, %d missing", name, len(s.Ranked), s.Planned, len(s.Missing))
		}
		if s.InProgress != "ITC=64 AHBBRST=0 (1 run recorded, not counted)" {
			t.Errorf("%s: in progress %q", name, s.InProgress)
		}
		if s.Baseline == nil || s.Winner() == nil || s.DTS == "" {
			t.Errorf("%s: no baseline, winner or fragment", name)
		}
	}
	s := load(t, "killed")[0]
	if s.State != "unfinished" || !slices.ContainsFunc(s.Warnings, func(w string) bool { return strings.Contains(w, "cut off") }) {
		t.Errorf("killed: state %q, warnings %q", s.State, s.Warnings)
	}
	if s := load(t, "interrupted")[0]; s.State != "interrupted" || !strings.Contains(s.StateDetail, "interrupted") {
		t.Errorf("interrupted: state %q %q", s.State, s.StateDetail)
	}
	// Resumed: the second session finished the points, without redoing
	// the first one's.
	s = load(t, "resumed")[0]
	if s.State != "complete" || s.Sessions != 2 || len(s.Ranked) != 12 || len(s.Missing) != 0 || s.InProgress != "" {
		t.Errorf("resumed: state %q, %d sessions, %d ranked, missing %q, in progress %q", s.State, s.Sessions, len(s.Ranked), s.Missing, s.InProgress)
	}
}

func TestFind(t *testing.T) {
	s := load(t, "grid")[0]
	for _, c := range []struct{ name, want, err string }{
		{"ITC=8 AHBBRST=7", "ITC=8 AHBBRST=7", ""},
		{"AHBBRST=7,ITC=8", "ITC=8 AHBBRST=7", ""},
		{"usbcmd.itc=8 sbuscfg.ahbbrst=0x7", "ITC=8 AHBBRST=7", ""},
		{"USBCMD.ITC=8 SBUSCFG.AHBBRST=7", "ITC=8 AHBBRST=7", ""},
		{"#1", "ITC=1 AHBBRST=3", ""},
		{"ITC=1 AHBBRST=2", "ITC=1 AHBBRST=2", ""}, // not held: shown with its status
		{"ITC=8", "", "matches 4 points"},
		{"ITC=5", "", "no such point"},
		{"TXPBURST=8", "", "TXPBURST was not swept (axes: ITC, AHBBRST)"},
		{"#99", "", "no such rank"},
		{"ITC", "", "want NAME=VALUE"},
	} {
		p, err := s.Find(c.name)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("Find(%q): %v, want %q", c.name, err, c.err)
			}
		case err != nil || p == nil || p.Label != c.want:
			t.Errorf("Find(%q) = %v, %v; want %s", c.name, p, err, c.want)
		}
	}
	if p, err := s.Find("baseline"); p != nil || err != nil {
		t.Errorf("Find(baseline) = %v, %v", p, err)
	}
}

func TestEffects(t *testing.T) {
	// One factor at a time: TXPBURST=16 is the point that changed it
	// (with AHBBRST=0 as its condition), not the points that left it
	// alone; the original values stand for the baseline.
	s := load(t, "ofat")[0]
	for _, e := range s.Effects() {
		for _, v := range e.Values {
			switch {
			case v.Original && e.Axis.Label == "ITC":
				if !v.Baseline || v.Pct != 0 {
					t.Errorf("ITC=%s: %+v, want the baseline", v.Value, v)
				}
			case e.Axis.Label == "TXPBURST" && !v.Original:
				if v.Points != 1 {
					t.Errorf("TXPBURST=%s: %d points, want 1", v.Value, v.Points)
				}
			case e.Axis.Label == "AHBBRST" && v.Value == "0":
				if v.Points != 1 {
					t.Errorf("AHBBRST=0: %d points, want 1 (not the burst-size points that needed it)", v.Points)
				}
			}
		}
	}
	// A grid: the median over every point with the value.
	s = load(t, "imx6ul")[0]
	effs := s.Effects()
	if effs[0].Axis.Label != "ITC" || effs[0].Values[0].Points != 4 || !effs[0].Values[0].Best {
		t.Errorf("grid effects: %+v", effs[0])
	}
}

func TestLabelsUnique(t *testing.T) {
	ss := []*Sweep{{File: "a/r.jsonl"}, {File: "b/r.jsonl"}, {File: "c.jsonl"}}
	uniqueLabels(ss)
	if ss[0].Label != "a/r" || ss[1].Label != "b/r" || ss[2].Label != "c" {
		t.Errorf("labels %q %q %q", ss[0].Label, ss[1].Label, ss[2].Label)
	}
}

// A point whose visit admitted its screening runs (screen_admitted)
// shows the runs it is ranked on: its runs, spread and interrupts count
// the admitted screening run, as the sweep's ranking does.
func TestScreenAdmittedRuns(t *testing.T) {
	s := load(t, "admitted")[0]
	res, err := results.Load(filepath.Join("testdata", "admitted.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rk := res.Rank(rank.Policy{MinGainPct: res.Header.Plan.MinGainPct()})
	runs := map[string]int{}
	for _, p := range rk.Ranked {
		runs[p.Key] = p.Runs
	}
	admitted := 0
	for _, p := range s.Ranked {
		if p.Runs() != runs[p.Key] {
			t.Errorf("%s: %d runs shown, ranked on %d", p.Label, p.Runs(), runs[p.Key])
		}
		if runs[p.Key] == 5 && p.Runs() == 5 {
			admitted++
		}
	}
	if admitted != len(s.Ranked) {
		t.Errorf("%d of %d ranked points show the plan's 5 runs", admitted, len(s.Ranked))
	}
}
