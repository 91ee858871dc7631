package main

import (
	"bytes"
	"regexp"
	"testing"
)

// xtermOnly matches what plainFilter must never let through.
var xtermOnly = regexp.MustCompile(`\x1b\[[<=>]|\x1b\[\?(2026|2027|2004|1049|1004|u)|\$p|\x1b\]|\x1bP|\x1b_`)

func TestPlainFilter(t *testing.T) {
	in := "\x1b[?2026$p\x1b[?2027$p\x1b[>4;2m\x1b[>1u\x1b[?u\x1b[<u\x1b[=1;1u\x1b[?2004h\x1b[?1049h\x1b]2;citune\x07" +
		"\x1b[?25l\x1b[H\x1b[2J\x1b[1mbold\x1b[0m text\x1b[?7h\x1b(B\x1b7\x1b8\x1b[3 q\x1bP+q544e\x1b\\end"
	var f plainFilter
	got := string(f.filter([]byte(in)))
	want := "\x1b[?25l\x1b[H\x1b[2J\x1b[1mbold\x1b[0m text\x1b[?7h\x1b(B\x1b7\x1b8end"
	if got != want {
		t.Errorf("filter:\n got %q\nwant %q", got, want)
	}
	// Cut anywhere between writes, the result is the same.
	for cut := 0; cut <= len(in); cut++ {
		var f plainFilter
		got := string(f.filter([]byte(in[:cut]))) + string(f.filter([]byte(in[cut:])))
		if got != want {
			t.Fatalf("cut at %d:\n got %q\nwant %q", cut, got, want)
		}
	}
}

func TestPlainTERM(t *testing.T) {
	for term, want := range map[string]bool{"vt100": true, "vt220": true, "vt102": true, "linux": true, "dumb": true, "": true,
		"xterm": false, "xterm-256color": false, "screen": false, "tmux-256color": false, "vte": false} {
		if got := plainTERM(term); got != want {
			t.Errorf("plainTERM(%q) = %v, want %v", term, got, want)
		}
	}
}

// FuzzPlainFilter: whatever the input and however it is cut, nothing
// xterm-only comes out and the text between sequences survives.
func FuzzPlainFilter(f *testing.F) {
	f.Add([]byte("\x1b[?2026$p\x1b[>4;2mhello\x1b[H"), 3)
	f.Add([]byte("\x1b]2;title\x07\x1b[?1049h\x1b[?25l"), 7)
	f.Add([]byte("\x1b[\x1b[>1u"), 1)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		var p plainFilter
		out := append(p.filter(in[:cut]), p.filter(in[cut:])...)
		if loc := xtermOnly.FindIndex(out); loc != nil && !bytes.Contains(in, out[loc[0]:loc[1]]) {
			t.Fatalf("filter made up %q from %q", out[loc[0]:loc[1]], in)
		}
		for _, seq := range regexp.MustCompile(`\x1b\[[<=>][0-9;]*[a-z]|\x1b\[\?2026\$p`).FindAll(out, -1) {
			t.Fatalf("xterm-only %q left in %q (from %q)", seq, out, in)
		}
	})
}
