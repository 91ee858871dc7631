package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citune/citune/bootargs"
)

func TestResumeArgsDropThePlan(t *testing.T) {
	got := resumeArgs([]string{"--journal", "/j", "sweep", "--axis", "cmdline:ehci_hcd.park=0,3", "--repeat=5", "--out", "r.jsonl", "--force",
		"--sys-root", "/", "--reboot", "reboot -f", "--", "read", "/dev/sda"}, "/data/r.jsonl")
	want := []string{"--journal", "/j", "sweep", "--sys-root", "/", "--reboot", "reboot -f", "--resume", "/data/r.jsonl"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestInstallResumeSystemd(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "run/systemd/system"), 0o755)
	where, err := installResume(root, []string{"/usr/bin/citune", "sweep", "--reboot", `it's "$x" 5%`, "--resume", "/r.jsonl"})
	if err != nil || where != "/etc/systemd/system/citune-resume.service" {
		t.Fatal(where, err)
	}
	b, _ := os.ReadFile(filepath.Join(root, where))
	if !strings.Contains(string(b), `ExecStart=/bin/sh -c "'/usr/bin/citune' 'sweep' '--reboot' 'it'\\''s \"$$x\" 5%%' '--resume' '/r.jsonl' >>/var/log/citune-resume.log 2>&1"`+"\n") ||
		!strings.Contains(string(b), "WantedBy=multi-user.target") {
		t.Fatalf("unit:\n%s", b)
	}
	if l, err := os.Readlink(filepath.Join(root, "etc/systemd/system/multi-user.target.wants/citune-resume.service")); err != nil || l != where {
		t.Fatal(l, err)
	}
	// A second install (the next point) replaces it; the end removes it.
	if _, err := installResume(root, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if gone := bootargs.RemoveResume(root); len(gone) != 2 {
		t.Fatalf("removed %q", gone)
	}
}
