package soc

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/citune/citune/profiles"
)

// seedProfiles adds every embedded profile and every fixture under
// testdata/profiles to the fuzz corpus.
func seedProfiles(f *testing.F) {
	f.Helper()
	names, err := fs.Glob(profiles.FS, "*.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range names {
		data, err := fs.ReadFile(profiles.FS, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	fixtures, err := filepath.Glob(filepath.Join("testdata", "profiles", "*.toml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, n := range fixtures {
		data, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// The seeds are whole profiles (several KiB). The fuzzing engine minimises
// every new interesting input for up to -fuzzminimizetime (60s by default),
// during which its statistics stand still; for long runs use e.g.
//
//	go test -run='^$' -fuzz=FuzzParse -fuzztime=5m -fuzzminimizetime=2s ./soc/

// FuzzParse: Parse never panics, and a profile it accepts has a register
// map that passes Validate and at least one controller and identity check.
func FuzzParse(f *testing.F) {
	seedProfiles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("fuzz.toml", data)
		if err != nil {
			if p != nil {
				t.Fatalf("Parse returned a profile and an error: %v", err)
			}
			return
		}
		if p.Map == nil {
			t.Fatal("accepted profile has no map")
		}
		if err := p.Map.Validate(); err != nil {
			t.Fatalf("accepted profile's map does not validate: %v", err)
		}
		if len(p.Controllers) == 0 || len(p.Identity) == 0 {
			t.Fatal("accepted profile without controllers or identity checks")
		}
		// Every controller's own map (core type, usbmisc word) is
		// valid and reaches no further than its span.
		for _, c := range p.Controllers {
			if c.Map == nil {
				t.Fatalf("controller %s has no map", c.Label)
			}
			if err := c.Map.Validate(); err != nil {
				t.Fatalf("controller %s's map does not validate: %v", c.Label, err)
			}
			if c.Map.End() > c.Span() {
				t.Fatalf("controller %s's map ends at %#x past its span %#x", c.Label, c.Map.End(), c.Span())
			}
		}
		// Every accepted board value names a field it fits, in the
		// profile's map or (the usbmisc word) a controller's.
		for _, b := range p.Board {
			ref, err := p.Map.Lookup(b.Field)
			for i := 0; err != nil && i < len(p.Controllers); i++ {
				ref, err = p.Controllers[i].Map.Lookup(b.Field)
			}
			if err != nil || ref.Field == nil || b.Value > ref.Field.WidthMax() {
				t.Fatalf("accepted board value %+v: %v", b, err)
			}
		}
		for _, c := range p.Controllers {
			BoardStart(p, SimRole(&c))
		}
	})
}

// FuzzLocator: on any text that TOML accepts, the locator finds exactly
// the keys the decoder finds. The line numbers of Parse's errors depend on
// it, and so does its unknown-key check.
func FuzzLocator(f *testing.F) {
	seedProfiles(f)
	f.Add([]byte("a.\"b.c\" = 1\n[x . 'y']\nz = [ {q = 1}, # c\n {r = [1, [2]]} ]\n[[t]]\n[[t.u]]\nv = \"\"\"\n[w]\n\"\"\"\"\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var generic map[string]any
		if _, err := toml.Decode(string(data), &generic); err != nil {
			newLocator("fuzz.toml", data) // must not panic either
			return
		}
		want := map[string]bool{}
		collectKeys(nil, generic, want)
		got := map[string]bool{}
		l := newLocator("fuzz.toml", data)
		for _, kp := range l.keys {
			for n := 1; n <= len(kp.segs); n++ {
				got[toml.Key(kp.segs[:n]).String()] = true
			}
			if kp.line < 1 || kp.line > len(l.nl)+1 {
				t.Fatalf("key %s: line %d outside the text", kp.path, kp.line)
			}
		}
		if d := diffKeys(want, got); d != "" {
			t.Fatalf("locator and decoder disagree on keys: %s", d)
		}
	})
}

func collectKeys(prefix []string, v any, out map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := append(append([]string(nil), prefix...), k)
			out[toml.Key(p).String()] = true
			collectKeys(p, x, out)
		}
	case []map[string]any:
		for _, x := range v {
			collectKeys(prefix, x, out)
		}
	case []any:
		for _, x := range v {
			collectKeys(prefix, x, out)
		}
	}
}

func diffKeys(want, got map[string]bool) string {
	var d []string
	for k := range want {
		if !got[k] {
			d = append(d, "missing "+k)
		}
	}
	for k := range got {
		if !want[k] {
			d = append(d, "extra "+k)
		}
	}
	sort.Strings(d)
	if len(d) > 5 {
		d = d[:5]
	}
	var s string
	for _, x := range d {
		s += x + "; "
	}
	return s
}
