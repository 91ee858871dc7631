//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/undo"
)

// stuckCommand changes ITC on the target through an undo session, then
// blocks in a read(2) that never returns (a pipe nobody writes to, read
// with a blocking system call: the way a probe read of a wedged disk
// sits in the kernel), ignoring its context.
func init() {
	register(&command{name: "test-stuck", summary: "(tests) change ITC, then block in the kernel", usage: "test-stuck",
		run: func(a *app, args []string) error {
			t, err := a.open(true)
			if err != nil {
				return err
			}
			u, closeUndo, err := a.openUndo(t, undo.KindSweep, undoOpts{})
			if err != nil {
				return err
			}
			defer closeUndo()
			c, _ := t.Profile.Map.ParseChange("ITC=64")
			if _, err := u.Apply([]regs.Change{c}); err != nil {
				return err
			}
			var p [2]int
			if err := syscall.Pipe(p[:]); err != nil {
				return err
			}
			a.env.stdout.Write([]byte("blocking\n"))
			b := make([]byte, 1)
			syscall.Read(p[0], b) // never returns
			return nil
		}})
}

// syncWriter tells the test when the command has reached its read.
type syncWriter struct {
	bytes.Buffer
	at chan struct{}
}

func (w *syncWriter) Write(b []byte) (int, error) {
	n, err := w.Buffer.Write(b)
	if strings.Contains(string(b), "blocking") {
		close(w.at)
	}
	return n, err
}

func TestSignalRestoresWhileAReadIsStuckInTheKernel(t *testing.T) {
	defer func(h, x time.Duration) { haltGrace, exitGrace = h, x }(haltGrace, exitGrace)
	haltGrace, exitGrace = 100*time.Millisecond, 200*time.Millisecond
	dir := t.TempDir()
	img := filepath.Join(dir, "regs.bin")
	journal := filepath.Join(dir, "journal.json")
	e := &env{stdin: strings.NewReader(""), stderr: &bytes.Buffer{}, getenv: func(k string) string {
		if k == "CITUNE_JOURNAL" {
			return journal
		}
		return ""
	}}
	e.stdout = &bytes.Buffer{}
	if code := run(t.Context(), []string{"mkimage", "--profile", "imx6q", img}, e); code != 0 {
		t.Fatalf("mkimage: %d %s", code, e.stderr)
	}
	orig, _ := os.ReadFile(img)
	out := &syncWriter{at: make(chan struct{})}
	errb := &bytes.Buffer{}
	e.stdout, e.stderr = out, errb
	sigs := make(chan os.Signal, 2)
	done := make(chan int)
	go func() { done <- supervise([]string{"--profile", "imx6q", "--mem-file", img, "test-stuck"}, e, sigs) }()
	<-out.at
	now, _ := os.ReadFile(img)
	if bytes.Equal(now, orig) {
		t.Fatal("the command changed nothing")
	}
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGINT // a second Ctrl-C does not cut the restore short
	code := <-done
	if code == 0 {
		t.Errorf("exit code 0 after a signal")
	}
	after, _ := os.ReadFile(img)
	if !bytes.Equal(after, orig) {
		t.Errorf("ITC not restored: USBCMD %#08x, was %#08x", binary.LittleEndian.Uint32(after[0x140:]), binary.LittleEndian.Uint32(orig[0x140:]))
	}
	if !strings.Contains(errb.String(), "the original settings were restored") {
		t.Errorf("stderr: %s", errb)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		b, _ := os.ReadFile(journal)
		t.Errorf("journal left after the restore: %s", b)
	}
}
