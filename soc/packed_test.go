package soc

import (
	"io/fs"
	"reflect"
	"testing"

	"github.com/citune/citune/profiles"
)

// TestPackRoundTrip: every embedded profile, packed and unpacked, is
// exactly what Parse built.
func TestPackRoundTrip(t *testing.T) {
	names, _ := fs.Glob(profiles.FS, "*.toml")
	for _, n := range names {
		p, err := LoadFS(profiles.FS, n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := PackProfile(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnpackProfile(string(b))
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		p.src = nil
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%s: unpacked profile differs from Parse's", n)
		}
		for i := 0; i < len(b); i += 1 + len(b)/50 {
			if _, err := UnpackProfile(string(b[:i])); err == nil {
				t.Fatalf("%s: UnpackProfile of %d of %d bytes: no error", n, i, len(b))
			}
		}
	}
}

// TestUnpackConcurrent: two goroutines may unpack at once (the decoders
// are built once, under a lock; go test -race sees a race otherwise).
func TestUnpackConcurrent(t *testing.T) {
	p, err := LoadFS(profiles.FS, "vf610.toml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := PackProfile(p)
	if err != nil {
		t.Fatal(err)
	}
	decoders.Lock()
	decoders.m = nil // as in a fresh process
	decoders.Unlock()
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			_, err := UnpackProfile(string(b))
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
	p, err := LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		b.Fatal(err)
	}
	data, err := PackProfile(p)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d bytes packed", len(data))
	s := string(data)
	for b.Loop() {
		if _, err := UnpackProfile(s); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzUnpackProfile: no input crashes or hangs UnpackProfile; what it
// accepts packs again to a profile that unpacks to the same.
func FuzzUnpackProfile(f *testing.F) {
	p, err := LoadFS(profiles.FS, "imx6q.toml")
	if err != nil {
		f.Fatal(err)
	}
	b, err := PackProfile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(string(b[:len(b)/2]))
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := UnpackProfile(s)
		if err != nil {
			return
		}
		if p.Map == nil {
			return // not a built profile: PackProfile refuses it
		}
		b, err := PackProfile(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := UnpackProfile(string(b))
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("packed again: %v", err)
		}
	})
}
