package report

import (
	"strings"
	"testing"
)

// Files get the shortest labels that tell them apart: as many trailing
// directories as that takes, else a number.
func TestUniqueLabels(t *testing.T) {
	for _, c := range []struct{ files, want string }{
		{"a/r1.jsonl b/r2.jsonl", "r1 r2"},
		{"a/x/r.jsonl b/x/r.jsonl c/r.jsonl", "a/x/r b/x/r c/r"},
		{"q/r.jsonl q/r.jsonl", "1:r 2:r"},
	} {
		var ss []*Sweep
		for _, f := range strings.Fields(c.files) {
			ss = append(ss, &Sweep{File: f})
		}
		uniqueLabels(ss)
		var got []string
		for _, s := range ss {
			got = append(got, s.Label)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: labels %s, want %s", c.files, g, c.want)
		}
	}
}
