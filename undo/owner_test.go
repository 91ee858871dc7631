package undo

// One owner per target wherever the journal is: the lock that lives with
// the target (the image itself, or the system-wide folder for /dev/mem)
// is met by every journal's sessions.

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/citune/citune/regs"
)

func TestOneOwnerAcrossJournals(t *testing.T) {
	img := filepath.Join(t.TempDir(), "regs.bin")
	if err := os.WriteFile(img, make([]byte, 0x200), 0o600); err != nil {
		t.Fatal(err)
	}
	imgID, err := File(img)
	if err != nil {
		t.Fatal(err)
	}
	for name, id := range map[string]TargetID{"image": imgID, "devmem": DevMem(0x2184200)} {
		t.Run(name, func(t *testing.T) {
			a := newFixture(t)
			a.id = id
			b := newFixture(t)
			b.id, b.locks, b.acc = id, a.locks, a.acc // another journal, the same target
			sw, err := a.open(t, KindSweep, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := sw.Apply([]regs.Change{a.change(t, "ITC=64")}); err != nil {
				t.Fatal(err)
			}
			_, err = os.Stat("/proc/locks")
			procLocks := err == nil // the kernel names the image's holder
			kinds := []Kind{KindSet, KindSweep, KindTUI, KindRestore}
			if id.Kind == TargetFile {
				// A short owner waits a moment for an owner that does not
				// say who it is (a set is done within it): one is enough.
				kinds = []Kind{KindSet, KindSweep}
			}
			for _, k := range kinds {
				_, err := b.open(t, k, nil)
				var be *BusyError
				if !errors.As(err, &be) {
					t.Fatalf("%s under a second journal while a sweep owns the target: %v, want busy", k, err)
				}
				if id.Kind == TargetDevMem && (be.Holder.PID != os.Getpid() || be.Holder.Kind != KindSweep) {
					t.Errorf("%s: %v does not name the sweep", k, err)
				}
				if id.Kind == TargetFile && (!strings.Contains(err.Error(), "under another journal") || be.Holder.PID != os.Getpid() && procLocks) {
					t.Errorf("%s: %v", k, err)
				}
			}
			if a.field(t, "ITC") != 64 {
				t.Errorf("ITC %d", a.field(t, "ITC"))
			}
			// Forced, a set goes ahead with a warning; a sweep never.
			s, err := b.open(t, KindSet, func(o *Options) { o.Force = true })
			if err != nil || len(s.Warnings()) == 0 {
				t.Fatalf("forced set: %v, warnings %v", err, s.Warnings())
			}
			s.Close()
			sw.Restore(t.Context())
			sw.Close()
			s, err = b.open(t, KindSet, nil)
			if err != nil {
				t.Fatalf("set under the second journal after the sweep ended: %v", err)
			}
			s.Close()
		})
	}
}

// An image's owner under another journal is named by what its command
// line says it is, not by its pid alone.
func TestProcOwnerNamesKind(t *testing.T) {
	c := exec.Command("/bin/sh", "-c", "sleep 30", "citune", "--mem-file", "x.bin", "sweep", "--axis", "ITC=1,2")
	if err := c.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { c.Process.Kill(); c.Wait() }()
	var o Owner
	for i := 0; i < 200; i++ { // until the child has exec'd sh
		if o = procOwner(c.Process.Pid); o.Kind != "" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if o.Kind != KindSweep || o.PID != c.Process.Pid || o.Start == 0 {
		t.Fatalf("procOwner = %+v, want kind sweep, pid %d, a start time", o, c.Process.Pid)
	}
	if s := o.String(); !strings.Contains(s, "citune sweep (pid ") || strings.Contains(s, "since") {
		t.Errorf("String() = %q", s)
	}
	if o := procOwner(os.Getpid()); o.Kind != "" || o.PID != os.Getpid() {
		t.Errorf("a test binary's command line names no kind: %+v", o)
	}
}

// restore writes only /sys and /proc files, also after symbolic links.
func TestSysOrProc(t *testing.T) {
	for path, want := range map[string]bool{
		"/sys/block/sda/queue/scheduler":  true,
		"/proc/sys/vm/dirty_ratio":        true,
		"/proc/self/root/tmp/victim":      false,
		"/proc/1/cwd/etc/passwd":          false,
		"/proc/self/fd/3":                 false,
		"/sys/../etc/passwd":              false,
		"/etc/passwd":                     false,
		"/sys/module/ehci_hcd/parameters": true,
	} {
		if got := sysOrProc(path); got != want {
			t.Errorf("sysOrProc(%q) = %v, want %v", path, got, want)
		}
	}
}
