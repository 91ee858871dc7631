package soc

// The locator: where each key of a profile's text is, so that errors
// found after decoding can name the line.

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/citune/citune/regs"
)

// ---- Locating keys -------------------------------------------------------
//
// BurntSushi/toml reports positions only for syntax errors and, for type
// errors, the position of the last occurrence of a key; it does not say
// where a decoded value came from. The locator scans the (already
// syntax-checked) text once and records every key, table header and array
// element with its line, under an indexed path such as
// "controller[1].base" or "register[0].field[2].values[1].value".

// keyPos is one key, table header or array element of the text.
type keyPos struct {
	path   string   // indexed path: register[0].field[2].bits
	plain  string   // TOML key without indices: register.field.bits
	segs   []string // plain key segments
	line   int
	vstart int  // byte span of the value; vstart < 0 for a table header
	vend   int  //
	elem   bool // an array element, not a key
}

type locator struct {
	name   string
	data   []byte
	nl     []int // offsets of '\n'
	keys   []keyPos
	byPath map[string]int
}

func newLocator(name string, data []byte) *locator {
	l := &locator{name: name, data: data, byPath: map[string]int{}}
	for i, c := range data {
		if c == '\n' {
			l.nl = append(l.nl, i)
		}
	}
	sc := &scanner{l: l, s: data, arrays: map[string]int{}}
	sc.run()
	return l
}

// lineAt is the 1-based line of byte offset off.
func (l *locator) lineAt(off int) int { return sort.SearchInts(l.nl, off) + 1 }

func (l *locator) add(kp keyPos) int {
	l.keys = append(l.keys, kp)
	if _, ok := l.byPath[kp.path]; !ok {
		l.byPath[kp.path] = len(l.keys) - 1
	}
	return len(l.keys) - 1
}

// has reports whether the indexed path occurs in the text.
func (l *locator) has(path string) bool {
	_, ok := l.byPath[path]
	return ok
}

// at returns the line of the indexed path, or of its nearest enclosing
// table or key that occurs in the text, or 1.
func (l *locator) at(path string) int {
	for path != "" {
		if i, ok := l.byPath[path]; ok {
			return l.keys[i].line
		}
		path = parentPath(path)
	}
	return 1
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
		// line; the byte offset gives the line it ends. The parser skips
		// a byte order mark before counting offsets.
		if start := pe.Position.Start + bomLen(l.data); !typed && pe.Position.Len > 0 && start < len(l.data) {
			line = l.lineAt(start)
		}
	} else if m := tomlErrRE.FindStringSubmatch(msg); m != nil {
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
		if ln, m, ok := l.badValue(key); ok {
			line, msg = ln, m
		}
		msg = key + ": " + msg
	}
	if line < 1 {
		line = 1
	}
	return fmt.Errorf("%s:%d: %w: %s", l.name, line, ErrProfile, msg)
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

var tomlErrRE = regexp.MustCompile(`(?s)^toml: (?:line (\d+) )?\(last key ("(?:[^"\\]|\\.)*")\): (.*)$`)

var profileType = reflect.TypeOf(Profile{})

// badValue finds the first occurrence of the key whose value does not
// decode into the key's Go type, and returns its line and the error.
func (l *locator) badValue(key string) (int, string, bool) {
	for _, kp := range l.keys {
		if kp.elem || kp.vstart < 0 || kp.vend < kp.vstart || kp.plain != key {
			continue
		}
		t, ok := schemaType(profileType, kp.segs)
		if !ok {
			return 0, "", false
		}
		v := reflect.New(reflect.StructOf([]reflect.StructField{{Name: "V", Type: t, Tag: `toml:"v"`}}))
		_, err := toml.Decode("v = "+string(l.data[kp.vstart:kp.vend])+"\n", v.Interface())
		if err == nil {
			continue
		}
		msg := err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = pe.Message
		} else if m := tomlErrRE.FindStringSubmatch(msg); m != nil {
			msg = m[3]
		}
		return kp.line, msg, true
	}
	return 0, "", false
}

var textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()

// elemType strips pointers, slices and arrays.
func elemType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t
}

// isTable reports whether keys may appear below a value of type t (a
// struct that is not decoded from text, or a map).
func isTable(t reflect.Type) bool {
	t = elemType(t)
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return false
	}
	return t.Kind() == reflect.Struct || t.Kind() == reflect.Map
}

// tomlFields lists the keys a struct type decodes.
func tomlFields(t reflect.Type) map[string]reflect.Type {
	fs := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.PkgPath != "" {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs[name] = f.Type
	}
	return fs
}

// schemaType returns the Go type a key path (plain segments) decodes into.
// Keys match exactly; as a fallback, like the decoder, case is ignored.
func schemaType(t reflect.Type, segs []string) (reflect.Type, bool) {
	for _, s := range segs {
		if !isTable(t) {
			return nil, false
		}
		t = elemType(t)
		if t.Kind() == reflect.Map {
			t = t.Elem()
			continue
		}
		fs := tomlFields(t)
		ft, ok := fs[s]
		if !ok {
			for name, ty := range fs {
				if strings.EqualFold(name, s) {
					ft, ok = ty, true
					break
				}
			}
		}
		if !ok {
			return nil, false
		}
		t = ft
	}
	return t, true
}

// unknownKeys reports every key of the text that the profile format does
// not define. Unlike the decoder's Undecoded, it is case-sensitive and
// also sees keys inside inline tables in arrays.
func (l *locator) unknownKeys(ps *problems, md toml.MetaData) {
	reported := map[string]bool{}
	for _, kp := range l.keys {
		if kp.elem {
			continue
		}
		t := reflect.Type(profileType)
		for n, s := range kp.segs {
			if !isTable(t) {
				break
			}
			t = elemType(t)
			if t.Kind() == reflect.Map {
				t = t.Elem()
				continue
			}
			fs := tomlFields(t)
			if ft, ok := fs[s]; ok {
				t = ft
				continue
			}
			// One report per table or key occurrence: a misspelt table
			// reports its header, not every key below it.
			if id := prefixID(kp, n); !reported[id] {
				reported[id] = true
				msg := fmt.Sprintf("unknown key %q", toml.Key(kp.segs[:n+1]).String())
				if hint := suggest(s, fs); hint != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", hint)
				}
				ps.add(kp.line, "%s", msg)
			}
			break
		}
	}
	if ps.failed() {
		return
	}
	// Backstop: the decoder's own list (normally a subset of the above).
	count := map[string]int{}
	for _, k := range md.Undecoded() {
		ks := k.String()
		n := count[ks]
		count[ks]++
		line := 1
		for _, kp := range l.keys {
			if !kp.elem && kp.plain == ks {
				if n == 0 {
					line = kp.line
					break
				}
				n--
			}
		}
		ps.add(line, "unknown key %q", ks)
	}
}

// prefixID identifies the indexed table path of kp's first n+1 segments,
// so that an unknown table is reported once.
func prefixID(kp keyPos, n int) string {
	// The indexed path has the same segments, each perhaps with indices;
	// cut it after segment n by counting unquoted dots.
	p := kp.path
	seg := 0 // segments passed
	inq := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && inq:
			i++
		case c == '"':
			inq = !inq
		case c == '.' && !inq:
			if seg == n {
				return "@" + p[:i]
			}
			seg++
		}
	}
	return "@" + p
}

// suggest returns the key of fs closest to s, or "".
func suggest(s string, fs map[string]reflect.Type) string {
	best, bestD := "", 3
	for name := range fs {
		if strings.EqualFold(name, s) {
			return name
		}
		if d := regs.EditDistance(strings.ToLower(s), name); d < bestD || d == bestD && name < best {
			best, bestD = name, d
		}
	}
	if bestD > 2 || bestD >= len(s) {
		return ""
	}
	return best
}

// scanner walks TOML text and records keys in its locator. It assumes the
// text is valid TOML (Parse runs it only for errors found after a
// successful syntax check) but never panics or loops on any input.
type scanner struct {
	l      *locator
	s      []byte
	i      int
	arrays map[string]int // indexed path of an array of tables -> elements so far
	table  string         // indexed path of the current table
	tsegs  []string       // its plain segments
}

func (sc *scanner) eof() bool { return sc.i >= len(sc.s) }

func (sc *scanner) peek(s string) bool { return !sc.eof() && bytes.HasPrefix(sc.s[sc.i:], []byte(s)) }

func (sc *scanner) adv(n int) { sc.i = min(sc.i+n, len(sc.s)) }

func (sc *scanner) run() {
	if sc.peek("\xef\xbb\xbf") {
		sc.adv(3)
	}
	for !sc.eof() {
		start := sc.i
		sc.skipBlank(true)
		if sc.eof() {
			break
		}
		if sc.s[sc.i] == '[' {
			sc.header()
		} else {
			sc.keyValue(sc.table, sc.tsegs)
		}
		sc.skipLine()
		if sc.i == start {
			sc.adv(1)
		}
	}
}

// skipBlank skips spaces, tabs, comments and, with nl, line ends.
func (sc *scanner) skipBlank(nl bool) {
	for !sc.eof() {
		switch c := sc.s[sc.i]; {
		case c == ' ' || c == '\t':
			sc.i++
		case nl && (c == '\n' || c == '\r'):
			sc.i++
		case c == '#':
			sc.skipLine()
		default:
			return
		}
	}
}

func (sc *scanner) skipLine() {
	for !sc.eof() && sc.s[sc.i] != '\n' && sc.s[sc.i] != '\r' {
		sc.i++
	}
}

// header reads "[a.b]" or "[[a.b]]".
func (sc *scanner) header() {
	off := sc.i
	double := sc.peek("[[")
	if double {
		sc.adv(2)
	} else {
		sc.adv(1)
	}
	segs := sc.key()
	if len(segs) == 0 {
		return
	}
	path := ""
	for k, s := range segs {
		path = joinPath(path, keySeg(s))
		if n := sc.arrays[path]; k < len(segs)-1 && n > 0 {
			path += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	if double {
		n := sc.arrays[path]
		sc.arrays[path] = n + 1
		path += "[" + strconv.Itoa(n) + "]"
	}
	sc.table, sc.tsegs = path, segs
	sc.l.add(keyPos{path: path, plain: toml.Key(segs).String(), segs: segs, line: sc.l.lineAt(off), vstart: -1, vend: -1})
}

// keyValue reads "key = value" below the table at path table.
func (sc *scanner) keyValue(table string, tsegs []string) {
	off := sc.i
	segs := sc.key()
	if len(segs) == 0 {
		return
	}
	sc.skipBlank(false)
	if sc.eof() || sc.s[sc.i] != '=' {
		return
	}
	sc.adv(1)
	sc.skipBlank(false)
	path := table
	for _, s := range segs {
		path = joinPath(path, keySeg(s))
	}
	all := append(append([]string(nil), tsegs...), segs...)
	idx := sc.l.add(keyPos{path: path, plain: toml.Key(all).String(), segs: all, line: sc.l.lineAt(off), vstart: sc.i})
	sc.value(path, all)
	sc.l.keys[idx].vend = sc.i
}

// value skips one value, recording array elements and inline-table keys.
func (sc *scanner) value(path string, segs []string) {
	if sc.eof() {
		return
	}
	switch sc.s[sc.i] {
	case '"', '\'':
		sc.str()
	case '[':
		sc.adv(1)
		for n := 0; ; {
			sc.skipBlank(true)
			if sc.eof() {
				return
			}
			switch sc.s[sc.i] {
			case ']':
				sc.adv(1)
				return
			case ',':
				sc.adv(1)
				continue
			}
			before := sc.i
			ep := path + "[" + strconv.Itoa(n) + "]"
			idx := sc.l.add(keyPos{path: ep, plain: toml.Key(segs).String(), segs: segs, line: sc.l.lineAt(sc.i), vstart: sc.i, elem: true})
			sc.value(ep, segs)
			sc.l.keys[idx].vend = sc.i
			n++
			if sc.i == before {
				sc.adv(1)
			}
		}
	case '{':
		sc.adv(1)
		for {
			sc.skipBlank(true)
			if sc.eof() {
				return
			}
			switch sc.s[sc.i] {
			case '}':
				sc.adv(1)
				return
			case ',':
				sc.adv(1)
				continue
			}
			before := sc.i
			sc.keyValue(path, segs)
			if sc.i == before {
				sc.adv(1)
			}
		}
	default:
		for !sc.eof() {
			switch sc.s[sc.i] {
			case ',', ']', '}', '#', '\n', '\r':
				return
			}
			sc.i++
		}
	}
}

// key reads a possibly dotted key and returns its segments.
func (sc *scanner) key() []string {
	var segs []string
	for {
		sc.skipBlank(false)
		if sc.eof() {
			return segs
		}
		switch c := sc.s[sc.i]; {
		case c == '"' || c == '\'':
			if sc.peek(`"""`) || sc.peek(`'''`) {
				return segs
			}
			segs = append(segs, sc.str())
		case isBareKeyChar(c):
			j := sc.i
			for !sc.eof() && isBareKeyChar(sc.s[sc.i]) {
				sc.i++
			}
			segs = append(segs, string(sc.s[j:sc.i]))
		default:
			return segs
		}
		sc.skipBlank(false)
		if sc.eof() || sc.s[sc.i] != '.' {
			return segs
		}
		sc.adv(1)
	}
}

func isBareKeyChar(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// str reads a string at the cursor and returns its content (escapes
// decoded; multi-line strings return "", they cannot be keys).
func (sc *scanner) str() string {
	q := sc.s[sc.i]
	triple := string([]byte{q, q, q})
	if sc.peek(triple) {
		sc.adv(3)
		for !sc.eof() {
			c := sc.s[sc.i]
			switch {
			case q == '"' && c == '\\':
				sc.adv(2)
			case sc.peek(triple):
				// The string ends with the last three quotes of the run.
				for !sc.eof() && sc.s[sc.i] == q {
					sc.i++
				}
				return ""
			default:
				sc.i++
			}
		}
		return ""
	}
	sc.adv(1)
	var b strings.Builder
	for !sc.eof() {
		c := sc.s[sc.i]
		switch {
		case c == q:
			sc.adv(1)
			return b.String()
		case c == '\n' || c == '\r':
			return b.String()
		case q == '"' && c == '\\':
			sc.escape(&b)
		default:
			b.WriteByte(c)
			sc.i++
		}
	}
	return b.String()
}

// escape decodes the escape sequence at the cursor (a backslash).
func (sc *scanner) escape(b *strings.Builder) {
	sc.adv(1)
	if sc.eof() {
		return
	}
	c := sc.s[sc.i]
	sc.adv(1)
	hex := 0
	switch c {
	case 'b':
		b.WriteByte('\b')
	case 't':
		b.WriteByte('\t')
	case 'n':
		b.WriteByte('\n')
	case 'f':
		b.WriteByte('\f')
	case 'r':
		b.WriteByte('\r')
	case 'e':
		b.WriteByte(0x1b)
	case 'x':
		hex = 2
	case 'u':
		hex = 4
	case 'U':
		hex = 8
	default:
		b.WriteByte(c)
	}
	if hex > 0 {
		end := min(sc.i+hex, len(sc.s))
		if r, err := strconv.ParseUint(string(sc.s[sc.i:end]), 16, 32); err == nil {
			b.WriteRune(rune(r))
		}
		sc.i = end
	}
}
