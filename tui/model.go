package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/undo"
)

type tab int

const (
	tabRegs tab = iota
	tabProbe
	tabSweep
	numTabs
)

var tabNames = [numTabs]string{"Registers", "Probe", "Sweep"}

type mode int

const (
	modeNormal  mode = iota
	modeEdit         // field editor
	modeQuit         // quit dialog
	modeExport       // export prompt
	modePlan         // plan text prompt
	modeLoad         // plan file prompt
	modeHelp         // all keys
	modeClosing      // stopping jobs and restoring on the way out
)

type closing int

const (
	closeNone closing = iota
	closeRestore
	closeKeep
)

// intervals are the refresh intervals the user can pick.
var intervals = []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// Outcome says how a session ended.
type Outcome struct {
	// Quit is set when the user quit (not when the program was killed).
	Quit bool
	// Kept is set when the user chose to keep the settings.
	Kept bool
	// Restored is set when the restore on the way out ran; Report has a
	// line per field written and Err its error.
	Restored bool
	Report   []string
	Err      error
	// Unchanged is set when the session quit with every value it ever
	// changed at its start (nothing to restore or keep).
	Unchanged bool
}

// drift is a value that changed behind the user's back.
type drift struct {
	want, got uint32
}

// Model is the root model of the session.
type Model struct {
	cfg  Config
	keys KeyMap
	st   Styles
	help help.Model
	w, h int
	tab  tab
	mode mode

	m     *regs.Map
	cur   map[uint32]uint32 // last read, by offset
	prev  map[uint32]uint32 // the read before
	reads int
	rows  []row
	sel   int
	top   int

	interval time.Duration
	paused   bool
	tgen     int
	wgen     int
	writing  bool
	resync   bool              // the next read starts a new comparison (after writes)
	desired  map[string]uint32 // what the user set, by ref key
	drifts   map[string]drift
	axes     []regs.Ref // fields marked as sweep axes

	status    string
	statusErr bool

	ed   editor
	in   textinput.Model
	expW bool // export the sweep winner rather than the current settings

	probe probeState
	sweep sweepState

	closing closing
	out     Outcome
}

// New returns the session model for cfg.
func New(cfg Config) Model {
	if cfg.Ctx == nil {
		cfg.Ctx = context.Background()
	}
	if cfg.Jobs == nil {
		cfg.Jobs = &sync.WaitGroup{}
	}
	if cfg.Undo == nil {
		id, _ := cfg.Target.ID()
		u, err := undo.Open(undo.Options{Target: id, Owner: undo.Self(undo.KindTUI, nil), Acc: cfg.Target.Accessor(), Map: cfg.Target.Profile.Map})
		if err != nil {
			panic(err) // a session without a journal takes no lock and cannot fail
		}
		cfg.Undo = u
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	keys := DefaultKeyMap()
	if cfg.Keys != nil {
		keys = *cfg.Keys
	}
	st := DefaultStyles()
	if cfg.Mono {
		st = MonoStyles()
	}
	if cfg.Styles != nil {
		st = *cfg.Styles
	}
	h := help.New()
	h.ShortSeparator = "  "
	h.Ellipsis = " ~"
	h.Styles = st.Help
	in := textinput.New()
	is := textinput.DefaultStyles(true)
	is.Cursor.Blink = false
	in.SetStyles(is)
	in.Prompt = "> "
	m := Model{
		cfg: cfg, keys: keys, st: st, help: h, w: 80, h: 24,
		m:        cfg.Target.Profile.Map,
		cur:      map[uint32]uint32{},
		interval: cfg.Interval,
		desired:  map[string]uint32{},
		drifts:   map[string]drift{},
		in:       in,
		probe:    probeState{repeats: 3, mark: -1},
		status:   "enter edits the selected field; x marks it for a sweep; ? lists every key",
	}
	for _, rv := range cfg.Start.Registers {
		m.cur[rv.Offset] = rv.Value
	}
	m.rows = buildRows(m.m)
	m.sel = m.nextSelectable(0, 1)
	if cfg.Prober == nil && cfg.NoProbe == "" {
		m.cfg.NoProbe = "no probe configured"
	}
	if cfg.Sweeper == nil && cfg.NoSweep == "" {
		m.cfg.NoSweep = "no sweeper configured"
	}
	return m
}

// Outcome reports how the session ended.
func (m Model) Outcome() Outcome { return m.out }

// Init starts the first read and the refresh schedule.
func (m Model) Init() tea.Cmd {
	return tea.Batch(readRegs(m.cfg.Target.Acc, m.m, m.wgen), m.tick())
}

// Update handles one message.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		// A serial console often reports 0x0 (stty rows 0 cols 0): assume
		// the 80x24 it almost always is.
		w, h := msg.Width, msg.Height
		if w <= 0 {
			w = 80
		}
		if h <= 0 {
			h = 24
		}
		m.w, m.h = max(w, 40), max(h, 12)
		m.help.SetWidth(m.w)
		m.in.SetWidth(max(10, m.w-10))
		m.scrollToSel()
		return m, nil
	case tickMsg:
		if msg.gen != m.tgen || m.paused {
			return m, nil
		}
		cmds := []tea.Cmd{m.tick()}
		if !m.writing {
			cmds = append(cmds, readRegs(m.cfg.Target.Acc, m.m, m.wgen))
		}
		return m, tea.Batch(cmds...)
	case regsMsg:
		return m.onRegs(msg), nil
	case writeMsg:
		return m.onWrite(msg)
	case restoredMsg:
		m.out.Restored = true
		m.out.Report = RestoreReport(msg.restored)
		m.out.Err = msg.err
		return m, tea.Quit
	case probeProgressMsg, probeRunMsg, probeDoneMsg:
		return m.onProbe(msg)
	case sweepMsg, sweepDoneMsg:
		return m.onSweep(msg)
	case planMsg:
		return m.onPlan(msg), nil
	case exportMsg:
		if msg.err != nil {
			m.setErr("export: %v", msg.err)
		} else {
			m.setStatus("wrote %s (%d lines): device-tree fragment and kernel parameters", msg.path, msg.lines)
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	if m.mode == modeExport || m.mode == modePlan || m.mode == modeLoad || m.mode == modeEdit && m.ed.onInput() {
		var cmd tea.Cmd
		if m.mode == modeEdit {
			m.ed.in, cmd = m.ed.in.Update(msg)
		} else {
			m.in, cmd = m.in.Update(msg)
		}
		return m, cmd
	}
	return m, nil
}

func (m *Model) setStatus(format string, a ...any) {
	m.status, m.statusErr = fmt.Sprintf(format, a...), false
}

func (m *Model) setErr(format string, a ...any) {
	m.status, m.statusErr = fmt.Sprintf(format, a...), true
}

// onRegs takes a fresh read, and finds values that changed behind the
// user's back.
func (m Model) onRegs(msg regsMsg) Model {
	if msg.err != nil {
		m.setErr("reading registers: %v", msg.err)
		return m
	}
	if msg.wgen != m.wgen || m.writing {
		return m // raced a write: a fresh read follows the write
	}
	m.prev = m.cur
	m.cur = map[uint32]uint32{}
	for _, rv := range msg.snap.Registers {
		m.cur[rv.Offset] = rv.Value
	}
	m.reads++
	if m.reads == 1 || m.resync {
		// Our own writes (and a sweep's restore) are not changes
		// behind the user's back.
		m.prev, m.resync = nil, false
	}
	var fresh []string
	sweeping := m.sweep.running
	for i := range m.m.Registers {
		r := &m.m.Registers[i]
		for j := range r.Fields {
			f := &r.Fields[j]
			ref := regs.Ref{Reg: r, Field: f}
			k := refKey(ref)
			if sweeping && m.sweep.plan.has(ref) {
				continue
			}
			got := f.Get(m.cur[r.Offset])
			if want, ok := m.desired[k]; ok {
				if got != want {
					if _, had := m.drifts[k]; !had {
						fresh = append(fresh, k)
					}
					m.drifts[k] = drift{want: want, got: got}
				} else {
					delete(m.drifts, k)
				}
				continue
			}
			if !f.Knob {
				continue
			}
			if d, ok := m.drifts[k]; ok {
				if got == d.want {
					delete(m.drifts, k)
				} else {
					d.got = got
					m.drifts[k] = d
				}
				continue
			}
			if m.prev != nil {
				if was := f.Get(m.prev[r.Offset]); was != got {
					m.drifts[k] = drift{want: was, got: got}
					fresh = append(fresh, k)
				}
			}
		}
	}
	if len(fresh) > 0 {
		ref, _ := m.m.Lookup(fresh[0])
		d := m.drifts[fresh[0]]
		m.setErr("! %s changed behind your back: was %d, reads %d. %s", ref, d.want, d.got, m.why(ref))
	}
	return m
}

// why explains who rewrites a field: the profile's knob text, else the
// register's note.
func (m Model) why(ref regs.Ref) string {
	if ref.Reg == nil {
		return ""
	}
	if ref.Field != nil {
		if k := m.cfg.Target.Profile.Knob(ref); k != nil && k.Driver != "" {
			return k.Driver
		}
	}
	if ref.Reg.Note != "" {
		return ref.Reg.Note
	}
	if m.cfg.Target.Profile.Emulated {
		return "The emulator ignores writes to some registers."
	}
	return "Something else (the driver, a controller reset) wrote the register."
}

// onWrite takes the result of an apply or revert.
func (m Model) onWrite(msg writeMsg) (tea.Model, tea.Cmd) {
	m.writing = false
	m.wgen++
	m.resync = true
	read := readRegs(m.cfg.Target.Acc, m.m, m.wgen)
	var ok, bad []string
	for _, r := range msg.results {
		for _, c := range r.Changes {
			k := refKey(c.Ref)
			var mm *regs.Mismatch
			for i := range r.Mismatches {
				if sameRef(r.Mismatches[i].Ref, c.Ref) {
					mm = &r.Mismatches[i]
				}
			}
			if mm != nil {
				bad = append(bad, fmt.Sprintf("%s DID NOT STICK: %s. %s", c.Ref, mm, m.why(c.Ref)))
				delete(m.desired, k)
				continue
			}
			delete(m.drifts, k)
			if msg.revert {
				delete(m.desired, k)
			} else {
				m.desired[k] = c.Value
			}
			got := r.Readback
			if c.Ref.Field != nil {
				got = c.Ref.Field.Get(r.Readback)
			}
			ok = append(ok, fmt.Sprintf("%s=%d (reads %d)", c.Ref, c.Value, got))
		}
	}
	for _, r := range msg.restored {
		k := strings.ToUpper(r.Name)
		if !r.Held {
			bad = append(bad, fmt.Sprintf("%s DID NOT RETURN: %s", r.Name, r))
			continue
		}
		delete(m.drifts, k)
		delete(m.desired, k)
		if r.Wrote {
			ok = append(ok, fmt.Sprintf("%s=%s (reads %s)", r.Name, r.Want, r.Got))
		}
	}
	if msg.revert {
		for _, ref := range msg.refs {
			delete(m.desired, refKey(ref))
			delete(m.drifts, refKey(ref))
		}
	}
	switch {
	case msg.err != nil:
		m.setErr("%s: %v", msg.what, msg.err)
	case len(bad) > 0:
		m.setErr("%s", strings.Join(bad, "; "))
	case len(ok) == 0 && msg.revert:
		m.setStatus("%s: nothing to do, the values are already the starting ones", msg.what)
	case msg.revert:
		m.setStatus("%s: %s, read back ok", msg.what, strings.Join(ok, ", "))
	default:
		m.setStatus("applied %s, read back ok", strings.Join(ok, ", "))
	}
	if m.mode == modeClosing {
		mm, cmd := m.proceedClose()
		return mm, tea.Batch(read, cmd)
	}
	return m, read
}

// onKey routes a key press by mode.
func (m Model) onKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if key.Matches(msg, k.ForceQuit) && m.mode != modeClosing {
		return m.startClose(closeRestore)
	}
	switch m.mode {
	case modeClosing:
		return m, nil
	case modeHelp:
		m.mode = modeNormal
		return m, nil
	case modeQuit:
		switch {
		case key.Matches(msg, k.RestoreQuit):
			return m.startClose(closeRestore)
		case key.Matches(msg, k.KeepQuit):
			return m.startClose(closeKeep)
		case key.Matches(msg, k.Cancel, k.Quit):
			m.mode = modeNormal
		}
		return m, nil
	case modeEdit:
		return m.editKey(msg)
	case modeExport, modePlan, modeLoad:
		return m.promptKey(msg)
	}
	switch {
	case key.Matches(msg, k.Quit):
		if len(m.differing()) == 0 && !m.probe.running && !m.sweep.running {
			// Nothing to decide: every value is at its start.
			return m.startClose(closeRestore)
		}
		m.mode = modeQuit
		return m, nil
	case key.Matches(msg, k.Help):
		m.mode = modeHelp
		return m, nil
	case key.Matches(msg, k.NextTab):
		m.tab = (m.tab + 1) % numTabs
		return m, nil
	case key.Matches(msg, k.PrevTab):
		m.tab = (m.tab + numTabs - 1) % numTabs
		return m, nil
	case key.Matches(msg, k.Registers):
		m.tab = tabRegs
		return m, nil
	case key.Matches(msg, k.Probe):
		m.tab = tabProbe
		return m, nil
	case key.Matches(msg, k.Sweep):
		m.tab = tabSweep
		return m, nil
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		m.tgen++
		if m.paused {
			m.setStatus("live refresh paused (p resumes)")
			return m, nil
		}
		m.setStatus("live refresh every %s", m.interval)
		return m, tea.Batch(readRegs(m.cfg.Target.Acc, m.m, m.wgen), m.tick())
	case key.Matches(msg, k.Slower, k.Faster):
		i := 0
		for i < len(intervals)-1 && intervals[i] < m.interval {
			i++
		}
		if key.Matches(msg, k.Slower) {
			i = min(i+1, len(intervals)-1)
		} else {
			i = max(i-1, 0)
		}
		m.interval = intervals[i]
		m.tgen++
		m.setStatus("live refresh every %s", m.interval)
		if m.paused {
			return m, nil
		}
		return m, m.tick()
	case key.Matches(msg, k.Export):
		return m.openExport()
	}
	switch m.tab {
	case tabRegs:
		return m.regsKey(msg)
	case tabProbe:
		return m.probeKey(msg)
	case tabSweep:
		return m.sweepKey(msg)
	}
	return m, nil
}

// startClose stops background jobs, then restores (or keeps) and quits.
func (m Model) startClose(c closing) (tea.Model, tea.Cmd) {
	m.closing = c
	m.mode = modeClosing
	m.out.Quit = true
	m.out.Kept = c == closeKeep
	m.out.Unchanged = len(m.differing()) == 0
	if m.probe.cancel != nil {
		m.probe.cancel()
	}
	if m.sweep.cancel != nil {
		m.sweep.cancel()
	}
	return m.proceedClose()
}

// proceedClose quits once no job runs any more.
func (m Model) proceedClose() (tea.Model, tea.Cmd) {
	if m.probe.running || m.sweep.running {
		m.setStatus("stopping the running probe or sweep first...")
		return m, nil
	}
	if m.closing == closeKeep {
		return m, tea.Quit
	}
	if m.writing {
		return m, nil // onWrite brings us back here
	}
	m.setStatus("restoring the starting values...")
	m.writing = true
	return m, restoreAll(m.cfg.Undo)
}

// View renders the screen.
func (m Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	if !m.cfg.Mono {
		v.WindowTitle = "citune " + m.cfg.Target.Controller.Label
	}
	return v
}

// render draws exactly h lines of at most w columns.
func (m Model) render() string {
	bodyH := m.h - 3
	var body []string
	switch m.mode {
	case modeQuit, modeClosing:
		body = m.quitView(bodyH)
	case modeHelp:
		body = m.helpView(bodyH)
	case modeExport:
		body = m.exportView(bodyH)
	case modeEdit:
		body = m.editView(bodyH)
	default:
		switch m.tab {
		case tabRegs:
			body = m.regsView(bodyH)
		case tabProbe:
			body = m.probeView(bodyH)
		case tabSweep:
			body = m.sweepView(bodyH)
		}
	}
	body = padLines(body, m.w, bodyH)
	lines := make([]string, 0, m.h)
	lines = append(lines, m.headerView())
	lines = append(lines, body...)
	lines = append(lines, m.statusView(), m.helpLine(m.shortHelp()))
	return strings.Join(lines, "\n")
}

func (m Model) headerView() string {
	t := m.cfg.Target
	kind := "/dev/mem"
	switch t.Kind {
	case soc.KindSim:
		kind = "SIMULATED"
	case soc.KindFile:
		kind = "image"
	}
	left := fmt.Sprintf("%s %s %#x %s", t.Profile.Name, t.Controller.Label, t.Controller.Base, kind)
	var tabs []string
	for i := tab(0); i < numTabs; i++ {
		name := fmt.Sprintf("%d %s", i+1, tabNames[i])
		if i == m.tab && m.mode != modeHelp {
			tabs = append(tabs, m.st.TabActive.Render("["+name+"]"))
		} else {
			tabs = append(tabs, m.st.Tab.Render(" "+name+" "))
		}
	}
	right := "live " + m.interval.String()
	if m.paused {
		right = "PAUSED"
	}
	if m.probe.running {
		right = "PROBE " + right
	}
	if m.sweep.running {
		right = "SWEEP " + right
	}
	tabW := 0
	for i := tab(0); i < numTabs; i++ {
		tabW += len(tabNames[i]) + 4
	}
	tabW += int(numTabs) - 1
	room := m.w - tabW - 2 - len(right) - 1
	if room < 12 {
		right = ""
		room = m.w - tabW - 2
	}
	return m.st.Header.Render(fit(left, room)) + "  " + strings.Join(tabs, " ") + " " + right
}

// helpLine renders as many bindings as fit in one line, "~" marking
// that more exist (? lists them all).
func (m Model) helpLine(bs []key.Binding) string {
	var b strings.Builder
	n := 0
	for _, k := range bs {
		if !k.Enabled() {
			continue
		}
		h := k.Help()
		item := h.Key + " " + h.Desc
		sep := ""
		if n > 0 {
			sep = "  "
		}
		if n+len(sep)+len(item) > m.w-2 {
			if n+2 <= m.w {
				b.WriteString(" ~")
			}
			break
		}
		b.WriteString(sep + m.st.Help.ShortKey.Render(h.Key) + " " + m.st.Help.ShortDesc.Render(h.Desc))
		n += len(sep) + len(item)
	}
	return b.String()
}

func (m Model) statusView() string {
	s := fit(m.status, m.w)
	if m.statusErr {
		return m.st.Error.Render(s)
	}
	return m.st.Status.Render(s)
}

// shortHelp is the help line for what is on screen.
func (m Model) shortHelp() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeQuit:
		return []key.Binding{k.RestoreQuit, k.KeepQuit, k.Cancel}
	case modeClosing:
		return nil
	case modeHelp:
		return []key.Binding{key.NewBinding(key.WithKeys("esc"), key.WithHelp("any key", "back"))}
	case modeEdit:
		return []key.Binding{k.Move, k.Apply, k.Cancel}
	case modeExport:
		return []key.Binding{k.Apply, k.Switch, k.Cancel}
	case modePlan, modeLoad:
		return []key.Binding{k.Apply, k.Cancel}
	}
	switch m.tab {
	case tabProbe:
		return []key.Binding{k.Run, k.Stop, k.Runs, k.Move, k.Mark, k.NextTab, k.Quit, k.Help, k.Export}
	case tabSweep:
		return []key.Binding{k.Run, k.Stop, k.Plan, k.Load, k.Chart, k.Move, k.NextTab, k.Quit, k.Help, k.Export}
	}
	return []key.Binding{k.Move, k.Edit, k.Revert, k.RevertAll, k.Axis, k.NextTab, k.Quit, k.Help, k.Pause, k.Rate, k.Export}
}

func (m Model) quitView(h int) []string {
	var out []string
	out = append(out, m.st.Title.Render("Quit citune tui"), "")
	diff := m.differing()
	if len(diff) == 0 {
		out = append(out, "Every value is at its start.")
	} else {
		out = append(out, fmt.Sprintf("%d value(s) differ from their start:", len(diff)))
		for _, ref := range diff {
			out = append(out, cut(fmt.Sprintf("  %-26s start %-10d now %d", ref.String(), m.startValue(ref), m.nowValue(ref)), m.w))
		}
	}
	out = append(out, "")
	if m.sweep.running || m.probe.running {
		out = append(out, cut("A probe or sweep is running: it is stopped first (a sweep restores its own values).", m.w), "")
	}
	if m.mode == modeClosing {
		out = append(out, fit(m.status, m.w))
		return out
	}
	out = append(out,
		cut("  r or enter  restore the starting values and quit (default)", m.w),
		cut("  k           keep the current settings and quit", m.w))
	if m.cfg.Undo.Journal() != "" {
		out = append(out, cut("              (the journal keeps the originals: `citune restore` undoes them)", m.w))
	}
	out = append(out, cut("  esc         stay", m.w))
	return out
}

func (m Model) helpView(h int) []string {
	out := []string{m.st.Title.Render("Keys"), ""}
	out = append(out, m.keyColumns(m.keys.FullHelp())...)
	out = append(out, "",
		"Flags in the Registers tab (the column headed *RS!x):",
		"  *  tuning knob            R  differs from the reset value",
		"  S  differs from the value at the start of this session",
		"  !  changed behind your back (the detail pane says who does that)",
		"  x  marked as a sweep axis",
		"Leaving restores the starting values unless you choose keep; so does a",
		"closed terminal (SIGHUP).")
	for i := range out {
		out[i] = cut(out[i], m.w)
	}
	return out
}

// keyColumns lays the bindings out in columns, two spaces apart, without
// the help bubble's truncation: every key of the session fits 80 columns
// (the help screen test checks it).
func (m Model) keyColumns(cols [][]key.Binding) []string {
	type cell struct{ k, d string }
	var grid [][]cell
	rows := 0
	var kw, dw []int
	for _, col := range cols {
		var cs []cell
		w1, w2 := 0, 0
		for _, b := range col {
			if !b.Enabled() {
				continue
			}
			h := b.Help()
			cs = append(cs, cell{h.Key, h.Desc})
			w1, w2 = max(w1, len(h.Key)), max(w2, len(h.Desc))
		}
		grid = append(grid, cs)
		kw, dw = append(kw, w1), append(dw, w2)
		rows = max(rows, len(cs))
	}
	var out []string
	for r := 0; r < rows; r++ {
		var b strings.Builder
		for c, cs := range grid {
			if c > 0 {
				b.WriteString("  ")
			}
			k, d := "", ""
			if r < len(cs) {
				k, d = cs[r].k, cs[r].d
			}
			b.WriteString(m.st.Help.FullKey.Render(fmt.Sprintf("%-*s", kw[c], k)) + " " + m.st.Help.FullDesc.Render(fmt.Sprintf("%-*s", dw[c], d)))
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	return out
}

// differing lists the values the session changed that differ from their
// start now (a value changed and changed back is not listed).
func (m Model) differing() []regs.Ref {
	var out []regs.Ref
	for _, ref := range m.cfg.Undo.Touched() {
		if m.nowValue(ref) != m.startValue(ref) {
			out = append(out, ref)
		}
	}
	return out
}

// nowValue is ref's value as last read.
func (m Model) nowValue(ref regs.Ref) uint32 {
	now := m.cur[ref.Reg.Offset]
	if ref.Field != nil {
		now = ref.Field.Get(now)
	}
	return now
}

// startValue is ref's value when the session first changed it, or, for a
// field it has not changed, its value in the starting snapshot.
func (m Model) startValue(ref regs.Ref) uint32 {
	if v, ok := m.cfg.Undo.StartValue(ref); ok {
		return v
	}
	raw, _ := m.cfg.Start.Value(ref.Reg.Name)
	if ref.Field == nil {
		return raw
	}
	return ref.Field.Get(raw)
}
