package rx

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// class parses [...]: the ranges are folded under (?i), then negated.
func (p *parser) class(fl flag) (*node, error) {
	s := p.s[1:]
	neg := strings.HasPrefix(s, "^")
	if neg {
		s = s[1:]
	}
	var rs []rune
	first := true
	for s == "" || s[0] != ']' || first {
		if s == "" {
			return nil, p.errorf("missing closing ]")
		}
		first = false
		if strings.HasPrefix(s, "[:") {
			end := strings.Index(s[2:], ":]")
			if end >= 0 {
				name := s[2 : 2+end]
				not := strings.HasPrefix(name, "^")
				t := posix[strings.TrimPrefix(name, "^")]
				if t == nil {
					return nil, p.errorf("invalid character class range [:%s:]", name)
				}
				if not {
					t = negate(normalize(t))
				}
				rs, s = append(rs, t...), s[end+4:]
				continue
			}
		}
		if len(s) > 1 && s[0] == '\\' && strings.IndexByte("dswDSW", s[1]) >= 0 {
			t := perl(s[1])
			if s[1] < 'a' {
				t = negate(normalize(t))
			}
			rs, s = append(rs, t...), s[2:]
			continue
		}
		lo, rest, err := p.classRune(s)
		if err != nil {
			return nil, err
		}
		hi := lo
		if len(rest) > 1 && rest[0] == '-' && rest[1] != ']' {
			if hi, rest, err = p.classRune(rest[1:]); err != nil {
				return nil, err
			}
			if hi < lo {
				return nil, p.errorf("invalid character class range %s", s[:len(s)-len(rest)])
			}
		}
		rs, s = append(rs, lo, hi), rest
	}
	p.s = s[1:]
	rs = normalize(rs)
	if fl&flagI != 0 {
		rs = foldRanges(rs)
	}
	return &node{op: opClass, ranges: rs, neg: neg}, nil
}

func (p *parser) classRune(s string) (rune, string, error) {
	if s[0] == '\\' {
		save := p.s
		p.s = s
		r, err := p.escapedRune()
		rest := p.s
		p.s = save
		return r, rest, err
	}
	r, size := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && size == 1 {
		return 0, s, p.errorf("invalid UTF-8")
	}
	return r, s[size:], nil
}

// normalize sorts the pairs of rs and merges those that touch.
func normalize(rs []rune) []rune {
	type pair struct{ lo, hi rune }
	ps := make([]pair, 0, len(rs)/2)
	for i := 0; i+1 < len(rs); i += 2 {
		ps = append(ps, pair{rs[i], rs[i+1]})
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].lo < ps[j].lo })
	out := rs[:0:0]
	for _, q := range ps {
		if n := len(out); n > 0 && q.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], q.hi)
			continue
		}
		out = append(out, q.lo, q.hi)
	}
	return out
}

// negate complements normalized ranges over all runes.
func negate(rs []rune) []rune {
	var out []rune
	next := rune(0)
	for i := 0; i < len(rs); i += 2 {
		if rs[i] > next {
			out = append(out, next, rs[i]-1)
		}
		next = rs[i+1] + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, next, utf8.MaxRune)
	}
	return out
}

// foldRanges adds the other case of ASCII letters (and the two non-ASCII
// runes Go folds into them: K KELVIN SIGN and LONG S).
func foldRanges(rs []rune) []rune {
	out := append([]rune(nil), rs...)
	add := func(lo, hi, d rune) {
		for i := 0; i < len(rs); i += 2 {
			a, b := max(rs[i], lo), min(rs[i+1], hi)
			if a <= b {
				out = append(out, a+d, b+d)
			}
		}
	}
	add('A', 'Z', 'a'-'A')
	add('a', 'z', 'A'-'a')
	for _, f := range [][2]rune{{'k', 0x212A}, {'K', 0x212A}, {'s', 0x17F}, {'S', 0x17F}, {0x212A, 'k'}, {0x212A, 'K'}, {0x17F, 's'}, {0x17F, 'S'}} {
		add(f[0], f[0], f[1]-f[0])
	}
	return normalize(out)
}
