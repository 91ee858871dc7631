package soc

import (
	"io/fs"
	"reflect"
	"testing"

	"github.com/citune/citune/profiles"
)

// TestPackRoundTrip: every embedded profile, as packed.z holds it,
// unpacks to exactly what Parse builds from its source (the encoder is
// profiles' generator, whose TestPackedFresh keeps packed.z fresh).
func TestPackRoundTrip(t *testing.T) {
	names, _ := fs.Glob(profiles.FS, "*.toml")
	if len(names) == 0 {
		t.Fatal("no profiles")
	}
	for _, n := range names {
		p, err := LoadFS(profiles.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		s, err := profiles.Packed(n)
		if err != nil {
			t.Fatalf("%s: %v (run go test ./profiles -update)", n, err)
		}
		q, err := UnpackProfile(s)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		p.src = nil
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%s: unpacked profile differs from Parse's (run go test ./profiles -update)", n)
		}
		for i := 0; i < len(s); i += 1 + len(s)/50 {
			if _, err := UnpackProfile(s[:i]); err == nil {
				t.Fatalf("%s: UnpackProfile of %d of %d bytes: no error", n, i, len(s))
			}
		}
	}
}

// TestUnpackConcurrent: two goroutines may unpack at once (the decoders
// are built once, under a lock; go test -race sees a race otherwise).
func TestUnpackConcurrent(t *testing.T) {
	s, err := profiles.Packed("vf610.toml")
	if err != nil {
		t.Fatal(err)
	}
	decoders.Lock()
	decoders.m = nil // as in a fresh process
	decoders.Unlock()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := UnpackProfile(s)
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	data, err := fs.ReadFile(profiles.FS, "imx6q.toml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Parse("imx6q.toml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnpackProfile(b *testing.B) {
	s, err := profiles.Packed("imx6q.toml")
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d bytes packed", len(s))
	for b.Loop() {
		if _, err := UnpackProfile(s); err != nil {
			b.Fatal(err)
		}
	}
}
