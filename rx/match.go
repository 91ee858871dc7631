package rx

import (
	"errors"
	"slices"
	"unicode/utf8"
)

// Regexp is a compiled expression, safe for concurrent use.
type Regexp struct {
	src  string
	prog []inst
	ncap int // capturing groups
}

type iop uint8

const (
	iRune   iop = iota // a rune in ranges, then pc+1
	iSplit             // x first, then y
	iJmp               // to x
	iSave              // slot n, then pc+1
	iAssert            // assert a, then pc+1
	iMatch
)

type inst struct {
	op     iop
	a      assert
	x, y   int
	n      int
	ranges []rune
}

// maxInst bounds the compiled program (Go refuses such sizes too).
const maxInst = 20000

var errTooLarge = errors.New("expression too large")

// Compile parses expr in Go's RE2 syntax (ASCII classes, no \p{...}).
func Compile(expr string) (*Regexp, error) {
	p := &parser{src: expr, s: expr}
	var fl flag
	n, err := p.alt(&fl)
	if err != nil {
		return nil, err
	}
	if p.s != "" {
		return nil, p.errorf("unexpected )")
	}
	c := &compiler{}
	c.emit(inst{op: iSave, n: 0})
	c.node(n)
	c.emit(inst{op: iSave, n: 1})
	c.emit(inst{op: iMatch})
	if c.err != nil {
		return nil, p.errorf("%v", c.err)
	}
	return &Regexp{src: expr, prog: c.prog, ncap: p.ncap}, nil
}

// MustCompile is Compile for expressions in the source; it panics on an
// error.
func MustCompile(expr string) *Regexp {
	re, err := Compile(expr)
	if err != nil {
		panic(err)
	}
	return re
}

// String is the source text.
func (re *Regexp) String() string { return re.src }

// NumSubexp is the number of capturing groups.
func (re *Regexp) NumSubexp() int { return re.ncap }

type compiler struct {
	prog []inst
	err  error
}

func (c *compiler) emit(i inst) int {
	if len(c.prog) >= maxInst {
		c.err = errTooLarge
		return len(c.prog) - 1
	}
	c.prog = append(c.prog, i)
	return len(c.prog) - 1
}

func (c *compiler) node(n *node) {
	if c.err != nil {
		return
	}
	switch n.op {
	case opClass:
		rs := n.ranges
		if n.neg {
			rs = negate(rs)
		}
		c.emit(inst{op: iRune, ranges: rs})
	case opConcat:
		for _, s := range n.subs {
			c.node(s)
		}
	case opAlt:
		var jumps []int
		for i, s := range n.subs {
			if i == len(n.subs)-1 {
				c.node(s)
				break
			}
			split := c.emit(inst{op: iSplit})
			c.prog[split].x = split + 1
			c.node(s)
			jumps = append(jumps, c.emit(inst{op: iJmp}))
			c.prog[split].y = len(c.prog)
		}
		for _, j := range jumps {
			c.prog[j].x = len(c.prog)
		}
	case opCapture:
		c.emit(inst{op: iSave, n: 2 * n.cap})
		c.node(n.subs[0])
		c.emit(inst{op: iSave, n: 2*n.cap + 1})
	case opAssert:
		c.emit(inst{op: iAssert, a: n.assert})
	case opRepeat:
		c.repeat(n)
	}
}

// repeat compiles x{min,max} as Go simplifies it: min copies of x (the
// last one looping for an unbounded count), then max-min nested
// optional copies.
func (c *compiler) repeat(n *node) {
	x := n.subs[0]
	if n.max == -1 {
		for range n.min - 1 {
			c.node(x)
		}
		if n.min > 0 { // x+
			start := len(c.prog)
			c.node(x)
			c.split(c.emit(inst{op: iSplit}), start, n.greedy)
			return
		}
		if nullable(x) { // (x+)? keeps Go's priority order (golang.org/issue/46123)
			c.repeat(&node{op: opRepeat, min: 0, max: 1, greedy: n.greedy, subs: []*node{
				{op: opRepeat, min: 1, max: -1, greedy: n.greedy, subs: n.subs}}})
			return
		}
		split := c.emit(inst{op: iSplit}) // x*
		c.node(x)
		c.emit(inst{op: iJmp, x: split})
		c.split(split, split+1, n.greedy)
		return
	}
	for range n.min {
		c.node(x)
	}
	var splits []int
	for range n.max - n.min {
		splits = append(splits, c.emit(inst{op: iSplit}))
		c.node(x)
	}
	for _, s := range splits {
		c.split(s, s+1, n.greedy)
	}
}

// nullable reports whether n can match the empty string.
func nullable(n *node) bool {
	switch n.op {
	case opClass:
		return false
	case opAlt:
		return slices.ContainsFunc(n.subs, nullable)
	case opRepeat:
		return n.min == 0 || nullable(n.subs[0])
	}
	for _, s := range n.subs { // concat, capture; empty and asserts have none
		if !nullable(s) {
			return false
		}
	}
	return true
}

// split makes the split at pc prefer body when greedy, else what follows
// the whole repeat (the end of the program so far).
func (c *compiler) split(pc, body int, greedy bool) {
	if c.err != nil {
		return
	}
	out := len(c.prog)
	if greedy {
		c.prog[pc].x, c.prog[pc].y = body, out
	} else {
		c.prog[pc].x, c.prog[pc].y = out, body
	}
}

func (i *inst) matches(r rune) bool {
	rs := i.ranges
	for j := 0; j+1 < len(rs); j += 2 {
		if r < rs[j] {
			return false
		}
		if r <= rs[j+1] {
			return true
		}
	}
	return false
}

// thread is a position in the program with its capture slots.
type thread struct {
	pc  int
	cap []int
}

// machine runs the program over b as a Pike VM: every thread advances
// one rune at a time, in priority order, so the first match found is
// the one Go's leftmost-first semantics pick, in O(len(prog) * len(b)).
type machine struct {
	re         *Regexp
	b          []byte
	seen       []int // per pc: the step it was last added in
	step       int
	clist, nxt []thread
}

func isWordRune(r rune) bool { return r < utf8.RuneSelf && isWord(byte(r)) }

// at reports the runes before and at pos (-1 at the ends).
func (m *machine) at(pos int) (prev, next rune, width int) {
	prev, next = -1, -1
	if pos > 0 {
		prev, _ = utf8.DecodeLastRune(m.b[:pos])
	}
	if pos < len(m.b) {
		next, width = utf8.DecodeRune(m.b[pos:])
	}
	return prev, next, width
}

func holds(a assert, prev, next rune) bool {
	switch a {
	case aBeginText:
		return prev == -1
	case aEndText:
		return next == -1
	case aBeginLine:
		return prev == -1 || prev == '\n'
	case aEndLine:
		return next == -1 || next == '\n'
	case aWord:
		return isWordRune(prev) != isWordRune(next)
	default:
		return isWordRune(prev) == isWordRune(next)
	}
}

// add follows the empty-width instructions from pc at pos and appends
// the threads that wait on a rune (or match) to l, in priority order.
func (m *machine) add(l []thread, pc, pos int, cap []int, prev, next rune) []thread {
	if m.seen[pc] == m.step {
		return l
	}
	m.seen[pc] = m.step
	i := &m.re.prog[pc]
	switch i.op {
	case iSplit:
		l = m.add(l, i.x, pos, cap, prev, next)
		return m.add(l, i.y, pos, cap, prev, next)
	case iJmp:
		return m.add(l, i.x, pos, cap, prev, next)
	case iSave:
		c := append([]int(nil), cap...)
		c[i.n] = pos
		return m.add(l, pc+1, pos, c, prev, next)
	case iAssert:
		if !holds(i.a, prev, next) {
			return l
		}
		return m.add(l, pc+1, pos, cap, prev, next)
	}
	return append(l, thread{pc, cap})
}

// match finds the leftmost-first match starting at or after pos: the
// capture slots (2 per group, group 0 the whole match), or nil.
func (m *machine) match(pos int) []int {
	var found []int
	empty := make([]int, 2*(m.re.ncap+1))
	for i := range empty {
		empty[i] = -1
	}
	m.clist = m.clist[:0]
	for {
		prev, next, width := m.at(pos)
		if found == nil { // a new thread starting here, lowest priority
			m.clist = m.add(m.clist, 0, pos, empty, prev, next)
		}
		if len(m.clist) == 0 && (found != nil || width == 0) {
			break
		}
		m.step++
		m.nxt = m.nxt[:0]
		npos := pos + width
		var nprev, nnext rune
		if width > 0 {
			nprev, nnext, _ = m.at(npos)
		}
		for _, t := range m.clist {
			i := &m.re.prog[t.pc]
			if i.op == iMatch {
				found = t.cap
				break // lower-priority threads lose
			}
			if width > 0 && i.matches(next) {
				m.nxt = m.add(m.nxt, t.pc+1, npos, t.cap, nprev, nnext)
			}
		}
		if width == 0 {
			break
		}
		m.clist, m.nxt = m.nxt, m.clist
		pos = npos
	}
	return found
}

// FindAllSubmatchIndex returns the successive non-overlapping matches
// of re in b as Go's regexp does (an empty match right after a match is
// left out), at most n of them (all for n < 0).
func (re *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	var out [][]int
	m := &machine{re: re, b: b, seen: make([]int, len(re.prog))}
	for i := range m.seen {
		m.seen[i] = -1
	}
	for pos, prevEnd := 0, -1; (n < 0 || len(out) < n) && pos <= len(b); {
		c := m.match(pos)
		if c == nil {
			break
		}
		accept := true
		if c[1] == pos {
			accept = c[0] != prevEnd
			_, w := utf8.DecodeRune(b[pos:])
			pos += max(w, 1)
		} else {
			pos = c[1]
		}
		prevEnd = c[1]
		if accept {
			out = append(out, c)
		}
	}
	return out
}

// FindAllSubmatch is FindAllSubmatchIndex with the matched bytes (nil
// for a group that took no part).
func (re *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	var out [][][]byte
	for _, c := range re.FindAllSubmatchIndex(b, n) {
		s := make([][]byte, len(c)/2)
		for i := range s {
			if c[2*i] >= 0 {
				s[i] = b[c[2*i]:c[2*i+1]:c[2*i+1]]
			}
		}
		out = append(out, s)
	}
	return out
}

// FindStringSubmatch is the first match in s with its groups ("" for a
// group that took no part), or nil.
func (re *Regexp) FindStringSubmatch(s string) []string {
	ms := re.FindAllSubmatch([]byte(s), 1)
	if ms == nil {
		return nil
	}
	out := make([]string, len(ms[0]))
	for i, g := range ms[0] {
		out[i] = string(g)
	}
	return out
}
