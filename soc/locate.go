package soc

// The locator: where a key of a profile's text is, so that errors found
// after decoding can name the line. It has no TOML scanner of its own:
// every position comes from BurntSushi/toml.
//
// Decisions:
//   - Problems are recorded with the indexed key path they are about
//     ("register[0].field[2].values[1].value"); lines are worked out only
//     when an error is written, so a valid profile costs one decode.
//   - The decoder knows the position of a syntax error and of a key's
//     last occurrence, but not where each element of an array of tables
//     came from. So the line of a path is the first line L such that the
//     text's first L lines, decoded by the same decoder, hold the path,
//     found by binary search (a dozen decodes, paid only for a profile
//     with errors). A prefix cut inside a multi-line array or string is
//     closed by trying the closing sequences TOML allows there; one none
//     of them closes counts as not holding the path, which can only move
//     a line later, never earlier.
//   - Which keys a path has comes from the whole text decoded into a
//     generic map, so it is exact and case-sensitive like TOML.

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// pos is where a problem is: an indexed key path ("": line 1), or a line
// the decoder gave.
type pos struct {
	path string
	line int
}

type locator struct {
	name     string
	data     []byte
	nl       []int          // offsets of '\n'
	generic  map[string]any // the whole text, decoded
	paths    map[string]bool
	lines    map[string]int          // first line of each path, once worked out
	prefixes map[int]map[string]bool // paths of the first n lines, once decoded
}

// newLocator indexes the paths of generic, the text decoded into a
// generic map (nil: decode it here).
func newLocator(name string, data []byte, generic map[string]any) *locator {
	l := &locator{name: name, data: data, generic: generic, paths: map[string]bool{},
		lines: map[string]int{}, prefixes: map[int]map[string]bool{}}
	for i, c := range data {
		if c == '\n' {
			l.nl = append(l.nl, i)
		}
	}
	if l.generic == nil {
		if _, err := toml.Decode(string(data), &l.generic); err != nil {
			l.generic = nil
		}
	}
	collectPaths("", l.generic, l.paths, 0)
	return l
}

// maxPathDepth bounds the nesting collectPaths walks: no profile key is
// that deep, and building every prefix of a 100 000-deep nesting is
// quadratic.
const maxPathDepth = 16

// collectPaths adds the indexed path of every table, key and array
// element of v below path to out.
func collectPaths(path string, v any, out map[string]bool, depth int) {
	if depth > maxPathDepth {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := joinPath(path, keySeg(k))
			out[p] = true
			collectPaths(p, x, out, depth+1)
		}
	case []map[string]any, []any:
		for i, x := range elements(v) {
			p := fmt.Sprintf("%s[%d]", path, i)
			out[p] = true
			collectPaths(p, x, out, depth+1)
		}
	}
}

// elements returns the elements of an array of tables or of values (nil
// for anything else).
func elements(v any) []any {
	switch v := v.(type) {
	case []map[string]any:
		xs := make([]any, len(v))
		for i, x := range v {
			xs[i] = x
		}
		return xs
	case []any:
		return v
	}
	return nil
}

func (l *locator) lineAt(off int) int { return sort.SearchInts(l.nl, off) + 1 }

func (l *locator) has(path string) bool { return l.paths[path] }

func (l *locator) at(path string) pos { return pos{path: path} }

// line resolves p: the line of its path, or of its nearest enclosing
// table or key that occurs in the text, or 1.
func (l *locator) line(p pos) int {
	if p.line > 0 {
		return p.line
	}
	path := p.path
	for ; path != ""; path = parentPath(path) {
		if l.paths[path] {
			break
		}
	}
	if path == "" {
		return 1
	}
	return l.firstLine(path)
}

// closers are the endings tried on a prefix of the text that stops
// inside a multi-line array, inline table or string.
var closers = []string{"]", "}]", "]}]", "]]", "}", "]}", "]]]", "}]}]", `"""`, `'''`, `"""]`, `''']`}

// firstLine is the first line n such that the text's first n lines hold
// path, by binary search over prefixes, each decoded once.
func (l *locator) firstLine(path string) int {
	if n, ok := l.lines[path]; ok {
		return n
	}
	n := 1 + sort.Search(len(l.nl), func(i int) bool { return l.prefix(i + 1)[path] })
	l.lines[path] = n
	return n
}

// prefix returns the paths of the text's first n lines.
func (l *locator) prefix(n int) map[string]bool {
	if ps, ok := l.prefixes[n]; ok {
		return ps
	}
	end := len(l.data)
	if n <= len(l.nl) {
		end = l.nl[n-1] + 1
	}
	ps := map[string]bool{}
	if v, ok := decodePrefix(l.data[:end]); ok {
		collectPaths("", v, ps, 0)
	}
	l.prefixes[n] = ps
	return ps
}

// decodePrefix decodes a prefix of the text, closing what it leaves open.
func decodePrefix(b []byte) (map[string]any, bool) {
	var v map[string]any
	if _, err := toml.Decode(string(b), &v); err == nil {
		return v, true
	}
	for _, c := range closers {
		v = nil
		if _, err := toml.Decode(string(b)+c+"\n", &v); err == nil {
			return v, true
		}
	}
	return nil, false
}

// decodeError turns a toml decoding error into "NAME:LINE: invalid
// profile: KEY: MESSAGE". For a type error (typed is set) of a key that
// occurs several times, it finds the occurrence whose value is at fault by
// decoding each occurrence's value on its own.
func (l *locator) decodeError(err error, typed bool) error {
	line, key, msg := 0, "", err.Error()
	var pe toml.ParseError
	if errors.As(err, &pe) {
		line, key, msg = pe.Position.Line, pe.LastKey, pe.Message
		// The parser counts a '\n' it trips over as part of the next
		// line; the byte offset (after a byte order mark) gives the
		// line it ends.
		if start := pe.Position.Start + bomLen(l.data); !typed && pe.Position.Len > 0 && start < len(l.data) {
			line = l.lineAt(start)
		}
	} else if m := tomlErrRE().FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		if k, err := strconv.Unquote(m[2]); err == nil {
			key = k
		}
		msg = m[3]
	}
	switch {
	case !typed:
		msg = "TOML syntax error: " + msg
		if src := l.lineText(line); src != "" {
			msg += fmt.Sprintf(" (in %q)", src)
		}
	case key != "":
		if p, m, ok := l.badValue(key); ok {
			line, msg = l.line(p), m
		}
		msg = key + ": " + msg
	}
	return fmt.Errorf("%s:%d: %w: %s", l.name, max(line, 1), ErrProfile, msg)
}

// lineText returns line n of the text, trimmed and shortened.
func (l *locator) lineText(n int) string {
	if n < 1 || n > len(l.nl)+1 {
		return ""
	}
	start, end := 0, len(l.data)
	if n > 1 {
		start = l.nl[n-2] + 1
	}
	if n <= len(l.nl) {
		end = l.nl[n-1]
	}
	t := []rune(strings.TrimSpace(string(l.data[start:end])))
	if len(t) > 60 {
		t = append(t[:57], '.', '.', '.')
	}
	return string(t)
}

// badValue finds the first occurrence of the key whose value does not
// decode into the key's Go type (each value encoded again on its own and
// decoded into it), and returns where it is and the error.
func (l *locator) badValue(key string) (pos, string, bool) {
	segs := toml.Key(strings.Split(key, "."))
	if strings.ContainsAny(key, `"'`) {
		return pos{}, "", false // a quoted key: no path to follow
	}
	t, ok := schemaType(profileType, segs)
	if !ok {
		return pos{}, "", false
	}
	var found pos
	var msg string
	walkKey(l.generic, "", segs, func(path string, v any) bool {
		var b bytes.Buffer
		var err error
		if err = toml.NewEncoder(&b).Encode(map[string]any{"v": v}); err != nil {
			return true
		}
		var wrap struct {
			V toml.Primitive `toml:"v"`
		}
		md, err := toml.Decode(b.String(), &wrap)
		if err != nil {
			return true
		}
		if err = md.PrimitiveDecode(wrap.V, reflect.New(t).Interface()); err == nil {
			return true
		}
		msg = err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = pe.Message
		} else if m := tomlErrRE().FindStringSubmatch(msg); m != nil {
			msg = m[3]
		}
		found = l.at(path)
		return false
	})
	return found, msg, msg != ""
}

// walkKey calls f with the indexed path and value of every occurrence of
// the plain key segs below v, in order, until f returns false.
func walkKey(v any, path string, segs []string, f func(string, any) bool) bool {
	if len(segs) == 0 {
		return f(path, v)
	}
	switch v := v.(type) {
	case map[string]any:
		x, ok := v[segs[0]]
		if !ok {
			return true
		}
		return walkKey(x, joinPath(path, keySeg(segs[0])), segs[1:], f)
	case []map[string]any, []any:
		for i, x := range elements(v) {
			if !walkKey(x, fmt.Sprintf("%s[%d]", path, i), segs, f) {
				return false
			}
		}
	}
	return true
}

// parentPath strips the last segment ("a.b[2]" -> "a.b", "a.b" -> "a").
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
		return ""
	}
	if strings.HasSuffix(p, `"`) {
		// A quoted segment: find its opening quote (not escaped).
		for i := len(p) - 2; i >= 0; i-- {
			if p[i] != '"' {
				continue
			}
			bs := 0
			for j := i - 1; j >= 0 && p[j] == '\\'; j-- {
				bs++
			}
			if bs%2 == 0 {
				return strings.TrimSuffix(p[:i], ".")
			}
		}
		return ""
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

func keySeg(s string) string { return toml.Key{s}.String() }

func joinPath(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// bomLen is the length of the byte order mark the TOML parser skips.
func bomLen(data []byte) int {
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		return 3
	case bytes.HasPrefix(data, []byte("\xff\xfe")), bytes.HasPrefix(data, []byte("\xfe\xff")):
		return 2
	}
	return 0
}

// tomlErrRE is compiled on first use: only a profile with errors needs it.
var tomlErrRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)^toml: (?:line (\d+) )?\(last key ("(?:[^"\\]|\\.)*")\): (.*)$`)
})
