package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/undo"
)

// TestProgressBar: the bar names the kind of run and cuts a long probe
// name to 40 columns; clear erases only what was drawn.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	bar := &progressBar{w: &b, n: 1}
	bar.clear()
	if b.Len() != 0 {
		t.Fatalf("clear before drawing wrote %q", b.String())
	}
	name := "read /dev/disk/by-id/usb-Generic_Flash_Disk_1234-0:0 bs=1M size=256M"
	bar.update(probe.Progress{Name: name, Run: 1, Runs: 4, Warmup: true, Done: 1 << 20, Total: 4 << 20})
	got := b.String()
	if !strings.Contains(got, "[#######-----------------------]  25% warm-up 1/4 ") || !strings.HasSuffix(got, " "+name[:37]+"...") {
		t.Errorf("warm-up line %q", got)
	}
	b.Reset()
	bar.update(probe.Progress{Name: "sim", Run: 2, Runs: 4, Done: 4 << 20, Total: 4 << 20})
	if got := b.String(); !strings.Contains(got, "100% run 2/4 ") || !strings.HasSuffix(got, " sim") {
		t.Errorf("last line %q", got)
	}
	b.Reset()
	bar.clear()
	if b.String() != "\r\x1b[K" {
		t.Errorf("clear wrote %q", b.String())
	}
}

// TestQuotedArg: a flag's value in an installed resume's command, and
// nothing for a flag that is not there or a value that is not closed.
func TestQuotedArg(t *testing.T) {
	cmd := []byte("'/usr/bin/citune' '--journal' '/var/lib/j.json' 'sweep' '--resume' '/root/r.jsonl'\n")
	for flag, want := range map[string]string{"--journal": "/var/lib/j.json", "--resume": "/root/r.jsonl", "--out": ""} {
		if got := quotedArg(cmd, flag); got != want {
			t.Errorf("quotedArg(%s) = %q, want %q", flag, got, want)
		}
	}
	if got := quotedArg([]byte("'--resume' '/root/r.jsonl"), "--resume"); got != "" {
		t.Errorf("an open quote gave %q", got)
	}
}

// TestExplainUndoBusy: what a user can do about each kind of owner.
func TestExplainUndoBusy(t *testing.T) {
	id := undo.DevMem(0x02184200)
	for _, tc := range []struct {
		be   undo.BusyError
		k    undo.Kind
		want string
	}{
		{undo.BusyError{Target: id, Elsewhere: true, Holder: undo.Owner{PID: 42}}, undo.KindSet,
			"let it end or stop it (kill -TERM 42; a sweep or TUI session restores by itself), or give its journal with --journal; --force goes ahead anyway (its end may undo this change)"},
		{undo.BusyError{Target: id, Elsewhere: true}, undo.KindSweep,
			"let it end (a sweep or TUI session restores by itself), or give its journal with --journal"},
		{undo.BusyError{Target: id, Holder: undo.Owner{Kind: undo.KindSweep, PID: 7}}, undo.KindRestore,
			"stop it (Ctrl-C there, or kill -TERM 7) and it restores by itself; --force goes ahead anyway (its end may undo this change)"},
		{undo.BusyError{Target: id, Holder: undo.Owner{Kind: undo.KindSet, PID: 7}}, undo.KindSet,
			"try again when it has finished"},
	} {
		be := tc.be
		err := explainUndo(&be, tc.k)
		if !strings.HasSuffix(err.Error(), ": "+tc.want) || !errors.Is(err, undo.ErrBusy) {
			t.Errorf("%+v, %s: %v\nwant it to end in %q", tc.be, tc.k, err, tc.want)
		}
	}
}
