package soc

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/citune/citune/profiles"
)

func TestDetect(t *testing.T) {
	ps, err := LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	dt := func(compat, socID string) fstest.MapFS {
		fs := fstest.MapFS{}
		if compat != "" {
			fs[CompatiblePath] = &fstest.MapFile{Data: []byte(compat)}
		}
		if socID != "" {
			fs[SocIDPath] = &fstest.MapFile{Data: []byte(socID + "\n")}
		}
		return fs
	}
	// identity stand-ins: which profile's checks pass on this "hardware".
	only := func(name string) func(*Profile) error {
		return func(p *Profile) error {
			if p.Name == name {
				return nil
			}
			return errors.New("identity check failed")
		}
	}
	tests := []struct {
		name     string
		root     fstest.MapFS
		identify func(*Profile) error
		want     string
		wantErr  string
	}{
		{"sabrelite silicon", dt("fsl,imx6q-sabrelite\x00fsl,imx6q\x00", "i.MX6Q"), only("imx6q"), "imx6q", ""},
		{"sabrelite under QEMU", dt("fsl,imx6q-sabrelite\x00fsl,imx6q\x00", "i.MX6Q"), only("qemu-sabrelite"), "qemu-sabrelite", ""},
		{"soc_id only", dt("", "i.MX6Q"), only("imx6q"), "imx6q", ""},
		{"unknown SoC", dt("acme,rocket\x00", "R1"), nil, "", "no profile matches"},
		{"nothing readable", dt("", ""), nil, "", "neither"},
		{"nothing passes identity", dt("fsl,imx6q\x00", ""), only("none"), "", "no controller passed"},
		{"two pass", dt("fsl,imx6q-sabrelite\x00fsl,imx6q\x00", ""), func(*Profile) error { return nil }, "", "several profiles fit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Detect(tc.root, ps, tc.identify)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, ErrNoProfile) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Chosen.Name != tc.want {
				t.Errorf("chose %s, want %s (notes %q)", d.Chosen.Name, tc.want, d.Notes)
			}
		})
	}
}
