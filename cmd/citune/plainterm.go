package main

import (
	"io"
	"os"
	"strconv"
	"strings"
)

// A serial console's vt100 (or the Linux console) knows none of the
// xterm and kitty extensions Bubble Tea v2 sends unconditionally once it
// has input: the synchronized-output and unicode-core mode queries
// (DECRQM, `\e[?2026$p`, only skipped for TERM_PROGRAM=Apple or SSH_TTY),
// modifyOtherKeys (`\e[>4;2m`) and the kitty keyboard stack (`\e[>1u`,
// `\e[<u`, `\e[?u`) whenever input is enabled, bracketed paste
// (`\e[?2004h`), the alternate screen, window titles (OSC). Those print
// as garbage there. Bubble Tea has no option to leave them out short of
// disabling input (read: cursed_renderer.go and tea.go of bubbletea
// v2.1.1), so for such a TERM the program's output goes through
// plainFilter, which drops them and keeps what a vt100 understands
// (cursor movement, erase, SGR, the standard DEC modes).

// plainTERM reports whether TERM names a terminal without xterm
// extensions: a DEC vt, the Linux console, dumb, or none.
func plainTERM(term string) bool {
	return term == "" || term == "dumb" || term == "linux" || strings.HasPrefix(term, "linux-") ||
		strings.HasPrefix(term, "vt") && len(term) > 2 && term[2] >= '0' && term[2] <= '9'
}

// plainFilter removes xterm-only control sequences from a byte stream.
// A sequence cut between two writes is held until it is complete.
type plainFilter struct {
	pending []byte
}

// vtModes are the DEC private modes a vt100 and the Linux console know
// (cursor keys, column, scrolling, screen, origin, wrap, repeat, cursor
// visible).
var vtModes = map[int]bool{1: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true, 25: true}

// filter returns what of b (after any held bytes) may reach the terminal.
func (f *plainFilter) filter(b []byte) []byte {
	data := append(f.pending, b...)
	f.pending = nil
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); {
		if data[i] != 0x1b {
			out = append(out, data[i])
			i++
			continue
		}
		n, ok := seqLen(data[i:])
		if !ok {
			f.pending = append([]byte(nil), data[i:]...)
			break
		}
		if keepSeq(data[i : i+n]) {
			out = append(out, data[i:i+n]...)
		}
		i += n
	}
	return out
}

// seqLen is the length of the escape sequence at the start of s (s[0] is
// ESC); ok is false when s ends before the sequence does.
func seqLen(s []byte) (n int, ok bool) {
	if len(s) < 2 {
		return 0, false
	}
	switch s[1] {
	case '[': // CSI: parameters, intermediates, one final byte
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1, true
			}
			if s[i] < 0x20 || s[i] > 0x7e {
				return i, true // broken: stop before the stray byte
			}
		}
		return 0, false
	case ']', 'P', '_', '^', 'X': // OSC, DCS, APC, PM, SOS: up to ST (or BEL)
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 && s[1] == ']' {
				return i + 1, true
			}
			if s[i] == 0x1b {
				if i+1 >= len(s) {
					return 0, false
				}
				if s[i+1] == '\\' {
					return i + 2, true
				}
			}
		}
		return 0, false
	}
	if s[1] < 0x20 || s[1] == 0x7f {
		return 1, true // a lone ESC (dropped), then a control byte
	}
	// ESC, intermediates (0x20-0x2f), one final byte: ESC 7, ESC ( B.
	for i := 1; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return i, true // broken by a control byte: dropped
		}
		if s[i] > 0x2f {
			return i + 1, true
		}
	}
	return 0, false
}

// keepSeq decides whether a vt100 gets a complete sequence.
func keepSeq(seq []byte) bool {
	if len(seq) < 2 {
		return false // a lone ESC would start a sequence with what follows
	}
	switch seq[1] {
	case ']', 'P', '_', '^', 'X':
		return false // window titles, colour queries, terminal queries
	case '[':
		if len(seq) < 3 {
			return false // ESC [ cut short by a stray byte
		}
	default:
		f := seq[len(seq)-1]
		return f >= 0x30 && f <= 0x7e
	}
	body := seq[2 : len(seq)-1]
	final := seq[len(seq)-1]
	if final < 0x40 || final > 0x7e {
		return false // cut short by a stray byte
	}
	if len(body) > 0 && (body[0] == '<' || body[0] == '=' || body[0] == '>') {
		return false // kitty keyboard, modifyOtherKeys, secondary DA
	}
	for _, c := range body {
		if c >= 0x20 && c <= 0x2f {
			return false // intermediates: DECRQM ($p), cursor shape ( q)
		}
	}
	if len(body) > 0 && body[0] == '?' {
		if final != 'h' && final != 'l' {
			return false // kitty query (?u) and the like
		}
		for _, p := range strings.Split(string(body[1:]), ";") {
			n, err := strconv.Atoi(p)
			if err != nil || !vtModes[n] {
				return false
			}
		}
	}
	return true
}

// plainTerm is the terminal for Bubble Tea when TERM is plain: writes go
// through the filter.
type plainTerm struct {
	f *os.File
	plainWriter
}

func (t *plainTerm) Read(b []byte) (int, error) { return t.f.Read(b) }
func (t *plainTerm) Close() error               { return t.f.Close() }
func (t *plainTerm) Fd() uintptr                { return t.f.Fd() }

func (t *plainTerm) WriteString(s string) (int, error) { return t.Write([]byte(s)) }

// plainWriter is the filter over any writer (not a terminal).
type plainWriter struct {
	w  io.Writer
	pf plainFilter
}

func (p *plainWriter) Write(b []byte) (int, error) {
	if _, err := p.w.Write(p.pf.filter(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// tuiOutput is where the TUI draws: w, filtered when TERM is plain.
func tuiOutput(w io.Writer, term string) io.Writer {
	if !plainTERM(term) {
		return w
	}
	if f, ok := w.(*os.File); ok {
		return &plainTerm{f: f, plainWriter: plainWriter{w: f}}
	}
	return &plainWriter{w: w}
}
