package soc

import (
	"errors"
	"io/fs"
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
		{"i.MX6DL by soc_id", dt("", "i.MX6DL"), only("imx6q"), "imx6q", ""},
		{"i.MX6ULL by soc_id", dt("", "i.MX6ULL"), only("imx6ul"), "imx6ul", ""},
		{"i.MX6ULZ by soc_id", dt("", "i.MX6ULZ"), only("imx6ul"), "imx6ul", ""},
		{"i.MX6ULZ board", dt("inversepath,imx6ulz-usbarmory-mkII\x00fsl,imx6ull\x00fsl,imx6ulz\x00", "i.MX6ULZ"), only("imx6ul"), "imx6ul", ""},
		{"i.MX6QP board", dt("fsl,imx6qp-sabresd\x00fsl,imx6qp\x00", "i.MX6Q"), only("imx6q"), "imx6q", ""},
		// Issue 27: the i.MX7D/7S and i.MX8M Mini/Nano trees and soc_ids
		// each match exactly one profile (every identity check passing
		// would report two).
		{"i.MX7D board", dt("fsl,imx7d-sdb\x00fsl,imx7d\x00", "i.MX7D"), only("imx7d"), "imx7d", ""},
		{"i.MX7D board under QEMU", dt("fsl,imx7d-sdb\x00fsl,imx7d\x00", "i.MX7D"), only("qemu-imx7d"), "qemu-imx7d", ""},
		{"i.MX7S board", dt("warp,imx7s-warp\x00fsl,imx7s\x00", "i.MX7D"), only("imx7d"), "imx7d", ""},
		{"i.MX7D by soc_id", dt("", "i.MX7D"), only("imx7d"), "imx7d", ""},
		{"i.MX6UL EVK under QEMU", dt("fsl,imx6ul-14x14-evk\x00fsl,imx6ul\x00", "i.MX6UL"), only("qemu-imx6ul"), "qemu-imx6ul", ""},
		{"i.MX6UL EVK silicon", dt("fsl,imx6ul-14x14-evk\x00fsl,imx6ul\x00", "i.MX6UL"), only("imx6ul"), "imx6ul", ""},
		{"i.MX8MM board", dt("fsl,imx8mm-evk\x00fsl,imx8mm\x00", "i.MX8MM"), func(*Profile) error { return nil }, "imx8mm", ""},
		{"i.MX8MM by soc_id", dt("", "i.MX8MM"), func(*Profile) error { return nil }, "imx8mm", ""},
		{"i.MX8MN board", dt("fsl,imx8mn-ddr4-evk\x00fsl,imx8mn\x00", "i.MX8MN"), func(*Profile) error { return nil }, "imx8mn", ""},
		{"i.MX8MN by soc_id", dt("", "i.MX8MN"), func(*Profile) error { return nil }, "imx8mn", ""},
		{"i.MX8MP is not i.MX8MM", dt("fsl,imx8mp-evk\x00fsl,imx8mp\x00", "i.MX8MP"), nil, "", "no profile matches"},
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

func TestAliases(t *testing.T) {
	ps, err := LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	for alias, want := range map[string]string{"imx6dl": "imx6q", "imx6qp": "imx6q", "imx6ull": "imx6ul", "imx6ulz": "imx6ul", "imx6q": "imx6q", "vf610": "vf610"} {
		if p := Lookup(ps, alias); p == nil || p.Name != want {
			t.Errorf("Lookup(%q) = %v, want %s", alias, p, want)
		}
	}
	if p := Lookup(ps, "imx7s"); p == nil || p.Name != "imx7d" {
		t.Errorf("Lookup(imx7s) = %v, want imx7d", p)
	}
	if p := Lookup(ps, "imx8mq"); p != nil {
		t.Errorf("Lookup(imx8mq) = %s", p.Name)
	}
	// An alias that is another profile's name is an error.
	bad := fstest.MapFS{}
	for _, n := range []string{"imx6q.toml", "imx6ul.toml"} {
		data, _ := fs.ReadFile(profiles.FS, n)
		bad[n] = &fstest.MapFile{Data: data}
	}
	data := strings.Replace(string(bad["imx6ul.toml"].Data), `aliases = ["imx6ull", "imx6ulz"]`, `aliases = ["imx6ull", "imx6dl"]`, 1)
	bad["imx6ul.toml"] = &fstest.MapFile{Data: []byte(data)}
	if _, err := LoadAll(bad); err == nil || !strings.Contains(err.Error(), `alias "imx6dl" is already`) {
		t.Errorf("duplicate alias: %v", err)
	}
}
