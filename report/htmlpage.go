package report

// This file writes the page from its views (html.go fills them) with the
// escaping builder hb: the structure the template had, in Go.

func (v *pageView) render() string {
	var b hb
	b.b.WriteString("<!DOCTYPE html>\n")
	b.open("html", "lang", "en")
	b.nl()
	b.open("head")
	b.nl()
	b.void("meta", "charset", "utf-8")
	b.nl()
	b.void("meta", "name", "viewport", "content", "width=device-width, initial-scale=1")
	b.nl()
	b.void("meta", "name", "generator", "content", "citune report")
	b.nl()
	b.el("title", v.Title)
	b.nl()
	b.open("style")
	b.raw(trustedHTML(css))
	b.close("style")
	b.nl()
	b.close("head")
	b.nl()
	b.open("body")
	b.nl()
	b.open("main")
	b.nl()
	b.el("h1", v.Title)
	b.nl()
	b.el("p", "from "+v.Files, "class", "sub")
	b.nl()
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
		b.open("i", "style", "background:"+l.Colour)
		b.close("i")
		b.text(l.What)
		b.close("span")
	}
	b.close("p")
	b.nl()
	b.close("main")
	b.nl()
	b.close("body")
	b.nl()
	b.close("html")
	b.nl()
	return b.String()
}

func (t *tableView) render(b *hb) {
	b.open("table", "id", t.ID, "class", t.Class)
	b.nl()
	b.open("thead")
	b.open("tr")
	for _, c := range t.Head {
		b.el("th", c.Text, "class", numClass(c.Num))
	}
	b.close("tr")
	b.close("thead")
	b.nl()
	b.open("tbody")
	b.nl()
	for _, r := range t.Rows {
		b.open("tr", "class", r.Class)
		for _, c := range r.Cells {
			b.el("td", c.Text, "class", numClass(c.Num))
		}
		b.close("tr")
		b.nl()
	}
	b.close("tbody")
	b.nl()
	b.close("table")
	b.nl()
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
	b.close("figcaption")
	b.nl()
	b.raw(chart)
	b.close("figure")
	b.nl()
}

func (f *fleetView) render(b *hb) {
	b.open("section", "id", "fleet")
	b.nl()
	b.el("h2", "Fleet: board by board")
	b.nl()
	b.el("p", f.Heading, "class", "sub")
	b.nl()
	b.open("p", "id", "fleet-summary")
	b.el("strong", f.Summary)
	b.close("p")
	b.nl()
	for _, g := range f.Groups {
		b.el("h3", g.Title)
		b.nl()
		b.el("p", "plan: "+g.Plan+"; probe: "+g.Probe, "class", "foot")
		b.nl()
		g.Boards.render(b)
		figure(b, "fig-"+g.ID, "Median rate per board", "(dot: median, line: min to max of the counted runs, ring: the board's winner)", g.Chart)
		g.Points.render(b)
		b.open("p", "class", "verdict", "id", g.ID+"-verdict")
		b.el("strong", "Verdict:")
		b.text(" " + g.Verdict)
		b.close("p")
		b.nl()
	}
	b.close("section")
	b.nl()
}

func (c *compareView) render(b *hb) {
	b.open("section", "id", "compare")
	b.nl()
	b.el("h2", "Side by side")
	b.nl()
	c.Summary.render(b)
	figure(b, "fig-compare", "Difference to each file's own baseline", "(dot: median, line: 95 % interval)", c.Chart)
	b.el("h3", "Every point")
	b.nl()
	b.el("p", "Median, difference to the file's own baseline, rank.", "class", "foot")
	b.nl()
	c.Points.render(b)
	b.close("section")
	b.nl()
}

func (s *sweepView) render(b *hb) {
	b.open("section", "class", "sweep", "id", "sweep"+s.Sfx)
	b.nl()
	b.open("h2")
	b.text(s.Board + ", " + s.Kernel + " ")
	b.el("span", "("+s.Label+")", "class", "mono")
	b.close("h2")
	b.nl()
	b.el("p", s.Plan+". "+s.State+".", "class", "sub")
	b.nl()
	if s.Corrupt != "" {
		b.el("div", s.Corrupt, "class", "alert")
		b.nl()
	}
	for _, w := range s.Warnings {
		b.el("div", w, "class", "warn")
		b.nl()
	}
	b.el("h3", "Baseline against the best point")
	b.nl()
	if s.Summary != nil {
		b.open("div", "class", "scroll")
		b.nl()
		s.Summary.render(b)
		b.close("div")
		b.nl()
	} else {
		b.el("p", "Nothing was measured to the end.")
		b.nl()
	}
	for _, f := range s.Footnotes {
		b.el("p", f, "class", "foot")
		b.nl()
	}
	figure(b, "fig-rates"+s.Sfx, "Rate per point", "("+s.Unit+"; dots: runs, line: min to max, diamond: median; grey band: the baseline's range)", s.Rates)
	if s.Heatmap != "" {
		figure(b, "fig-heatmap"+s.Sfx, "Heat map of the median rate", "("+s.HeatCaption+")", s.Heatmap)
	}
	figure(b, "fig-scatter"+s.Sfx, "Rate against interrupts per "+s.Amount, "(the dashed line joins the points no other point beats on both)", s.Scatter)
	section := func(t *tableView, title, foot string) {
		if t == nil {
			return
		}
		b.el("h3", title)
		b.nl()
		b.el("p", foot, "class", "foot")
		b.nl()
		t.render(b)
	}
	section(s.Excluded, "Not ranked", "These points are never compared: their settings did not hold, their data were corrupt, or their probe failed.")
	section(s.Eliminated, s.DroppedTitle, s.DroppedWhy)
	section(s.Effects, "Effect of each axis on its own", s.EffectsHow+"; spread in points of the baseline.")
	b.el("h3", "The verdict")
	b.nl()
	for _, l := range s.VerdictLines {
		b.el("p", l, "class", "verdict")
		b.nl()
	}
	if s.VerdictApply {
		b.el("h3", "The recommendation as a device-tree fragment and kernel parameters")
	} else {
		b.el("h3", "Nothing to make permanent: the original values as a device-tree fragment")
	}
	b.nl()
	if s.DTS != "" {
		b.el("pre", s.DTS, "id", "dts"+s.Sfx)
		b.nl()
		if s.KernelParams != "" {
			b.open("p")
			b.text("Kernel command line: ")
			b.el("code", s.KernelParams)
			b.close("p")
			b.nl()
		}
	} else {
		b.el("p", "No fragment: "+s.DTSErr+".", "id", "dts"+s.Sfx)
		b.nl()
	}
	b.el("h3", "The run")
	b.nl()
	b.open("table", "id", "header"+s.Sfx, "class", "kv")
	b.nl()
	b.open("tbody")
	b.nl()
	for _, kv := range s.Header {
		b.open("tr")
		b.el("th", kv[0])
		b.el("td", kv[1])
		b.close("tr")
		b.nl()
	}
	b.close("tbody")
	b.nl()
	b.close("table")
	b.nl()
	for _, n := range s.Notes {
		b.el("p", "Note from the sweep: "+n, "class", "foot")
		b.nl()
	}
	b.el("h3", "Original registers")
	b.nl()
	if len(s.Registers) > 0 {
		b.open("div", "class", "regs-wrap", "id", "registers"+s.Sfx)
		b.nl()
		for _, col := range s.Registers {
			b.open("table", "class", "regs mono")
			b.nl()
			b.open("thead")
			b.open("tr")
			b.el("th", "register")
			b.el("th", "offset", "class", "n")
			b.el("th", "value", "class", "n")
			b.close("tr")
			b.close("thead")
			b.nl()
			b.open("tbody")
			b.nl()
			for _, r := range col {
				b.open("tr")
				b.el("td", r.Name)
				b.el("td", r.Offset, "class", "n")
				b.el("td", r.Value, "class", "n")
				b.close("tr")
				b.nl()
			}
			b.close("tbody")
			b.nl()
			b.close("table")
			b.nl()
		}
		b.close("div")
		b.nl()
	} else {
		b.el("p", "The results file has no register snapshot.", "id", "registers"+s.Sfx)
		b.nl()
	}
	b.close("section")
	b.nl()
}
