package tui

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
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
	modeQuit         // quit dialog
	modeExport       // export prompt
	modeHelp         // the active tab's keys and every tab's
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
	// Quit: the user quit (the program was not killed); Kept: keeping
	// the settings.
	Quit, Kept bool
	// Restored: the restore on the way out ran; Report has a line per
	// field written and Err its error.
	Restored bool
	Report   []string
	Err      error
	// ExportErr holds the exports that failed (a quit would hide them).
	ExportErr error
	// Unchanged: every value the session changed was at its start.
	Unchanged bool
	// Stopped is why the session ended by itself (Session.Stops).
	Stopped error
}

// drift is a value that changed behind the user's back.
type drift struct {
	want, got uint32
}

// shared is what the session's parts share (each holds a pointer).
type shared struct {
	cfg       Config
	keys      keyMap
	st        Styles
	w, h      int
	status    string
	statusErr bool
	m         *regs.Map
	cur       map[uint32]uint32 // last read, by offset
	axes      []regs.Ref        // fields marked as sweep axes
	in        textinput.Model   // the prompts' text input (the editor starts from a copy)
	writing   bool
	wgen      int  // the write generation: a read from before a write is dropped
	resync    bool // the next read starts a new comparison (after writes)
	probing   bool // a probe runs
	sweeping  bool // a sweep runs
}

// component is a tab: its screen below the header, its keys and messages,
// its help line and its own keys in columns for the ? screen.
type component interface {
	View(h int) []string
	Update(msg tea.Msg) tea.Cmd
	ShortHelp() []key.Binding
	FullHelp() [][]key.Binding
}

func (m *Model) active() component {
	return [numTabs]component{&m.regs, &m.probe, &m.sweep}[m.tab]
}

// Model is the root model of the session.
type Model struct {
	*shared
	help help.Model
	tab  tab
	mode mode

	interval time.Duration
	paused   bool
	tgen     int
	// exports counts export writes in flight: quitting waits for them
	// (tea.Quit would not), so q right after one leaves no truncated file.
	exports int

	expW bool // export the sweep winner rather than the current settings
	// expText and expNote are the export's text and the seam's warning,
	// made when what it shows changes, not per frame: for a results file
	// the seam reads and ranks the whole file.
	expText, expNote string
	// expReplace is the export file the user was told exists.
	expReplace string

	regs  regsTab
	probe probeTab
	sweep sweepTab

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
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	st := DefaultStyles()
	if cfg.Mono {
		st = MonoStyles()
	}
	if cfg.Styles != nil {
		st = *cfg.Styles
	}
	h := help.New()
	h.ShortSeparator, h.FullSeparator = "  ", "  "
	h.Ellipsis = " ~"
	h.Styles = st.Help
	in := textinput.New()
	is := textinput.DefaultStyles(true)
	is.Cursor.Blink = false
	in.SetStyles(is)
	in.Prompt = "> "
	m := Model{
		shared: &shared{cfg: cfg, keys: defaultKeyMap(), st: st, w: 80, h: 24, m: cfg.Target.Profile.Map, cur: map[uint32]uint32{}, in: in,
			status: "enter edits the selected field; x marks it for a sweep; ? lists this tab's keys"},
		help:     h,
		interval: cfg.Interval,
	}
	m.probe = probeTab{shared: m.shared, own: defaultProbeKeys(), repeats: 3, mark: -1}
	m.sweep = sweepTab{shared: m.shared, own: defaultSweepKeys()}
	for _, rv := range cfg.Start.Registers {
		m.cur[rv.Offset] = rv.Value
	}
	m.regs = regsTab{shared: m.shared, own: defaultRegsKeys(), rows: buildRows(m.m), desired: map[string]uint32{}, drifts: map[string]drift{}}
	m.regs.sel = m.regs.nextSelectable(0, 1)
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
	return tea.Batch(readRegs(m.cfg.Target, m.m, m.wgen), m.tick())
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
		m.regs.scrollToSel(m.bodyH())
		return m, nil
	case tickMsg:
		if msg.gen != m.tgen || m.paused {
			return m, nil
		}
		cmds := []tea.Cmd{m.tick()}
		if !m.writing {
			cmds = append(cmds, readRegs(m.cfg.Target, m.m, m.wgen))
		}
		return m, tea.Batch(cmds...)
	case regsMsg:
		m.regs.read(msg, m.sweep.plan)
		m.remakeExport()
		return m, nil
	case writeMsg:
		return m.onWrite(msg)
	case restoredMsg:
		m.out.Quit = m.out.Quit || m.out.Stopped != nil
		m.out.Restored = true
		m.out.Report = RestoreReport(msg.restored)
		m.out.Err = msg.err
		return m, tea.Quit
	case probeProgressMsg, probeRunMsg, probeDoneMsg:
		cmd := m.probe.Update(msg)
		if d, ok := msg.(probeDoneMsg); ok && d.id == m.probe.id && m.mode == modeClosing {
			return m.proceedClose()
		}
		return m, cmd
	case sweepMsg, sweepDoneMsg:
		cmd := m.sweep.Update(msg)
		m.remakeExport()
		if d, ok := msg.(sweepDoneMsg); !ok || d.id != m.sweep.id {
			return m, cmd
		}
		m.wgen++
		m.resync = true
		read := readRegs(m.cfg.Target, m.m, m.wgen)
		if m.mode == modeClosing {
			mm, cmd := m.proceedClose()
			return mm, tea.Batch(read, cmd)
		}
		return m, read
	case planMsg:
		return m.onPlan(msg), nil
	case resultsMsg:
		return m.onResults(msg), nil
	case exportMsg:
		m.exports--
		if msg.exists && m.mode != modeClosing {
			m.mode, m.expReplace = modeExport, msg.path
			m.remakeExport()
			m.regs.ed, m.sweep.prompt = nil, promptNone // the prompt replaces a dialog opened meanwhile
			m.in.SetValue(msg.path)
			m.in.CursorEnd()
			m.setErr("%s exists: enter replaces it; edit the name, or esc", msg.path)
			return m, m.in.Focus()
		}
		if msg.err != nil {
			m.setErr("export: %v", msg.err)
			m.out.ExportErr = errors.Join(m.out.ExportErr, fmt.Errorf("export %s: %w", msg.path, msg.err))
		} else {
			m.setStatus("wrote %s (%d lines): device-tree fragment and kernel parameters", msg.path, msg.lines)
		}
		if m.mode == modeClosing {
			return m.proceedClose()
		}
		return m, nil
	case tea.KeyPressMsg:
		return m.onKey(msg)
	}
	switch {
	case m.mode == modeNormal && m.regs.ed != nil:
		return m, m.regs.Update(msg)
	case m.mode == modeExport || m.mode == modeNormal && m.sweep.prompt != promptNone:
		var cmd tea.Cmd
		m.in, cmd = m.in.Update(msg)
		return m, cmd
	}
	return m, nil
}

func (s *shared) setStatus(format string, a ...any) {
	s.status, s.statusErr = fmt.Sprintf(format, a...), false
}

func (s *shared) setErr(format string, a ...any) {
	s.status, s.statusErr = fmt.Sprintf(format, a...), true
}

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
		return m.quitKey(msg)
	case modeExport:
		return m.promptKey(msg)
	}
	if m.regs.ed != nil || m.sweep.prompt != promptNone { // the tab's dialog has every key
		return m, m.active().Update(msg)
	}
	return m.normalKey(msg)
}

// normalKey handles a key outside dialogs: every tab's keys, then the tab's.
func (m Model) normalKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		if len(m.differing()) == 0 && !m.probing && !m.sweeping && !m.writing {
			return m.startClose(closeRestore) // nothing to decide
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
	case key.Matches(msg, k.Registers, k.Probe, k.Sweep):
		tabs := [numTabs]key.Binding{k.Registers, k.Probe, k.Sweep}
		m.tab = tab(slices.IndexFunc(tabs[:], func(b key.Binding) bool { return key.Matches(msg, b) }))
		return m, nil
	case key.Matches(msg, k.Pause, k.Slower, k.Faster):
		return m.refreshKey(msg)
	case key.Matches(msg, k.Export):
		return m.openExport()
	}
	axes := len(m.axes)
	cmd := m.active().Update(msg)
	if m.tab == tabRegs && len(m.axes) != axes {
		m.sweep.setPlanText(m.planFromAxes(), m.m)
	}
	return m, cmd
}

// refreshKey pauses, resumes or changes the rate of the live refresh.
func (m Model) refreshKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Pause):
		m.paused = !m.paused
		m.tgen++
		if m.paused {
			m.setStatus("live refresh paused (p resumes)")
			return m, nil
		}
		m.setStatus("live refresh every %s", m.interval)
		return m, tea.Batch(readRegs(m.cfg.Target, m.m, m.wgen), m.tick())
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
	}
	return m, nil
}
