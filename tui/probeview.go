package tui

import (
	"context"
	"fmt"

	"github.com/citune/citune/units"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// probeState is the Probe tab.
type probeState struct {
	id      int
	running bool
	cancel  context.CancelFunc
	ch      chan tea.Msg
	repeats int

	run, of     int
	done, total int64

	last    *results.Measurement
	lastErr string
	hist    []history
	sel     int
	mark    int // the row compared against (A), -1 for the first row
}

// history is every run measured with one setting.
type history struct {
	setting string
	runs    []results.Measurement // good runs
	corrupt int
	dropped int // runs whose setting changed while they ran
}

func (h history) rates() []float64 {
	var r []float64
	for _, x := range h.runs {
		r = append(r, x.Rate)
	}
	return r
}

// unit is the unit of the rates (the probe's: "" for bytes per second).
func (h history) unit() string {
	if len(h.runs) == 0 {
		return ""
	}
	return h.runs[0].Unit
}

// medianRate is the median of the rates, as the Probe tab shows it.
func (m Model) medianRate(h history) string {
	return m.fmtRate(rank.Median(h.rates()), h.unit())
}

func (h history) avg(f func(results.Measurement) float64) float64 {
	var xs []float64
	for _, x := range h.runs {
		xs = append(xs, f(x))
	}
	return mean(xs)
}

// settingLabel names a setting by the knob fields that differ from the
// starting snapshot ("start" when none do), e.g. "ITC=0 AHBBRST=0".
func settingLabel(m *regs.Map, start soc.Snapshot, raw map[uint32]uint32) string {
	var parts []string
	for i := range m.Registers {
		r := &m.Registers[i]
		sv, ok := start.Value(r.Name)
		v, ok2 := raw[r.Offset]
		if !ok || !ok2 {
			continue
		}
		for j := range r.Fields {
			f := &r.Fields[j]
			if f.Knob && f.Get(v) != f.Get(sv) {
				parts = append(parts, fmt.Sprintf("%s=%d", shortName(m, regs.Ref{Reg: r, Field: f}), f.Get(v)))
			}
		}
	}
	if len(parts) == 0 {
		return "start"
	}
	return strings.Join(parts, " ")
}

// shortName is the bare field name when it is unique in m, else REG.FIELD.
func shortName(m *regs.Map, ref regs.Ref) string {
	if ref.Field == nil {
		return ref.Reg.Name
	}
	if got, err := m.Lookup(ref.Field.Name); err == nil && sameRef(got, ref) {
		return ref.Field.Name
	}
	return ref.String()
}

func (m Model) probeKey(msg tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	p := &m.probe
	switch {
	case key.Matches(msg, k.Run):
		return m.startProbe()
	case key.Matches(msg, k.Stop):
		if !p.running {
			m.setStatus("no probe is running")
			return m, nil
		}
		p.cancel()
		m.setStatus("stopping the probe...")
	case key.Matches(msg, k.More):
		p.repeats = min(p.repeats+1, 50)
		m.setStatus("%d runs per r", p.repeats)
	case key.Matches(msg, k.Fewer):
		p.repeats = max(p.repeats-1, 1)
		m.setStatus("%d runs per r", p.repeats)
	case key.Matches(msg, k.Up):
		p.sel = max(0, p.sel-1)
	case key.Matches(msg, k.Down):
		p.sel = max(0, min(len(p.hist)-1, p.sel+1))
	case key.Matches(msg, k.Mark):
		if len(p.hist) == 0 {
			m.setStatus("no runs yet: r runs the probe")
			return m, nil
		}
		p.mark = p.sel
		m.setStatus("%q is now A: the comparison shows the selected row against it", p.hist[p.sel].setting)
	}
	return m, nil
}

func (m Model) startProbe() (tea.Model, tea.Cmd) {
	p := &m.probe
	switch {
	case m.cfg.Prober == nil:
		m.setErr("probing is not available: %s", m.cfg.NoProbe)
		return m, nil
	case p.running:
		m.setErr("a probe is already running (s stops it)")
		return m, nil
	case m.sweep.running:
		m.setErr("a sweep is running; it probes by itself")
		return m, nil
	case m.writing:
		m.setErr("a write is in flight; try again in a moment")
		return m, nil
	}
	ctx, cancel := context.WithCancel(m.cfg.Ctx)
	p.id++
	p.running, p.cancel = true, cancel
	p.run, p.of, p.done, p.total = 0, p.repeats, 0, 0
	p.lastErr = ""
	p.ch = make(chan tea.Msg, 16)
	m.setStatus("probing: %d run(s) of %s", p.repeats, m.cfg.Prober.Name())
	fn := probeJob(ctx, m.cfg.Prober, m.cfg.Target, m.m, m.cfg.Start, p.id, p.repeats)
	return m, job(m.cfg.Ctx, m.cfg.Jobs, p.ch, fn)
}

func (m Model) onProbe(msg tea.Msg) (tea.Model, tea.Cmd) {
	p := &m.probe
	switch msg := msg.(type) {
	case probeProgressMsg:
		if msg.id != p.id {
			return m, nil
		}
		p.run, p.of, p.done, p.total = msg.run, msg.of, msg.done, msg.total
	case probeRunMsg:
		if msg.id != p.id {
			return m, nil
		}
		p.run, p.of = msg.run, msg.of
		if msg.err != nil {
			p.lastErr = msg.err.Error()
			m.setErr("probe run %d/%d: %v", msg.run, msg.of, msg.err)
			break
		}
		res := msg.res
		p.last = &res
		i := p.row(msg.setting)
		h := &p.hist[i]
		switch {
		case msg.after != msg.setting:
			h.dropped++
			m.setErr("! run %d not counted: the setting changed while it ran (%s -> %s); see the Registers tab", msg.run, msg.setting, msg.after)
		case res.Corrupt:
			h.corrupt++
			m.setErr("CORRUPT data in run %d (%s): %s", msg.run, msg.setting, res.Detail)
		default:
			h.runs = append(h.runs, res)
			m.setStatus("run %d/%d with %s: %s", msg.run, msg.of, msg.setting, m.fmtRate(res.Rate, res.Unit))
		}
		p.sel = i
	case probeDoneMsg:
		if msg.id != p.id {
			return m, nil
		}
		p.running = false
		p.cancel()
		if m.mode == modeClosing {
			return m.proceedClose()
		}
		return m, nil
	}
	return m, listen(p.ch)
}

// row returns the history row of setting, adding it if needed.
func (p *probeState) row(setting string) int {
	for i, h := range p.hist {
		if h.setting == setting {
			return i
		}
	}
	p.hist = append(p.hist, history{setting: setting})
	return len(p.hist) - 1
}

func (m Model) probeView(h int) []string {
	p := m.probe
	w := m.w
	var out []string
	if m.cfg.Prober == nil {
		out = append(out, wrapStyled(m.st.Error, "Probing is not available: "+m.cfg.NoProbe, w)...)
	} else {
		out = append(out, m.st.Title.Render(cut("Probe: "+m.cfg.Prober.Name(), w)))
	}
	out = append(out, cut(fmt.Sprintf("%d run(s) per r (+/-)    setting now: %s", p.repeats, settingLabel(m.m, m.cfg.Start, m.cur)), w))
	out = append(out, m.probeRunView()...)
	out = append(out, "")
	// The median column is as wide as its widest rate (12 for MiB/s).
	medW := 12
	for _, hr := range p.hist {
		if len(hr.runs) > 0 {
			medW = max(medW, len(m.medianRate(hr)))
		}
	}
	setW := max(12, w-2-2-5-(medW+1)-9-9-7)
	out = append(out, m.st.ColHead.Render(fit(fmt.Sprintf("    %s %4s %*s %8s %8s %6s", fit("setting (history)", setW), "runs", medW, "median", "spread", "irq/"+m.amount(), "CPU"), w)))
	cmpH := 7
	listH := max(2, h-len(out)-cmpH)
	if len(p.hist) < 2 {
		listH = max(2, h-len(out)-2)
	}
	top := max(0, min(p.sel-listH+1, len(p.hist)-listH))
	if len(p.hist) == 0 {
		// Wrapped: at 60 columns it was cut with no mark (issue 24).
		out = append(out, wrap("    no runs yet: r runs the probe with the settings now on the controller", w, "    ")...)
	}
	for i := top; i < len(p.hist) && i < top+listH; i++ {
		out = append(out, m.probeHistLine(i, setW, medW))
	}
	if len(p.hist) >= 2 {
		out = padLines(out, w, h-cmpH)
		out = append(out, m.compareView()...)
	}
	return out
}

// probeRunView is the progress of the running probe (or the last error),
// and the last run's numbers.
func (m Model) probeRunView() []string {
	p := m.probe
	w := m.w
	var out []string
	switch {
	case p.running:
		frac := 0.0
		if p.total > 0 {
			frac = float64(p.done) / float64(p.total)
		}
		info := fmt.Sprintf(" %3.0f%%  %s", frac*100, units.Size(p.done).String())
		if p.total > 0 {
			info += " of " + units.Size(p.total).String()
		}
		lead := fmt.Sprintf("run %d/%d ", max(p.run, 1), p.of)
		if p.total == 0 {
			out = append(out, cut(lead+"running; the probe does not say how much it moves ("+units.Size(p.done).String()+" so far)", w))
			break
		}
		out = append(out, lead+bar(frac, max(10, w-len(lead)-len(info)))+info)
	case p.lastErr != "":
		out = append(out, m.st.Error.Render(cut("last probe: "+p.lastErr, w)))
	default:
		out = append(out, "idle")
	}
	if p.last != nil {
		r := p.last
		cpu := "--"
		if r.CPUPercent() > 0 {
			cpu = fmt.Sprintf("%.1f%%", r.CPUPercent())
		}
		s := fmt.Sprintf("last run: %s  irq/s %.0f  irq/%s %.1f  CPU %s", m.fmtRate(r.Rate, r.Unit), r.IRQsPerSec, m.amount(), m.cfg.ByteUnit.Per(r.IRQsPerMiB), cpu)
		if r.Simulated {
			s += "  (simulated)"
		}
		if r.Corrupt {
			out = append(out, wrapStyled(m.st.Error, "CORRUPT "+s+" "+r.Detail, w)...)
		} else {
			out = append(out, wrap(s, w, "  ")...)
		}
	} else {
		out = append(out, "last run: none yet")
	}
	return out
}

// probeHistLine is the history row of entry i, its setting setW wide
// and its median medW.
func (m Model) probeHistLine(i, setW, medW int) string {
	p := m.probe
	w := m.w
	hr := p.hist[i]
	mark := " "
	if i == p.compareA() {
		mark = "A"
	}
	cursor := " "
	if i == p.sel {
		cursor = ">"
	}
	med, spr := "--", "--"
	irq, cpu := "--", "--"
	if len(hr.runs) > 0 {
		med = m.medianRate(hr)
		spr = fmtSpread(hr.rates())
		irq = fmt.Sprintf("%.1f", m.cfg.ByteUnit.Per(hr.avg(func(r results.Measurement) float64 { return r.IRQsPerMiB })))
		if c := hr.avg(func(r results.Measurement) float64 { return r.CPUPercent() }); c > 0 {
			cpu = fmt.Sprintf("%.1f%%", c)
		}
	}
	label := hr.setting
	if hr.corrupt > 0 {
		label += fmt.Sprintf(" [CORRUPT x%d]", hr.corrupt)
	}
	if hr.dropped > 0 {
		label += fmt.Sprintf(" [not held x%d]", hr.dropped)
	}
	line := fit(fmt.Sprintf("%s%s  %s %4d %*s %8s %8s %6s", cursor, mark, fit(label, setW), len(hr.runs), medW, med, spr, irq, cpu), w)
	if i == p.sel {
		line = m.st.Cursor.Render(line)
	}
	return line
}

// compareA is the row compared against.
func (p probeState) compareA() int {
	if p.mark >= 0 && p.mark < len(p.hist) {
		return p.mark
	}
	return 0
}

// compareView shows row A and the selected row B side by side.
func (m Model) compareView() []string {
	p := m.probe
	a, b := p.hist[p.compareA()], p.hist[p.sel]
	colW := max(16, (m.w-14-30)/2)
	line := func(label, x, y, z string) string {
		return cut(fit(label, 12)+"  "+fit(x, colW)+fit(y, colW)+z, m.w)
	}
	perAmount := func(r results.Measurement) float64 { return m.cfg.ByteUnit.Per(r.IRQsPerMiB) }
	stat := func(h history, f func(results.Measurement) float64, format string) string {
		if len(h.runs) == 0 {
			return "--"
		}
		return fmt.Sprintf(format, h.avg(f))
	}
	rate := func(h history) string {
		if len(h.runs) == 0 {
			return "--"
		}
		return m.medianRate(h)
	}
	diff := "--"
	if len(a.runs) > 0 && len(b.runs) > 0 {
		diff = compare(a.rates(), b.rates()).String()
	}
	if p.compareA() == p.sel {
		diff = "(select another row to compare)"
	}
	return []string{
		m.st.Section.Render(fit("-- compare (m marks A; the selected row is B) ", m.w)),
		line("", "A: "+a.setting, "B: "+b.setting, "B against A"),
		line("median rate", rate(a), rate(b), diff),
		line("spread", fmtSpread(a.rates())+fmt.Sprintf(" (%d runs)", len(a.runs)), fmtSpread(b.rates())+fmt.Sprintf(" (%d runs)", len(b.runs)), ""),
		line("irq/s", stat(a, func(r results.Measurement) float64 { return r.IRQsPerSec }, "%.0f"), stat(b, func(r results.Measurement) float64 { return r.IRQsPerSec }, "%.0f"), ""),
		line("irq/"+m.amount(), stat(a, perAmount, "%.1f"), stat(b, perAmount, "%.1f"), ""),
		line("CPU", stat(a, func(r results.Measurement) float64 { return r.CPUPercent() }, "%.1f%%"), stat(b, func(r results.Measurement) float64 { return r.CPUPercent() }, "%.1f%%"), ""),
	}
}
