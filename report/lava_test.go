package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

func TestLavaName(t *testing.T) {
	cases := map[string]string{
		"ITC=1 AHBBRST=3":                  "ITC-1_AHBBRST-3",
		"ehci_hcd.log2_irq_thresh=0":       "ehci_hcd.log2_irq_thresh-0",
		"max_sectors_kb=512 ITC=8":         "max_sectors_kb-512_ITC-8",
		"/sys/block/sda/queue/x=1 µ>frame": "_sys_block_sda_queue_x-1___frame",
		"":                                 "point",
	}
	for in, want := range cases {
		if got := lavaName(in); got != want {
			t.Errorf("lavaName(%q) = %q, want %q", in, got, want)
		}
	}
	long := strings.Repeat("AHBBRST=3 ", 20)
	a, b := lavaName(long), lavaName(long+"x")
	if len(a) != 100 || len(b) != 100 || a == b {
		t.Errorf("long names: %q (%d) and %q (%d): want 100 characters each, different", a, len(a), b, len(b))
	}
}

// Every line WriteLAVA prints is a log line or a signal LAVA's test shell
// parses: fields without spaces, a known result, a number as measurement.
func TestWriteLAVASignals(t *testing.T) {
	sig := regexp.MustCompile(`^<LAVA_SIGNAL_TESTCASE TEST_CASE_ID=[A-Za-z0-9._-]{1,100} RESULT=(pass|fail|skip|unknown)( MEASUREMENT=-?[0-9]+(\.[0-9]+)? UNITS=[^ >=]+)?>$`)
	set := regexp.MustCompile(`^<LAVA_SIGNAL_TESTSET (START [A-Za-z0-9._-]+|STOP)>$`)
	for _, files := range [][]string{{"grid"}, {"ofat"}, {"interrupted"}, {"killed"}, {"resumed"}, {"adaptive"}, {"grid", "imx6ul"}} {
		var b bytes.Buffer
		if err := WriteLAVA(&b, load(t, files...)); err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		sets := 0
		done := func() {
			for _, n := range []string{"baseline", "sweep", "winner", "winner-gain"} {
				if !names["TEST_CASE_ID="+n] {
					t.Errorf("%v: no %s test case", files, n)
				}
			}
			names = map[string]bool{}
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			switch {
			case strings.HasPrefix(l, "citune: "):
				if strings.Contains(l, "<LAVA_SIGNAL") {
					t.Errorf("%v: a log line holds a signal: %q", files, l)
				}
			case set.MatchString(l):
				if strings.HasSuffix(l, "STOP>") {
					done()
					sets++
				}
			case sig.MatchString(l):
				n := strings.Fields(l)[1]
				if names[n] {
					t.Errorf("%v: test case %s twice in one set", files, n)
				}
				names[n] = true
			default:
				t.Errorf("%v: not a log line or a LAVA signal: %q", files, l)
			}
		}
		if len(files) == 1 {
			done()
		} else if sets != len(files) {
			t.Errorf("%v: %d test sets", files, sets)
		}
	}
}
