package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/textwrap"
)

func init() {
	register(&command{name: "profiles", summary: "list the built-in SoC profiles, or show one", usage: "profiles [show NAME|FILE]", run: runProfiles})
}

func runProfiles(a *app, args []string) error {
	fs := a.flags("profiles")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		ps, err := builtinProfiles()
		if err != nil {
			return err
		}
		if a.g.json {
			type row struct {
				Name        string   `json:"name"`
				Title       string   `json:"title"`
				Compatible  []string `json:"compatible"`
				Controllers []string `json:"controllers"`
				Emulated    bool     `json:"emulated,omitempty"`
			}
			var rows []row
			for _, p := range ps {
				rows = append(rows, row{Name: p.Name, Title: p.Title, Compatible: p.Compatible, Controllers: labelsOf(p), Emulated: p.Emulated})
			}
			return writeJSON(a.env.stdout, rows)
		}
		tw := tabwriter.NewWriter(a.env.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCONTROLLERS\tTITLE")
		for _, p := range ps {
			title := p.Title
			if len(p.Aliases) > 0 {
				title += " (also --profile " + strings.Join(p.Aliases, ", ") + ")"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, strings.Join(labelsOf(p), ","), title)
		}
		return tw.Flush()
	}
	if rest[0] != "show" || len(rest) != 2 {
		return usageErr("usage: citune profiles [show NAME|FILE]")
	}
	p, err := loadProfile(rest[1])
	if err != nil {
		return err
	}
	if a.g.json {
		return writeJSON(a.env.stdout, profileJSON(p))
	}
	showProfile(a, p)
	return nil
}

func showProfile(a *app, p *soc.Profile) {
	w := humanOut(a.env.stdout, a.env.isTTY)
	fmt.Fprintf(w, "%s: %s\n", p.Name, p.Title)
	fmt.Fprintf(w, "  file:       %s\n", p.File)
	if len(p.Aliases) > 0 {
		fmt.Fprintf(w, "  also named: %s\n", strings.Join(p.Aliases, ", "))
	}
	fmt.Fprintf(w, "  compatible: %s\n", strings.Join(p.Compatible, ", "))
	if len(p.SocID) > 0 {
		fmt.Fprintf(w, "  soc_id:     %s\n", strings.Join(p.SocID, ", "))
	}
	fmt.Fprint(w, textwrap.Block(p.Notes, "  ", 78)) // "" without notes
	fmt.Fprintf(w, "\ncontrollers:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  LABEL\tNODE\tBASE\tSIZE\tIRQ\tROLES\tCORE")
	for _, c := range p.Controllers {
		fmt.Fprintf(tw, "  %s\t%s\t%#08x\t%#x\t%s\t%s\t%s\n", c.Label, c.Node, c.Base, c.Size, c.IRQ, soc.JoinRoles(c.Roles, ","), c.Core)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nidentity checks:\n")
	for _, ch := range p.Identity {
		fmt.Fprintf(w, "  %s & %#08x == %#08x  (%s)\n", ch.Register, ch.Mask, ch.Value, ch.Why)
	}
	fmt.Fprintf(w, "\nknobs:\n")
	for _, k := range p.Knobs {
		fmt.Fprintf(w, "  %s\n", k.Field)
		if k.DT != "" {
			fmt.Fprintf(w, "    DT:     %s (roles: %s)", k.DT, soc.JoinRoles(k.DTRoles, ","))
			if k.Requires != "" {
				fmt.Fprintf(w, ", only with %s", k.Requires)
			}
			fmt.Fprintln(w)
		}
		if k.Param != "" {
			fmt.Fprintf(w, "    kernel: %s (roles: %s, %s)\n", k.Param, soc.JoinRoles(k.ParamRoles, ","), k.ParamEncoding.Describe())
		}
		fmt.Fprint(w, textwrap.Block(k.None, "    none:   ", 78)) // "" for "": no line
		fmt.Fprint(w, textwrap.Block(k.Driver, "    driver: ", 78))
		fmt.Fprint(w, textwrap.Block(orUnknown(k.Source), "    source: ", 78))
	}
	showResetSources(w, p)
}

// showResetSources lists every register's reset value grouped by where it
// comes from ("unknown" where no source gives one), the usbmisc word of
// each controller that has one, and what host-only cores lack.
func showResetSources(w io.Writer, p *soc.Profile) {
	fmt.Fprintf(w, "\nreset values and their sources:\n")
	var order []string
	by := map[string][]string{}
	add := func(r *regs.Register, where string) {
		v := "unknown"
		if r.ResetKnown {
			v = fmt.Sprintf("%#x", r.Reset)
		}
		src := orUnknown(r.Source)
		if _, ok := by[src]; !ok {
			order = append(order, src)
		}
		by[src] = append(by[src], r.Name+where+"="+v)
	}
	for i := range p.Map.Registers {
		add(&p.Map.Registers[i], "")
	}
	for _, c := range p.Controllers {
		if c.Map == nil {
			continue
		}
		for i := range c.Map.Registers {
			if r := &c.Map.Registers[i]; r.Window != "" {
				add(r, "("+c.Label+")")
			}
		}
	}
	for _, src := range order {
		fmt.Fprint(w, textwrap.Block(src+":", "  ", 78))
		fmt.Fprint(w, textwrap.Block(strings.Join(by[src], " "), "      ", 78))
	}
	var labels []string
	for _, c := range p.Controllers {
		if c.Core == regs.CoreHostOnly {
			labels = append(labels, c.Label)
		}
	}
	if len(labels) > 0 {
		var names []string
		c, _ := p.Controller(labels[0])
		for _, a := range c.Map.Absent {
			names = append(names, a.Name)
		}
		fmt.Fprint(w, textwrap.Block(fmt.Sprintf("host-only cores (%s) have no %s (i.MX6 SDK USB_UHx register sets)", strings.Join(labels, ", "), strings.Join(names, ", ")), "  ", 78))
	}
}

func labelsOf(p *soc.Profile) []string {
	var ls []string
	for _, c := range p.Controllers {
		ls = append(ls, c.Label)
	}
	return ls
}

// profileJSON is `profiles show --json`: what the human form shows, with
// lower-case keys like every --json.
func profileJSON(p *soc.Profile) any {
	type ctl struct {
		Label string      `json:"label"`
		Node  string      `json:"node"`
		Base  string      `json:"base"`
		Size  string      `json:"size"`
		IRQ   string      `json:"irq,omitempty"`
		Roles []regs.Role `json:"roles"`
		Core  string      `json:"core"`
	}
	type check struct {
		Register string `json:"register"`
		Mask     string `json:"mask"`
		Value    string `json:"value"`
		Why      string `json:"why"`
	}
	type reg struct {
		Name   string `json:"name"`
		Offset string `json:"offset"`
		Reset  string `json:"reset,omitempty"`
		Source string `json:"source,omitempty"`
	}
	out := struct {
		Name        string     `json:"name"`
		Title       string     `json:"title"`
		File        string     `json:"file"`
		Aliases     []string   `json:"aliases,omitempty"`
		Compatible  []string   `json:"compatible"`
		SocID       []string   `json:"soc_id,omitempty"`
		Notes       string     `json:"notes,omitempty"`
		Emulated    bool       `json:"emulated,omitempty"`
		Controllers []ctl      `json:"controllers"`
		Identity    []check    `json:"identity"`
		Knobs       []soc.Knob `json:"knobs"`
		Registers   []reg      `json:"registers"`
	}{Name: p.Name, Title: p.Title, File: p.File, Aliases: p.Aliases, Compatible: p.Compatible, SocID: p.SocID, Notes: p.Notes, Emulated: p.Emulated,
		Knobs: p.Knobs}
	for _, c := range p.Controllers {
		out.Controllers = append(out.Controllers, ctl{c.Label, c.Node, fmt.Sprintf("%#08x", c.Base), fmt.Sprintf("%#x", c.Size), c.IRQ, c.Roles, string(c.Core)})
	}
	for _, ch := range p.Identity {
		out.Identity = append(out.Identity, check{ch.Register, fmt.Sprintf("%#08x", ch.Mask), fmt.Sprintf("%#08x", ch.Value), ch.Why})
	}
	for i := range p.Map.Registers {
		r := &p.Map.Registers[i]
		out.Registers = append(out.Registers, reg{r.Name, fmt.Sprintf("0x%03x", r.Offset), resetHex(r), r.Source})
	}
	return out
}
