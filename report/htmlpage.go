package report

// This file writes the page from its views (html.go fills them) with the
// escaping builder hb: the structure the template had, in Go.

func (v *pageView) render() string {
	var b hb
	b.b.WriteString("<!DOCTYPE html>\n")
	b.openn("html", "lang", "en")
	b.openn("head")
	b.void("meta", "charset", "utf-8")
	b.nl()
	b.void("meta", "name", "viewport", "content", "width=device-width, initial-scale=1")
	b.nl()
	b.void("meta", "name", "generator", "content", "citune report")
	b.nl()
	b.eln("title", v.Title)
	b.open("style")
	b.raw(trustedHTML(css))
	b.closen("style", "head")
	b.openn("body")
	b.openn("main")
	b.eln("h1", v.Title)
	b.eln("p", "from "+v.Files, "class", "sub")
	if v.Fleet != nil {
		v.Fleet.render(&b)
	}
	if v.Compare != nil {
		v.Compare.render(&b)
	}
	for _, s := range v.Sweeps {
		s.render(&b)
	}
	b.open("p", "class", "legend", "id", "legend")
	for _, l := range v.Legend {
		b.open("span")
		b.el("i", "", "style", "background:"+l.Colour)
		b.text(l.What)
		b.close("span")
	}
	b.closen("p", "main", "body", "html")
	return b.String()
}

// render writes the table; one without a head (the run's key-value
// lines) has a heading cell first in each row.
func (t *tableView) render(b *hb) {
	b.openn("table", "id", t.ID, "class", t.Class)
	if t.Head != nil {
		b.open("thead")
		b.open("tr")
		for _, c := range t.Head {
			b.el("th", c.Text, "class", numClass(c.Num))
		}
		b.close("tr")
		b.closen("thead")
	}
	b.openn("tbody")
	for _, r := range t.Rows {
		b.open("tr", "class", r.Class)
		for i, c := range r.Cells {
			tag := "td"
			if t.Head == nil && i == 0 {
				tag = "th"
			}
			b.el(tag, c.Text, "class", numClass(c.Num))
		}
		b.closen("tr")
	}
	b.closen("tbody", "table")
}

func numClass(num bool) string {
	if num {
		return "n"
	}
	return ""
}

// figure writes a chart with its caption: title, then the detail in a
// span.
func figure(b *hb, id, title, detail string, chart trustedHTML) {
	b.open("figure", "id", id)
	b.open("figcaption")
	b.text(title + " ")
	b.el("span", detail)
	b.closen("figcaption")
	b.raw(chart)
	b.closen("figure")
}

func (f *fleetView) render(b *hb) {
	b.openn("section", "id", "fleet")
	b.eln("h2", "Fleet: board by board")
	b.eln("p", f.Heading, "class", "sub")
	b.open("p", "id", "fleet-summary")
	b.el("strong", f.Summary)
	b.closen("p")
	for _, g := range f.Groups {
		b.eln("h3", g.Title)
		b.eln("p", "plan: "+g.Plan+"; probe: "+g.Probe, "class", "foot")
		g.Boards.render(b)
		figure(b, "fig-"+g.ID, "Median rate per board", "(dot: median, line: min to max of the counted runs, ring: the board's winner)", g.Chart)
		g.Points.render(b)
		b.open("p", "class", "verdict", "id", g.ID+"-verdict")
		b.el("strong", "Verdict:")
		b.text(" " + g.Verdict)
		b.closen("p")
	}
	b.closen("section")
}

func (c *compareView) render(b *hb) {
	b.openn("section", "id", "compare")
	b.eln("h2", "Side by side")
	c.Summary.render(b)
	figure(b, "fig-compare", "Difference to each file's own baseline", "(dot: median, line: 95 % interval)", c.Chart)
	b.eln("h3", "Every point")
	b.eln("p", "Median, difference to the file's own baseline, rank.", "class", "foot")
	c.Points.render(b)
	b.closen("section")
}

func (s *sweepView) render(b *hb) {
	b.openn("section", "class", "sweep", "id", "sweep"+s.Sfx)
	b.open("h2")
	b.text(s.Board + ", " + s.Kernel + " ")
	b.el("span", "("+s.Label+")", "class", "mono")
	b.closen("h2")
	b.eln("p", s.Plan+". "+s.State+".", "class", "sub")
	if s.Corrupt != "" {
		b.eln("div", s.Corrupt, "class", "alert")
	}
	for _, w := range s.Warnings {
		b.eln("div", w, "class", "warn")
	}
	b.eln("h3", "Baseline against the best point")
	if s.Summary != nil {
		b.openn("div", "class", "scroll")
		s.Summary.render(b)
		b.closen("div")
	} else {
		b.eln("p", "Nothing was measured to the end.")
	}
	for _, f := range s.Footnotes {
		b.eln("p", f, "class", "foot")
	}
	figure(b, "fig-rates"+s.Sfx, "Rate per point", "("+s.Unit+"; dots: runs, line: min to max, diamond: median; grey band: the baseline's range)", s.Rates)
	if s.Heatmap != "" {
		figure(b, "fig-heatmap"+s.Sfx, "Heat map of the median rate", "("+s.HeatCaption+")", s.Heatmap)
	}
	figure(b, "fig-scatter"+s.Sfx, "Rate against interrupts per "+s.Amount, "(the dashed line joins the points no other point beats on both)", s.Scatter)
	section := func(t *tableView, title, foot string) {
		if t != nil {
			b.eln("h3", title)
			b.eln("p", foot, "class", "foot")
			t.render(b)
		}
	}
	section(s.Excluded, "Not ranked", "These points are never compared: their settings did not hold, their data were corrupt, or their probe failed.")
	section(s.Eliminated, s.DroppedTitle, s.DroppedWhy)
	section(s.Effects, "Effect of each axis on its own", s.EffectsHow+"; spread in points of the baseline.")
	b.eln("h3", "The verdict")
	for _, l := range s.VerdictLines {
		b.eln("p", l, "class", "verdict")
	}
	if s.VerdictApply {
		b.eln("h3", "The recommendation as a device-tree fragment and kernel parameters")
	} else {
		b.eln("h3", "Nothing to make permanent: the original values as a device-tree fragment")
	}
	if s.DTS != "" {
		b.eln("pre", s.DTS, "id", "dts"+s.Sfx)
		if s.KernelParams != "" {
			b.open("p")
			b.text("Kernel command line: ")
			b.el("code", s.KernelParams)
			b.closen("p")
		}
	} else {
		b.eln("p", "No fragment: "+s.DTSErr+".", "id", "dts"+s.Sfx)
	}
	b.eln("h3", "The run")
	s.Header.render(b)
	for _, n := range s.Notes {
		b.eln("p", "Note from the sweep: "+n, "class", "foot")
	}
	b.eln("h3", "Original registers")
	if len(s.Registers) > 0 {
		b.openn("div", "class", "regs-wrap", "id", "registers"+s.Sfx)
		for _, col := range s.Registers {
			col.render(b)
		}
		b.closen("div")
	} else {
		b.eln("p", "The results file has no register snapshot.", "id", "registers"+s.Sfx)
	}
	b.closen("section")
}
