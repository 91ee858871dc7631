package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Options choose what the tables show.
type Options struct {
	// Points names points to show besides the baseline and the best:
	// their settings ("ITC=1 AHBBRST=0", "ITC=1,AHBBRST=0", full or short
	// names, any order; a unique subset is enough) or "#N", the point
	// ranked N.
	Points []string
	// Top is how many of the best points to show (default 1).
	Top int
	// Fleet compares several files board by board (fleet.go) even when
	// their headers do not name two different boards.
	Fleet bool
	// Width, when set, is the terminal width the text report fits: the
	// point table drops its least needed columns (95 % CI, min, max,
	// irq/s, handler time, CPU %) until it fits, and text wraps there.
	// 0 keeps every column and wraps notes at 100 columns.
	Width int
	// ASCII replaces what a terminal without UTF-8 (a vt100, the C
	// locale) cannot show: × becomes x, µ u, other non-ASCII ?.
	ASCII bool
}

func (o Options) top() int { return max(o.Top, 1) }

// rows returns the points a table shows: the best Top, then the named.
func rows(s *Sweep, o Options) ([]*Point, error) {
	out := slices.Clone(s.Ranked[:min(o.top(), len(s.Ranked))])
	for _, name := range o.Points {
		p, err := s.Find(name)
		if err != nil {
			return nil, err
		}
		if p != nil && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

// Find resolves a point name (see Options.Points). It returns nil for
// "baseline" (always shown).
func (s *Sweep) Find(name string) (*Point, error) {
	name = strings.TrimSpace(name)
	if strings.EqualFold(name, "baseline") {
		return nil, nil
	}
	if n, ok := strings.CutPrefix(name, "#"); ok {
		r, err := strconv.Atoi(n)
		if err != nil || r < 1 || r > len(s.Ranked) {
			return nil, fmt.Errorf("%s: point %s: no such rank (%d points ranked)", s.File, name, len(s.Ranked))
		}
		return s.Ranked[r-1], nil
	}
	all := s.all()
	if i := slices.IndexFunc(all, func(p *Point) bool { return p.Key == name || p.Label == name }); i >= 0 {
		return all[i], nil
	}
	want, err := s.parseSettings(name)
	if err != nil {
		return nil, fmt.Errorf("%s: point %q: %v", s.File, name, err)
	}
	var exact, partial []*Point
points:
	for _, p := range all {
		for k, v := range want {
			if !sameValue(p.Settings[k], v) {
				continue points
			}
		}
		if len(p.Settings) == len(want) {
			exact = append(exact, p)
		} else {
			partial = append(partial, p)
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) == 0 && len(partial) == 1:
		return partial[0], nil
	case len(exact)+len(partial) == 0:
		return nil, fmt.Errorf("%s: point %q: no such point; the points are: %s", s.File, name, pointList(all))
	}
	return nil, fmt.Errorf("%s: point %q matches %d points (%s): name more settings", s.File, name, len(exact)+len(partial), pointList(append(exact, partial...)))
}

func pointList(ps []*Point) string {
	l := mapf(ps, func(p *Point) string { return p.Label })
	sort.Strings(l)
	if len(l) > 12 {
		l = append(l[:12], "...")
	}
	return strings.Join(l, "; ")
}

// parseSettings reads "ITC=1 AHBBRST=0" into settings by axis name.
func (s *Sweep) parseSettings(text string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want NAME=VALUE", kv)
		}
		a := s.axis(k)
		if a == nil {
			return nil, fmt.Errorf("%s was not swept (axes: %s)", k, strings.Join(mapf(s.Axes, func(a Axis) string { return a.Label }), ", "))
		}
		out[a.Name] = v
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no settings given")
	}
	return out, nil
}

func (s *Sweep) axis(name string) *Axis {
	for i := range s.Axes {
		a := &s.Axes[i]
		if strings.EqualFold(a.Label, name) || strings.EqualFold(a.Name, name) {
			return a
		}
	}
	return nil
}

// sameValue compares setting values, numbers by value (0x10 = 16).
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseUint(a, 0, 64)
	y, err2 := strconv.ParseUint(b, 0, 64)
	return err1 == nil && err2 == nil && x == y
}
