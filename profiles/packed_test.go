package profiles_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/soc"
)

// TestPackedFresh: packed.z holds exactly what soc.Parse builds from
// each *.toml source (run `go test ./profiles -update` after editing a
// profile or a type soc.PackProfile writes). soc's TestPackRoundTrip
// checks that what is packed unpacks to Parse's profile.
func TestPackedFresh(t *testing.T) {
	ps, err := soc.LoadAll(os.DirFS("."))
	if err != nil {
		t.Fatal(err)
	}
	blobs := map[string][]byte{}
	for _, p := range ps {
		b, err := soc.PackProfile(p)
		if err != nil {
			t.Fatal(err)
		}
		blobs[p.File] = b
	}
	if *profiles.Update {
		var buf bytes.Buffer
		if err := profiles.PackArchive(&buf, blobs); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("packed.z", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		defer profiles.SetPacked(buf.String())()
	}
	names, err := profiles.PackedNames()
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != len(blobs) {
		t.Errorf("packed.z has %d profiles, the sources %d: run go test ./profiles -update", len(names), len(blobs))
	}
	for n, b := range blobs {
		got, err := profiles.Packed(n)
		if err != nil || got != string(b) {
			t.Errorf("%s: packed.z is stale (%v): run go test ./profiles -update", n, err)
		}
	}
	if _, err := profiles.Packed("nope.toml"); err == nil {
		t.Error("Packed of a missing profile")
	}
	for _, bad := range []string{"", "\x05", "\x01\x03abc\x09xyz", "\x01\x0aimx6q.toml\x02zz"} {
		restore := profiles.SetPacked(bad)
		_, err := profiles.Packed("imx6q.toml")
		restore()
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Packed of archive %q: %v, want it corrupt", bad, err)
		}
	}
}

// BenchmarkLoadPacked: what a register command pays for its profile
// (cmd/citune's builtinProfile): inflate one entry, unpack it.
func BenchmarkLoadPacked(b *testing.B) {
	for _, n := range []string{"imx6q.toml", "vf610.toml"} {
		b.Run(n, func(b *testing.B) {
			for b.Loop() {
				s, err := profiles.Packed(n)
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
