package probe

import (
	"errors"
	"flag"
	"testing"
)

// ParseFlags learns the caller's flags from the probes' words without
// building a probe: no simulator, map or target is needed.
func TestParseFlagsOnly(t *testing.T) {
	var sim bool
	extra := func(fs *flag.FlagSet) { fs.BoolVar(&sim, "sim", sim, "") }
	if err := ParseFlags([]string{"sim", "--sim", "--size", "8M"}, extra); err != nil {
		t.Fatal(err)
	}
	if !sim {
		t.Error("the caller's flag among the probe's words was not set")
	}
	if err := ParseFlags([]string{"read", "--size", "1M", "/nonexistent/disk", Also, "sim"}, extra); err != nil {
		t.Errorf("a target that does not exist is not looked at: %v", err)
	}
	for _, words := range [][]string{{"nosuch"}, {"sim", "--nosuchflag"}, {}} {
		if err := ParseFlags(words, extra); !errors.Is(err, ErrUsage) {
			t.Errorf("%q: %v, want a usage error", words, err)
		}
	}
}
