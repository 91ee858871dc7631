package soc

import (
	"errors"
	"fmt"
	"sort"
)

// problems collects validation errors with their lines.
type problems struct {
	name string
	loc  *locator
	list []problem
}

type problem struct {
	at   pos
	line int // resolved by err
	msg  string
}

func (ps *problems) add(at pos, format string, a ...any) {
	ps.list = append(ps.list, problem{at: at, msg: fmt.Sprintf(format, a...)})
}

func (ps *problems) failed() bool { return len(ps.list) > 0 }

// err joins the problems in line order, each as "NAME:LINE: invalid
// profile: MESSAGE"; identical problems are reported once.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	for i := range ps.list {
		ps.list[i].line = max(ps.loc.line(ps.list[i].at), 1)
	}
	sort.SliceStable(ps.list, func(i, j int) bool { return ps.list[i].line < ps.list[j].line })
	var errs []error
	type key struct {
		line int
		msg  string
	}
	seen := map[key]bool{}
	for _, p := range ps.list {
		if seen[key{p.line, p.msg}] {
			continue
		}
		seen[key{p.line, p.msg}] = true
		errs = append(errs, fmt.Errorf("%s:%d: %w: %s", ps.name, p.line, ErrProfile, p.msg))
	}
	return errors.Join(errs...)
}
