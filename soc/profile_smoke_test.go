package soc

import (
	"testing"

	"github.com/citune/citune/profiles"
)

func TestEmbeddedProfilesLoad(t *testing.T) {
	ps, err := LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no profiles")
	}
}
