package profiles

import (
	"bytes"
	"errors"
	"flag"
	"io/fs"
	"os"
	"reflect"
	"testing"

	"github.com/citune/citune/soc"
)

var update = flag.Bool("update", false, "rewrite packed.z from the *.toml sources")

// TestPackedFresh: packed.z holds exactly what soc.Parse builds from
// each *.toml source (run `go test ./profiles -update` after editing a
// profile or a type packProfile writes). soc's TestPackRoundTrip
// checks that what is packed unpacks to Parse's profile.
func TestPackedFresh(t *testing.T) {
	ps, err := soc.LoadAll(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{}
	for _, p := range ps {
		b, err := packProfile(p)
		if err != nil {
			t.Fatal(err)
		}
		blobs[p.File] = b
	}
	if *update {
		var buf bytes.Buffer
		if err := packArchive(&buf, blobs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("packed.z", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		defer setPacked(buf.String())()
	}
	names, err := PackedNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(blobs) {
		t.Errorf("packed.z has %d profiles, the sources %d: run go test ./profiles -update", len(names), len(blobs))
	}
	for n, b := range blobs {
		got, err := Packed(n)
		if err != nil || got != string(b) {
			t.Errorf("%s: packed.z is stale (%v): run go test ./profiles -update", n, err)
		}
	}
	if _, err := Packed("nope.toml"); err == nil {
		t.Error("Packed of a missing profile")
	}
	for _, bad := range []string{"", "\x05", "\x01\x03abc\x09xyz", "\x01\x0aimx6q.toml\x02zz"} {
		restore := setPacked(bad)
		_, err := Packed("imx6q.toml")
		restore()
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Packed of archive %q: %v, want it corrupt", bad, err)
		}
	}
}

// setPacked replaces the packed archive until restore is called.
func setPacked(a string) (restore func()) {
	old := packed
	packed = a
	return func() { packed = old }
}

// TestFS: FS holds every source.
func TestFS(t *testing.T) {
	want, _ := fs.Glob(os.DirFS("."), "*.toml")
	got, err := fs.Glob(FS, "*.toml")
	if err != nil || len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("FS has %v (%v), the directory %v", got, err, want)
	}
}

// FuzzUnpackProfile: no input crashes or hangs soc.UnpackProfile; what
// it accepts packs again to a profile that unpacks to the same.
func FuzzUnpackProfile(f *testing.F) {
	s, err := Packed("imx6q.toml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(s)
	f.Add(s[:len(s)/2])
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := soc.UnpackProfile(s)
		if err != nil {
			return
		}
		if p.Map == nil {
			return // not a built profile: packProfile refuses it
		}
		b, err := packProfile(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := soc.UnpackProfile(string(b))
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("packed again: %v", err)
		}
	})
}

// BenchmarkLoadPacked: what a register command pays for its profile
// (cmd/citune's builtinProfile): inflate one entry, unpack it.
func BenchmarkLoadPacked(b *testing.B) {
	for _, n := range []string{"imx6q.toml", "vf610.toml"} {
		b.Run(n, func(b *testing.B) {
			for b.Loop() {
				s, err := Packed(n)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := soc.UnpackProfile(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
