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

// maxProblems bounds how many problems a profile's error reports: each
// costs a few decodes of the text to find its line, so a profile with
// thousands of errors stays linear in its size.
const maxProblems = 20

// err joins the problems in line order, each as "NAME:LINE: invalid
// profile: MESSAGE"; identical problems are reported once, and at most
// maxProblems of them (the first found), with a count of the rest.
func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	seen := map[problem]bool{} // by place and message: no line is resolved yet
	var shown []problem
	more := 0
	for _, p := range ps.list {
		if seen[p] {
			continue
		}
		seen[p] = true
		if len(shown) == maxProblems {
			more++
			continue
		}
		shown = append(shown, p)
	}
	for i := range shown {
		shown[i].line = max(ps.loc.line(shown[i].at), 1)
	}
	sort.SliceStable(shown, func(i, j int) bool { return shown[i].line < shown[j].line })
	var errs []error
	done := map[problem]bool{} // by line and message
	for _, p := range shown {
		k := problem{line: p.line, msg: p.msg}
		if done[k] {
			continue
		}
		done[k] = true
		errs = append(errs, fmt.Errorf("%s:%d: %w: %s", ps.name, p.line, ErrProfile, p.msg))
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("%s: %w: %d more problems not shown (fix these first)", ps.name, ErrProfile, more))
	}
	return errors.Join(errs...)
}
