package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/units"
)

type probeTab struct {
	*shared
	own     probeKeys
	id      int
	cancel  context.CancelFunc
	ch      chan tea.Msg
	repeats int

	run, of     int
	done, total int64

	last      *results.Measurement
	lastErr   string
	hist      []history
	sel, mark int // mark: the row compared against (A), -1 for the first
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

// medianRate is the median of the rates in the probe's unit, as the
// Probe tab shows it ("--" without runs).
func (s *shared) medianRate(h history) string {
	if len(h.runs) == 0 {
		return "--"
	}
	return s.fmtRate(rank.Median(h.rates()), h.runs[0].Unit)
}

// avg is the mean of f over the runs (0 for none).
func (h history) avg(f func(results.Measurement) float64) float64 {
	if len(h.runs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range h.runs {
		t += f(x)
	}
	return t / float64(len(h.runs))
}

// settingLabel names a setting by the knobs that differ from the start
// ("ITC=0 AHBBRST=0", or "start").
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

func (p *probeTab) key(msg tea.KeyPressMsg) tea.Cmd {
	k, o := p.keys, p.own
	switch {
	case key.Matches(msg, o.Run):
		return p.start()
	case key.Matches(msg, o.Stop):
		if !p.probing {
			p.setStatus("no probe is running")
			return nil
		}
		p.cancel()
		p.setStatus("stopping the probe...")
	case key.Matches(msg, o.More):
		p.repeats = min(p.repeats+1, 50)
		p.setStatus("%d runs per r", p.repeats)
	case key.Matches(msg, o.Fewer):
		p.repeats = max(p.repeats-1, 1)
		p.setStatus("%d runs per r", p.repeats)
	case key.Matches(msg, k.Up):
		p.sel = max(0, p.sel-1)
	case key.Matches(msg, k.Down):
		p.sel = max(0, min(len(p.hist)-1, p.sel+1))
	case key.Matches(msg, o.Mark):
		if len(p.hist) == 0 {
			p.setStatus("no runs yet: r runs the probe")
			return nil
		}
		p.mark = p.sel
		p.setStatus("%q is now A: the comparison shows the selected row against it", p.hist[p.sel].setting)
	}
	return nil
}

func (p *probeTab) start() tea.Cmd {
	switch {
	case p.cfg.Prober == nil:
		p.setErr("probing is not available: %s", p.cfg.NoProbe)
		return nil
	case p.probing:
		p.setErr("a probe is already running (s stops it)")
		return nil
	case p.sweeping:
		p.setErr("a sweep is running; it probes by itself")
		return nil
	case p.writing:
		p.setErr("a write is in flight; try again in a moment")
		return nil
	}
	ctx, cancel := context.WithCancel(p.cfg.Ctx)
	p.id++
	p.probing, p.cancel = true, cancel
	p.run, p.of, p.done, p.total = 0, p.repeats, 0, 0
	p.lastErr = ""
	p.ch = make(chan tea.Msg, 16)
	p.setStatus("probing: %d run(s) of %s", p.repeats, p.cfg.Prober.Name())
	fn := probeJob(ctx, p.cfg.Prober, p.cfg.Target, p.m, p.cfg.Start, p.id, p.repeats)
	return job(p.cfg.Ctx, p.cfg.Jobs, p.ch, fn)
}

func (p *probeTab) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p.key(msg)
	case probeProgressMsg:
		if msg.id != p.id {
			return nil
		}
		p.run, p.of, p.done, p.total = msg.run, msg.of, msg.done, msg.total
	case probeRunMsg:
		if msg.id != p.id {
			return nil
		}
		p.run, p.of = msg.run, msg.of
		if msg.err != nil {
			p.lastErr = msg.err.Error()
			p.setErr("probe run %d/%d: %v", msg.run, msg.of, msg.err)
			break
		}
		res := msg.res
		p.last = &res
		i := p.row(msg.setting)
		h := &p.hist[i]
		switch {
		case msg.after != msg.setting:
			h.dropped++
			p.setErr("! run %d not counted: the setting changed while it ran (%s -> %s); see the Registers tab", msg.run, msg.setting, msg.after)
		case res.Corrupt:
			h.corrupt++
			p.setErr("CORRUPT data in run %d (%s): %s", msg.run, msg.setting, res.Detail)
		default:
			h.runs = append(h.runs, res)
			p.setStatus("run %d/%d with %s: %s", msg.run, msg.of, msg.setting, p.fmtRate(res.Rate, res.Unit))
		}
		p.sel = i
	case probeDoneMsg:
		if msg.id != p.id {
			return nil
		}
		p.probing = false
		p.cancel()
		return nil
	}
	return listen(p.ch)
}

// ShortHelp is the tab's help line.
func (p *probeTab) ShortHelp() []key.Binding {
	k, o := p.keys, p.own
	return []key.Binding{o.Run, o.Stop, o.Runs, k.Move, o.Mark, k.NextTab, k.Quit, k.Help, k.Export}
}

// FullHelp is the tab's keys on the ? screen.
func (p *probeTab) FullHelp() [][]key.Binding {
	o := p.own
	return [][]key.Binding{{o.Run, o.Stop}, {o.More, o.Fewer, o.Mark}}
}

// row returns the history row of setting, adding it if needed.
func (p *probeTab) row(setting string) int {
	if i := slices.IndexFunc(p.hist, func(h history) bool { return h.setting == setting }); i >= 0 {
		return i
	}
	p.hist = append(p.hist, history{setting: setting})
	return len(p.hist) - 1
}

func (p *probeTab) View(h int) []string {
	w := p.w
	var out []string
	if p.cfg.Prober == nil {
		out = append(out, wrapStyled(p.st.Error, "Probing is not available: "+p.cfg.NoProbe, w)...)
	} else {
		out = append(out, p.st.Title.Render(cut("Probe: "+p.cfg.Prober.Name(), w)))
	}
	out = append(out, cut(fmt.Sprintf("%d run(s) per r (+/-)    setting now: %s", p.repeats, settingLabel(p.m, p.cfg.Start, p.cur)), w))
	out = append(out, p.runView()...)
	out = append(out, "")
	// The median column is as wide as its widest rate (12 for MiB/s).
	medW := 12
	for _, hr := range p.hist {
		medW = max(medW, len(p.medianRate(hr)))
	}
	setW := max(12, w-2-2-5-(medW+1)-9-9-7)
	out = append(out, p.st.ColHead.Render(fit(fmt.Sprintf("    %s %4s %*s %8s %8s %6s", fit("setting (history)", setW), "runs", medW, "median", "spread", "irq/"+p.amount(), "CPU"), w)))
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
		out = append(out, p.histLine(i, setW, medW))
	}
	if len(p.hist) >= 2 {
		out = padLines(out, h-cmpH)
		out = append(out, p.compareView()...)
	}
	return out
}

// runView is the running probe's progress (or the last error) and the
// last run's numbers.
func (p *probeTab) runView() []string {
	w := p.w
	var out []string
	switch {
	case p.probing:
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
		out = append(out, p.st.Error.Render(cut("last probe: "+p.lastErr, w)))
	default:
		out = append(out, "idle")
	}
	if p.last != nil {
		r := p.last
		cpu := "--"
		if r.CPUPercent() > 0 {
			cpu = fmt.Sprintf("%.1f%%", r.CPUPercent())
		}
		s := fmt.Sprintf("last run: %s  irq/s %.0f  irq/%s %.1f  CPU %s", p.fmtRate(r.Rate, r.Unit), r.IRQsPerSec, p.amount(), p.cfg.ByteUnit.Per(r.IRQsPerMiB), cpu)
		if r.Simulated {
			s += "  (simulated)"
		}
		if r.Corrupt {
			out = append(out, wrapStyled(p.st.Error, "CORRUPT "+s+" "+r.Detail, w)...)
		} else {
			out = append(out, wrap(s, w, "  ")...)
		}
	} else {
		out = append(out, "last run: none yet")
	}
	return out
}

// histLine is the history row i, its setting setW and median medW wide.
func (p *probeTab) histLine(i, setW, medW int) string {
	w := p.w
	hr := p.hist[i]
	mark := " "
	if i == p.compareA() {
		mark = "A"
	}
	cursor := " "
	if i == p.sel {
		cursor = ">"
	}
	med, spr, irq, cpu := "--", "--", "--", "--"
	if len(hr.runs) > 0 {
		med = p.medianRate(hr)
		spr = fmtSpread(hr.rates())
		irq = fmt.Sprintf("%.1f", p.cfg.ByteUnit.Per(hr.avg(func(r results.Measurement) float64 { return r.IRQsPerMiB })))
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
		line = p.st.Cursor.Render(line)
	}
	return line
}

// compareA is the row compared against.
func (p *probeTab) compareA() int {
	if p.mark >= 0 && p.mark < len(p.hist) {
		return p.mark
	}
	return 0
}

// compareView shows row A and the selected row B side by side.
func (p *probeTab) compareView() []string {
	a, b := p.hist[p.compareA()], p.hist[p.sel]
	colW := max(16, (p.w-14-30)/2)
	line := func(label, x, y, z string) string {
		return cut(fit(label, 12)+"  "+fit(x, colW)+fit(y, colW)+z, p.w)
	}
	perAmount := func(r results.Measurement) float64 { return p.cfg.ByteUnit.Per(r.IRQsPerMiB) }
	stat := func(h history, f func(results.Measurement) float64, format string) string {
		if len(h.runs) == 0 {
			return "--"
		}
		return fmt.Sprintf(format, h.avg(f))
	}
	diff := "--"
	if len(a.runs) > 0 && len(b.runs) > 0 {
		diff = rank.Compare(b.rates(), a.rates()).String() // B against A, as the sweep compares
	}
	if p.compareA() == p.sel {
		diff = "(select another row to compare)"
	}
	return []string{
		p.st.Section.Render(fit("-- compare (m marks A; the selected row is B) ", p.w)),
		line("", "A: "+a.setting, "B: "+b.setting, "B against A"),
		line("median rate", p.medianRate(a), p.medianRate(b), diff),
		line("spread", fmtSpread(a.rates())+fmt.Sprintf(" (%d runs)", len(a.runs)), fmtSpread(b.rates())+fmt.Sprintf(" (%d runs)", len(b.runs)), ""),
		line("irq/s", stat(a, func(r results.Measurement) float64 { return r.IRQsPerSec }, "%.0f"), stat(b, func(r results.Measurement) float64 { return r.IRQsPerSec }, "%.0f"), ""),
		line("irq/"+p.amount(), stat(a, perAmount, "%.1f"), stat(b, perAmount, "%.1f"), ""),
		line("CPU", stat(a, func(r results.Measurement) float64 { return r.CPUPercent() }, "%.1f%%"), stat(b, func(r results.Measurement) float64 { return r.CPUPercent() }, "%.1f%%"), ""),
	}
}
