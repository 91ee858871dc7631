package main

import "testing"

// FuzzParseSidecar: an image's sidecar is read from beside any image.
func FuzzParseSidecar(f *testing.F) {
	f.Add([]byte(`{"kind":"citune-image","profile":"imx6q","controller":"usbh1","values":"reset"}`))
	f.Add([]byte(`{"kind":"other"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := parseSidecar(b)
		if err == nil && s.Kind != sidecarKind {
			t.Fatalf("accepted a sidecar of kind %q", s.Kind)
		}
		if err != nil && s != (sidecar{}) {
			t.Fatalf("a refused sidecar carries %+v", s)
		}
	})
}
