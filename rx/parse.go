// Package rx owns the regular expressions citune accepts from its users
// (`probe cmd --regex`) and the few it uses itself: the RE2 syntax Go's
// regexp accepts, with ASCII classes only, matched leftmost-first as Go
// matches them, in time linear in the pattern times the text.
//
// Decision: Go's regexp links every Unicode script and category table for
// \p{...}; with it the ARMv7 binary was 226 KB larger. A command's output
// is matched for a number, so \p{...} is refused with a message saying
// so, and everything else behaves as in Go (rx_test.go compares the two).
package rx

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is a parsed expression.
type node struct {
	op     op
	ranges []rune // opClass: sorted pairs lo, hi (folded when fold)
	neg    bool   // opClass: negated
	subs   []*node
	min    int // opRepeat
	max    int // opRepeat, -1 for no bound
	greedy bool
	cap    int // opCapture: group number
	assert assert
}

type op uint8

const (
	opClass op = iota // one rune in ranges (or not in, with neg)
	opConcat
	opAlt
	opRepeat
	opCapture
	opAssert
)

type flag uint8

const (
	flagI flag = 1 << iota // case-insensitive (ASCII letters)
	flagS                  // . matches \n
	flagM                  // ^ and $ match at line breaks
	flagU                  // ungreedy: swap x* and x*?
)

type assert uint8

const (
	aBeginText assert = iota
	aEndText
	aBeginLine
	aEndLine
	aWord
	aNotWord
)

// maxRepeat bounds {n,m} as Go does.
const maxRepeat = 1000

type parser struct {
	src   string
	s     string // unparsed rest
	ncap  int
	names map[string]bool
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("error parsing regexp: %s: `%s`", fmt.Sprintf(format, args...), p.src)
}

// alt parses alternatives up to a ')' or the end.
func (p *parser) alt(fl *flag) (*node, error) {
	var subs []*node
	for {
		c, err := p.concat(fl)
		if err != nil {
			return nil, err
		}
		subs = append(subs, c)
		if p.s == "" || p.s[0] != '|' {
			break
		}
		p.s = p.s[1:]
	}
	if len(subs) == 1 {
		return subs[0], nil
	}
	return &node{op: opAlt, subs: subs}, nil
}

func (p *parser) concat(fl *flag) (*node, error) {
	n := &node{op: opConcat}
	for p.s != "" && p.s[0] != '|' && p.s[0] != ')' {
		a, err := p.atom(fl)
		if err != nil {
			return nil, err
		}
		if a == nil { // a flag group such as (?i)
			continue
		}
		if a, err = p.repeat(a, *fl); err != nil {
			return nil, err
		}
		n.subs = append(n.subs, a)
	}
	return n, nil
}

func (p *parser) repeat(a *node, fl flag) (*node, error) {
	min, max, rest, ok := repeatOp(p.s)
	if !ok {
		return a, nil
	}
	if min > maxRepeat || max > maxRepeat || max >= 0 && max < min {
		return nil, p.errorf("invalid repeat count %s", p.s[:len(p.s)-len(rest)])
	}
	p.s = rest
	greedy := fl&flagU == 0
	if p.s != "" && p.s[0] == '?' {
		greedy, p.s = !greedy, p.s[1:]
	}
	if _, _, _, ok := repeatOp(p.s); ok { // a** is an error in Go, not a doubled star
		return nil, p.errorf("invalid nested repetition operator")
	}
	return &node{op: opRepeat, subs: []*node{a}, min: min, max: max, greedy: greedy}, nil
}

// repeatOp reads *, +, ?, {n}, {n,} or {n,m} (max -1 for no bound); a
// '{' that does not start a count is a literal, as in Go.
func repeatOp(s string) (min, max int, rest string, ok bool) {
	if s == "" {
		return 0, 0, s, false
	}
	switch s[0] {
	case '*':
		return 0, -1, s[1:], true
	case '+':
		return 1, -1, s[1:], true
	case '?':
		return 0, 1, s[1:], true
	case '{':
		return parseBraces(s)
	}
	return 0, 0, s, false
}

// parseBraces reads {n}, {n,} or {n,m}.
func parseBraces(s string) (lo, hi int, rest string, ok bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return 0, 0, s, false
	}
	a, b, comma := strings.Cut(s[1:end], ",")
	lo, ok = atoi(a)
	if !ok {
		return 0, 0, s, false
	}
	switch {
	case !comma:
		hi = lo
	case b == "":
		hi = -1
	default:
		if hi, ok = atoi(b); !ok {
			return 0, 0, s, false
		}
	}
	return lo, hi, s[end+1:], true
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 8 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// atom parses one atom; nil for a flag-setting group.
func (p *parser) atom(fl *flag) (*node, error) {
	c := p.s[0]
	switch c {
	case '*', '+', '?':
		return nil, p.errorf("missing argument to repetition operator %q", c)
	case '(':
		return p.group(fl)
	case '[':
		return p.class(*fl)
	case '.':
		p.s = p.s[1:]
		if *fl&flagS != 0 {
			return &node{op: opClass, ranges: []rune{0, utf8.MaxRune}}, nil
		}
		return &node{op: opClass, ranges: []rune{0, '\n' - 1, '\n' + 1, utf8.MaxRune}}, nil
	case '^':
		p.s = p.s[1:]
		if *fl&flagM != 0 {
			return &node{op: opAssert, assert: aBeginLine}, nil
		}
		return &node{op: opAssert, assert: aBeginText}, nil
	case '$':
		p.s = p.s[1:]
		if *fl&flagM != 0 {
			return &node{op: opAssert, assert: aEndLine}, nil
		}
		return &node{op: opAssert, assert: aEndText}, nil
	case '\\':
		return p.escape(*fl)
	}
	r, size := utf8.DecodeRuneInString(p.s)
	if r == utf8.RuneError && size == 1 {
		return nil, p.errorf("invalid UTF-8")
	}
	p.s = p.s[size:]
	return literal(r, *fl), nil
}

func literal(r rune, fl flag) *node {
	n := &node{op: opClass, ranges: []rune{r, r}}
	if fl&flagI != 0 {
		n.ranges = foldRanges(n.ranges)
	}
	return n
}

func (p *parser) group(fl *flag) (*node, error) {
	p.s = p.s[1:]
	inner := *fl
	capture := true
	if strings.HasPrefix(p.s, "?") {
		if name, ok := strings.CutPrefix(p.s, "?P<"); ok || strings.HasPrefix(p.s, "?<") {
			if !ok {
				name = p.s[2:]
			}
			name, rest, ok := strings.Cut(name, ">")
			if !ok || name == "" || strings.TrimFunc(name, func(r rune) bool { return r < utf8.RuneSelf && isWord(byte(r)) }) != "" {
				return nil, p.errorf("invalid named capture")
			}
			if p.names[name] {
				return nil, p.errorf("duplicate capture group name %s", name)
			}
			if p.names == nil {
				p.names = map[string]bool{}
			}
			p.names[name] = true
			p.s = "(" + rest // the name is not kept: nothing here asks for it
			return p.group(fl)
		}
		end := strings.IndexAny(p.s, ":)")
		if end < 0 {
			return nil, p.errorf("missing closing )")
		}
		nf := *fl
		if end > 1 || p.s[end] == ')' {
			var err error
			if nf, err = p.flags(p.s[1:end], *fl); err != nil {
				return nil, err
			}
		}
		if p.s[end] == ')' { // (?i): for the rest of the enclosing group
			*fl, p.s = nf, p.s[end+1:]
			return nil, nil
		}
		inner, capture, p.s = nf, false, p.s[end+1:]
	}
	var n int
	if capture {
		p.ncap++
		n = p.ncap
	}
	sub, err := p.alt(&inner)
	if err != nil {
		return nil, err
	}
	if p.s == "" || p.s[0] != ')' {
		return nil, p.errorf("missing closing )")
	}
	p.s = p.s[1:]
	if !capture {
		return sub, nil
	}
	return &node{op: opCapture, subs: []*node{sub}, cap: n}, nil
}

func (p *parser) flags(s string, fl flag) (flag, error) {
	neg := false
	for i := 0; i < len(s); i++ {
		if s[i] == '-' {
			if neg || i == len(s)-1 {
				return 0, p.errorf("invalid flags (?%s)", s)
			}
			neg = true
			continue
		}
		// at the index of its bit: flagI, flagS, flagM, flagU
		k := strings.IndexByte("ismU", s[i])
		if k < 0 {
			return 0, p.errorf("invalid or unsupported flags (?%s)", s)
		}
		f := flag(1) << k
		if neg {
			fl &^= f
		} else {
			fl |= f
		}
	}
	return fl, nil
}

// perl are the ASCII classes \d \s \w (Go's are ASCII too).
func perl(c byte) []rune {
	switch c | 0x20 {
	case 'd':
		return []rune{'0', '9'}
	case 's':
		return []rune{'\t', '\n', '\f', '\r', ' ', ' '}
	}
	return []rune{'0', '9', 'A', 'Z', '_', '_', 'a', 'z'}
}

// posix are the ASCII classes [:name:].
var posix = map[string][]rune{
	"alnum": {'0', '9', 'A', 'Z', 'a', 'z'}, "alpha": {'A', 'Z', 'a', 'z'},
	"ascii": {0, 0x7f}, "blank": {'\t', '\t', ' ', ' '}, "cntrl": {0, 0x1f, 0x7f, 0x7f},
	"digit": {'0', '9'}, "graph": {'!', '~'}, "lower": {'a', 'z'}, "print": {' ', '~'},
	"punct": {'!', '/', ':', '@', '[', '`', '{', '~'}, "space": {'\t', '\r', ' ', ' '},
	"upper": {'A', 'Z'}, "word": {'0', '9', 'A', 'Z', '_', '_', 'a', 'z'},
	"xdigit": {'0', '9', 'A', 'F', 'a', 'f'},
}

// escape parses a backslash escape outside a class.
func (p *parser) escape(fl flag) (*node, error) {
	if len(p.s) > 1 {
		switch c := p.s[1]; c {
		case 'A', 'z', 'b', 'B':
			p.s = p.s[2:]
			// at the index of its assert: \A aBeginText, \z aEndText, \b aWord, \B aNotWord
			return &node{op: opAssert, assert: assert(strings.IndexByte("Az\x00\x00bB", c))}, nil
		case 'd', 's', 'w', 'D', 'S', 'W':
			p.s = p.s[2:]
			return &node{op: opClass, ranges: perl(c), neg: c < 'a'}, nil
		case 'Q': // literal text up to \E
			lit, rest, _ := strings.Cut(p.s[2:], `\E`)
			p.s = rest
			n := &node{op: opConcat}
			for _, r := range lit {
				n.subs = append(n.subs, literal(r, fl))
			}
			return n, nil
		}
	}
	r, err := p.escapedRune()
	if err != nil {
		return nil, err
	}
	return literal(r, fl), nil
}

// escapedRune reads \x, \n, \t, \x41, \x{263a}, \101 or an escaped
// punctuation character.
func (p *parser) escapedRune() (rune, error) {
	if len(p.s) < 2 {
		return 0, p.errorf("trailing backslash at end of expression")
	}
	c := p.s[1]
	p.s = p.s[2:]
	if i := strings.IndexByte("afnrtv", c); i >= 0 {
		return rune("\a\f\n\r\t\v"[i]), nil
	}
	switch c {
	case 'p', 'P':
		return 0, p.errorf(`Unicode classes (\%c) are not supported; use ASCII classes such as [[:alpha:]] or \w`, c)
	case 'x':
		hex := p.s
		if strings.HasPrefix(hex, "{") {
			end := strings.IndexByte(hex, '}')
			if end < 0 {
				return 0, p.errorf("invalid escape sequence \\x%s", hex)
			}
			hex, p.s = hex[1:end], hex[end+1:]
		} else if len(hex) >= 2 {
			hex, p.s = hex[:2], hex[2:]
		} else {
			return 0, p.errorf("invalid escape sequence \\x%s", hex)
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || v > utf8.MaxRune || hex == "" {
			return 0, p.errorf("invalid escape sequence \\x%s", hex)
		}
		return rune(v), nil
	}
	if c >= '0' && c <= '7' {
		if c == '0' || len(p.s) > 0 && p.s[0] >= '0' && p.s[0] <= '7' {
			v := int(c - '0')
			for i := 0; i < 2 && p.s != "" && p.s[0] >= '0' && p.s[0] <= '7'; i++ {
				v, p.s = v*8+int(p.s[0]-'0'), p.s[1:]
			}
			return rune(v), nil
		}
		return 0, p.errorf("backreferences are not supported (\\%c)", c)
	}
	if c < utf8.RuneSelf && (c == '_' || !isWord(c)) {
		return rune(c), nil
	}
	return 0, p.errorf("invalid escape sequence \\%c", c)
}

func isWord(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
