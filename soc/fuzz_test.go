package soc

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
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
			BoardStart(p, simStart(p, &c, Snapshot{}))
		}
	})
}

// FuzzLocator: on any text that TOML accepts, the locator puts every key
// the decoder finds within the text and never before the table or key
// that holds it. The line numbers of Parse's errors
// depend on it.
func FuzzLocator(f *testing.F) {
	seedProfiles(f)
	f.Add([]byte("a.\"b.c\" = 1\n[x . 'y']\nz = [ {q = 1}, # c\n {r = [1, [2]]} ]\n[[t]]\n[[t.u]]\nv = \"\"\"\n[w]\n\"\"\"\"\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var generic map[string]any
		if _, err := toml.Decode(string(data), &generic); err != nil {
			newLocator("fuzz.toml", data, nil).decodeError(err, false) // must not panic either
			return
		}
		l := newLocator("fuzz.toml", data, generic)
		lines := bytes.Count(data, []byte("\n")) + 1
		for p := range l.paths {
			n := l.line(pos{path: p})
			if n < 1 || n > lines {
				t.Fatalf("key %s: line %d outside the text", p, n)
			}
			if up := parentPath(p); up != "" && l.line(pos{path: up}) > n {
				t.Fatalf("key %s at line %d, before %s at line %d", p, n, up, l.line(pos{path: up}))
			}
		}
	})
}
