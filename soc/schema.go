package soc

// The profile format's schema, read from the Profile type by reflection:
// which keys a table may have (unknownKeys) and what Go type a key path
// decodes into (schemaType, for the locator's badValue).

import (
	"cmp"
	"encoding"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/citune/citune/regs"
)

// unknownKeys reports every key of the text that the profile format does
// not define: unlike the decoder's Undecoded, case-sensitive, also inside
// inline tables in arrays, and a misspelt table once.
func (l *locator) unknownKeys(ps *problems, md toml.MetaData) {
	l.unknownBelow(ps, profileType, l.generic, "", nil)
	if ps.failed() {
		return
	}
	// Backstop: the decoder's own list (normally a subset of the above).
	for _, k := range md.Undecoded() {
		ps.add(l.at(k.String()), "unknown key %q", k.String())
	}
}

func (l *locator) unknownBelow(ps *problems, t reflect.Type, v any, path string, segs []string) {
	switch v := v.(type) {
	case map[string]any:
		if !isTable(t) {
			return
		}
		t = elemType(t)
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p, s := joinPath(path, keySeg(k)), append(append([]string(nil), segs...), k)
			if t.Kind() == reflect.Map {
				l.unknownBelow(ps, t.Elem(), v[k], p, s)
				continue
			}
			fs := tomlFields(t)
			ft, ok := fs[k]
			if !ok {
				msg := fmt.Sprintf("unknown key %q", toml.Key(s).String())
				if hint := suggest(k, fs); hint != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", hint)
				}
				ps.add(l.at(p), "%s", msg)
				continue
			}
			l.unknownBelow(ps, ft, v[k], p, s)
		}
	case []map[string]any, []any:
		for i, x := range elements(v) {
			l.unknownBelow(ps, t, x, fmt.Sprintf("%s[%d]", path, i), segs)
		}
	}
}

var profileType = reflect.TypeOf(Profile{})

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
		fs[cmp.Or(name, f.Name)] = f.Type
	}
	return fs
}

// schemaType returns the Go type a key path decodes into; keys match
// exactly, else, like the decoder, ignoring case.
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
