package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/rank"
)

// The results file is JSON Lines, one record per line with a "type":
// README.md in this directory documents every record.

// Format and Version identify a results file. A model sweep's file is
// VersionAdmits: its visits may admit screening runs among a point's rates
// (PointRecord.ScreenAdmitted), which a reader of version 1 would leave
// out and so mis-rank; it refuses the file instead.
const (
	Format        = "citune-sweep"
	Version       = 1
	VersionAdmits = 2
)

// Readable says whether this citune reads results files of version v.
func Readable(v int) bool { return v == Version || v == VersionAdmits }

// VersionsRead names the versions this citune reads, for messages.
const VersionsRead = "version 1 and 2"

// BaselineKey is the key of the baseline point (the original settings)
// in every record that names a point.
const BaselineKey = "baseline"

// Record types.
const (
	TypeHeader = "header"
	TypeResume = "resume"
	TypeRun    = "run"
	TypePoint  = "point"
	TypeEvent  = "event"
	TypeEnd    = "end"
)

// Header is the first record.
type Header struct {
	Type    string    `json:"type"`
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Started time.Time `json:"started"`
	PID     int       `json:"pid"`
	Command []string  `json:"command"`
	Kernel  string    `json:"kernel"`
	// Boot is the first boot of a sweep across reboots (cmdline: axes).
	Boot        *Boot  `json:"boot,omitempty"`
	Profile     string `json:"profile"`
	ProfileFile string `json:"profile_file,omitempty"`
	Controller  string `json:"controller"`
	Node        string `json:"node"`
	Base        Addr   `json:"base"`
	Target      string `json:"target"`
	TargetPath  string `json:"target_path,omitempty"`
	// Role is the controller's role when the sweep started ("" when the
	// registers do not tell): a regs.Role kept a plain string, so the file
	// format is the file's own.
	Role  string    `json:"role"`
	Probe string    `json:"probe"`
	Plan  plan.Plan `json:"plan"`
	// Originals are the axes' values when the sweep started (the
	// baseline), by axis name.
	Originals map[string]string `json:"originals"`
	Snapshot  soc.Snapshot      `json:"snapshot"`
	// Points are the planned points (grid and ofat in measuring order;
	// adaptive: the candidates).
	Points []PointInfo `json:"points"`
	Notes  []string    `json:"notes,omitempty"`
	// ModParamControllers lists, per module parameter axis, every
	// controller the parameter changes, with its settings where read.
	ModParamControllers map[string][]soc.ParamUser `json:"modparam_controllers,omitempty"`
	// Board identifies the board, for a farm's results compared board by
	// board; absent in older files (an unnamed board).
	Board *BoardID `json:"board,omitempty"`
	// Costs is CostsByData where the data decided the baseline visits and
	// warm-ups (sweep/fixedcost.go); "" in older files (a fixed schedule).
	Costs string `json:"costs,omitempty"`
}

// CostsByData is Header.Costs of a sweep whose fixed costs the data decide.
const CostsByData = "by-data"

// Addr is a bus address, in JSON a hex string ("0x02184200") as every
// --json writes addresses; a number (the first form) is still read.
type Addr uint64

// MarshalJSON writes the address as a hex string.
func (a Addr) MarshalJSON() ([]byte, error) { return json.Marshal(fmt.Sprintf("%#08x", uint64(a))) }

// UnmarshalJSON reads a hex string or a number.
func (a *Addr) UnmarshalJSON(b []byte) error {
	v, err := soc.ParseJSONAddr(b, 64)
	*a = Addr(v)
	return err
}

// BoardID names the board a sweep ran on.
type BoardID struct {
	// Name is what the user called it (sweep --board, $CITUNE_BOARD):
	// a LAVA device name, a lab label.
	Name string `json:"name,omitempty"`
	// Model is the device tree's model string (real hardware only).
	Model string `json:"model,omitempty"`
	// Host is the hostname of the machine the sweep ran on.
	Host string `json:"host,omitempty"`
}

// String is the board's name, else "MODEL (HOST)" or the model; "" when
// neither is known (a hostname alone does not name a board: a simulated
// controller runs on any machine).
func (b *BoardID) String() string {
	switch {
	case b == nil:
		return ""
	case b.Name != "":
		return b.Name
	case b.Model != "" && b.Host != "":
		return b.Model + " (" + b.Host + ")"
	case b.Model != "":
		return b.Model
	}
	return ""
}

// PointInfo describes a planned point.
type PointInfo struct {
	Key      string            `json:"point"`
	Settings map[string]string `json:"settings"`
	Ignored  []string          `json:"ignored,omitempty"`
	Note     string            `json:"note,omitempty"`
	// Group is the number of grid combinations this point stands for
	// (more than 1 when settings the hardware ignores were grouped).
	Group int `json:"group,omitempty"`
}

// ResumeRecord starts a later session of the same sweep.
type ResumeRecord struct {
	Type    string    `json:"type"`
	Session int       `json:"session"`
	Started time.Time `json:"started"`
	PID     int       `json:"pid"`
	Command []string  `json:"command"`
	// Live are the axes' values when this session started (restored at
	// its end); the baseline stays the header's originals.
	Live map[string]string `json:"live"`
	// Boot is the boot this session runs in (a cmdline: sweep).
	Boot *Boot `json:"boot,omitempty"`
}

// Boot is one boot of a sweep across reboots: the kernel, its command
// line, its boot_id and how many boots of the sweep it is.
type Boot struct {
	Kernel  string `json:"kernel"`
	Cmdline string `json:"cmdline"`
	BootID  string `json:"boot_id"`
	Count   int    `json:"count"`
}

// RunRecord is one probe run.
type RunRecord struct {
	Type     string    `json:"type"`
	Session  int       `json:"session"`
	Visit    int       `json:"visit"`
	Point    string    `json:"point"`
	Baseline bool      `json:"baseline,omitempty"`
	Seq      int       `json:"seq"`
	Warmup   bool      `json:"warmup,omitempty"`
	Time     time.Time `json:"time"`
	// SimTime is the simulated board's modelled time of the run (a sweep
	// on a SimClock only); Time stays the wall clock.
	SimTime *time.Time  `json:"sim_time,omitempty"`
	Run     Measurement `json:"run"`
	// Held is false when a swept setting changed during the run;
	// Changed says what.
	Held    bool     `json:"held"`
	Changed []string `json:"changed,omitempty"`
	Error   string   `json:"error,omitempty"`
	// Screen marks a screening run taken without the plan's warm-ups: it
	// decides whether the point races on, not among the point's rates.
	Screen bool `json:"screen,omitempty"`
}

// Kind names the run as messages do: "warm-up run", "screening run" or "run".
func (r RunRecord) Kind() string {
	switch {
	case r.Warmup:
		return "warm-up run"
	case r.Screen:
		return "screening run"
	}
	return "run"
}

// Applied is one setting as applied at the start of a visit.
type Applied struct {
	Name     string `json:"name"`
	Want     string `json:"want"`
	Readback string `json:"readback"`
	// Old and New are the raw register values (register axes).
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
}

// PointRecord closes one visit of a point: its status, what was applied,
// and the statistics over all the point's ok runs so far.
type PointRecord struct {
	Type     string            `json:"type"`
	Session  int               `json:"session"`
	Visit    int               `json:"visit"`
	Point    string            `json:"point"`
	Baseline bool              `json:"baseline,omitempty"`
	Settings map[string]string `json:"settings"`
	Ignored  []string          `json:"ignored,omitempty"`
	Note     string            `json:"note,omitempty"`
	Status   rank.Status       `json:"status"`
	Reason   string            `json:"reason,omitempty"`
	Changed  []string          `json:"changed,omitempty"`
	Applied  []Applied         `json:"applied,omitempty"`
	Reloaded bool              `json:"reloaded,omitempty"`
	// ScreenAdmitted: the point's screening runs join its rates from this
	// visit on (a model sweep once the data showed no first-run effect:
	// sweep/fixedcost.go).
	ScreenAdmitted bool `json:"screen_admitted,omitempty"`
	// Runs are this visit's measured runs; Total is the point's over all
	// visits.
	Runs   int       `json:"runs"`
	Rates  []float64 `json:"rates"`
	Total  int       `json:"total_runs"`
	Median float64   `json:"median_bytes_per_s"`
	Unit   string    `json:"unit,omitempty"`
	// Compared with the baseline runs so far (absent for the baseline).
	VsBaseline *rank.Comparison `json:"vs_baseline,omitempty"`
	IRQsPerMiB *float64         `json:"irqs_per_mib,omitempty"`
	CPUPerMiB  *float64         `json:"cpu_ms_per_mib,omitempty"`
}

// EventRecord notes something that happened: a module reload, a
// restore, an elimination in the adaptive race, a warning.
type EventRecord struct {
	Type    string     `json:"type"`
	Session int        `json:"session"`
	Time    time.Time  `json:"time"`
	SimTime *time.Time `json:"sim_time,omitempty"` // as RunRecord's
	Event   string     `json:"event"`
	Point   string     `json:"point,omitempty"`
	Message string     `json:"message"`
	// Model is the fit of a model-mode sweep (EventModel).
	Model *ModelFit `json:"model,omitempty"`
}

// Events.
const (
	EventReload     = "reload"
	EventRestore    = "restore"
	EventEliminated = "eliminated"
	EventWarning    = "warning"
	EventApply      = "apply" // a visit starts: the point's settings are about to be written
	// EventSecondLook: the verdict's second look begins; Point is the
	// point it measures again, the only one that look may recommend.
	EventSecondLook = "second-look"
	// EventModel: a model-mode sweep fitted its model (Model); the last
	// one is the sweep's.
	EventModel = "model"
	// EventBaselineSchedule: after a baseline visit the sweep decided
	// when to visit the original settings next, by their drift.
	EventBaselineSchedule = "baseline-schedule"
	// EventWarmups: the visits' first runs decided to skip warm-ups
	// (no first-run effect) or to take them again.
	EventWarmups = "warmups"
)

// The statuses a session ends with, and StatusUnfinished for a file whose
// last session has no end record (killed with -9, or still running).
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
	StatusUnfinished  = "unfinished"
	// StatusAborted closes a sweep `citune sweep --abort` stopped (a
	// reboot sweep that would resume at the next boot): settings and boot
	// arguments put back, no resume left, the last session's number and no
	// probe runs of its own. Decision: an explicit `sweep --resume` may
	// still continue it; nothing resumes it by itself.
	StatusAborted = "aborted"
)

// EndRecord closes a session.
type EndRecord struct {
	Type         string     `json:"type"`
	Session      int        `json:"session"`
	Time         time.Time  `json:"time"`
	SimTime      *time.Time `json:"sim_time,omitempty"` // as RunRecord's
	Status       string     `json:"status"`             // StatusComplete, StatusInterrupted, StatusFailed or StatusAborted
	Error        string     `json:"error,omitempty"`
	Restored     bool       `json:"restored"`
	RestoreError string     `json:"restore_error,omitempty"`
	// ProbeRuns counts this session's probe runs (warm-ups included);
	// TotalProbeRuns all sessions'.
	ProbeRuns      int `json:"probe_runs"`
	TotalProbeRuns int `json:"total_probe_runs"`
	// Budget is an adaptive race's cap in probe runs of the grid's
	// GridRuns (a share too small to race was raised); OutOfBudget is the
	// points still racing when it ran out, ranked on the runs they had.
	Budget      int          `json:"budget_runs,omitempty"`
	GridRuns    int          `json:"grid_runs,omitempty"`
	OutOfBudget int          `json:"out_of_budget,omitempty"`
	Ranking     rank.Ranking `json:"ranking"`
}

// Results is a results file read back.
type Results struct {
	Header  Header
	Resumes []ResumeRecord
	Runs    []RunRecord
	Points  []PointRecord
	Events  []EventRecord
	Ends    []EndRecord
	// pointLines are the record numbers of Points.
	pointLines []int
}

// Load reads a results file. An incomplete last line (a crash while
// writing) is ignored.
func Load(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}

// Read reads results records from r.
func Read(r io.Reader) (*Results, error) {
	var res Results
	br := bufio.NewReader(r)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 && b[len(b)-1] != '\n' {
			break // incomplete last line
		}
		if len(bytes.TrimSpace(b)) > 0 {
			line++
			if err := res.add(line, b); err != nil {
				return nil, err
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	if res.Header.Type != TypeHeader {
		return nil, fmt.Errorf("not a citune sweep results file (no header record)")
	}
	return &res, nil
}

func (res *Results) add(line int, b []byte) error {
	var t struct{ Type string }
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("line %d: %v", line, err)
	}
	var err error
	switch t.Type {
	case TypeHeader:
		if line != 1 {
			return fmt.Errorf("line %d: a second header", line)
		}
		err = json.Unmarshal(b, &res.Header)
		if err == nil && (res.Header.Format != Format || !Readable(res.Header.Version)) {
			return fmt.Errorf("line 1: format %q version %d; this citune reads %s %s", res.Header.Format, res.Header.Version, Format, VersionsRead)
		}

	// One case per type, not a generic decoder: its five instantiations
	// cost the ARMv7 binary 4 KiB of read-only data (./release).
	case TypeResume:
		res.Resumes = append(res.Resumes, ResumeRecord{})
		err = json.Unmarshal(b, &res.Resumes[len(res.Resumes)-1])
	case TypeRun:
		res.Runs = append(res.Runs, RunRecord{})
		err = json.Unmarshal(b, &res.Runs[len(res.Runs)-1])
	case TypePoint:
		res.Points = append(res.Points, PointRecord{})
		err = json.Unmarshal(b, &res.Points[len(res.Points)-1])
		res.pointLines = append(res.pointLines, line)
	case TypeEvent:
		res.Events = append(res.Events, EventRecord{})
		err = json.Unmarshal(b, &res.Events[len(res.Events)-1])
	case TypeEnd:
		res.Ends = append(res.Ends, EndRecord{})
		err = json.Unmarshal(b, &res.Ends[len(res.Ends)-1])
	default:
		// Unknown record types are skipped: later versions may add some.
	}
	if err != nil {
		return fmt.Errorf("line %d: %v", line, err)
	}
	if line == 1 && t.Type != TypeHeader {
		return fmt.Errorf("line 1: %q record, want the header", t.Type)
	}
	return nil
}

// Sessions is the number of sessions recorded (1 + resumes).
func (res *Results) Sessions() int { return 1 + len(res.Resumes) }

// visitKey identifies one visit of one session.
type visitKey struct{ session, visit int }

// Visits returns, per visit number, the latest session's closed visit:
// its point record and its run records. Runs of visits that were never
// closed (interrupted) are left out.
func (res *Results) Visits() map[int]ClosedVisit {
	runs := map[visitKey][]RunRecord{}
	for _, r := range res.Runs {
		k := visitKey{r.Session, r.Visit}
		runs[k] = append(runs[k], r)
	}
	out := map[int]ClosedVisit{}
	for _, p := range res.Points {
		k := visitKey{p.Session, p.Visit}
		if prev, ok := out[p.Visit]; ok && prev.Point.Session > p.Session {
			continue
		}
		out[p.Visit] = ClosedVisit{Point: p, Runs: runs[k]}
	}
	return out
}

// VisitsInOrder are Visits by visit number.
func (res *Results) VisitsInOrder() []ClosedVisit {
	vs := res.Visits()
	var out []ClosedVisit
	for _, n := range slices.Sorted(maps.Keys(vs)) {
		out = append(out, vs[n])
	}
	return out
}

// ClosedVisit is a finished visit read back.
type ClosedVisit struct {
	Point PointRecord
	Runs  []RunRecord
}

// Eliminated returns the points the adaptive race dropped.
func (res *Results) Eliminated() map[string]string {
	out := map[string]string{}
	for _, e := range res.Events {
		if e.Event == EventEliminated {
			out[e.Point] = e.Message
		}
	}
	return out
}

// Models are the model fits a model-mode sweep recorded, in order.
func (res *Results) Models() []*ModelFit {
	var out []*ModelFit
	for _, e := range res.Events {
		if e.Event == EventModel && e.Model != nil {
			out = append(out, e.Model)
		}
	}
	return out
}

// SecondLook is the point the verdict's second look measured again
// ("" when the sweep took none).
func (res *Results) SecondLook() string {
	for _, e := range res.Events {
		if e.Event == EventSecondLook {
			return e.Point
		}
	}
	return ""
}

// ProbeRuns counts every probe run recorded (warm-ups included), in
// closed and interrupted visits alike.
func (res *Results) ProbeRuns() int { return len(res.Runs) }

// Rank ranks the points from the recorded runs, as the sweep did, and
// decides the verdict under pol (its MinGainPct as the plan recorded it
// unless the caller overrides it).
func (res *Results) Rank(pol rank.Policy) rank.Ranking {
	st := NewStore()
	st.original = res.Header.Originals
	if pol.SecondLook == "" {
		pol.SecondLook = res.SecondLook()
	}
	st.policy = pol
	for _, v := range res.VisitsInOrder() {
		st.AddVisit(v.Point, v.Runs)
	}
	for k, msg := range res.Eliminated() {
		st.Eliminate(k, msg)
	}
	return st.Rank()
}
