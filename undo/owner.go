package undo

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Kind is what kind of citune process owns a change.
type Kind string

// Owner kinds. Sweeps and TUI sessions are long owners (they hold a
// target for minutes and restore it at their end); set and restore short.
const (
	KindSet     Kind = "set"
	KindSweep   Kind = "sweep"
	KindTUI     Kind = "tui"
	KindRestore Kind = "restore"
)

// Long reports whether the kind holds a target for a whole session.
func (k Kind) Long() bool { return k == KindSweep || k == KindTUI }

// Owner identifies a citune process: its pid and the pid's start time
// (clock ticks after boot, from /proc/PID/stat) together with the boot id,
// so that a reused pid is never mistaken for the owner.
type Owner struct {
	Kind    Kind      `json:"kind"`
	PID     int       `json:"pid"`
	Start   uint64    `json:"start"`
	Boot    string    `json:"boot,omitempty"`
	Command []string  `json:"command,omitempty"`
	Since   time.Time `json:"since"`
}

// Self is this process as an owner of kind k.
func Self(k Kind, command []string) Owner {
	pid := os.Getpid()
	st, _ := procStart(pid)
	return Owner{Kind: k, PID: pid, Start: st, Boot: bootID(), Command: command, Since: time.Now().UTC().Truncate(time.Second)}
}

// Same reports whether o and p are the same process.
func (o Owner) Same(p Owner) bool {
	return o.PID == p.PID && o.Start == p.Start && o.Boot == p.Boot
}

// Alive reports whether the owner's process still runs: the pid exists,
// started at the recorded time, in this boot.
func (o Owner) Alive() bool {
	if o.PID <= 0 || o.Boot != "" && o.Boot != bootID() {
		return false
	}
	st, err := procStart(o.PID)
	return err == nil && (o.Start == 0 || st == o.Start)
}

// String describes the owner for people: "citune sweep (pid 123, since
// 2026-12-01 10:00:00 UTC: citune sweep --axis ...)".
func (o Owner) String() string {
	cmd := strings.Join(o.Command, " ")
	if len(cmd) > 120 {
		cmd = cmd[:117] + "..."
	}
	s := fmt.Sprintf("citune %s (pid %d", o.Kind, o.PID)
	if !o.Since.IsZero() {
		s += ", since " + o.Since.Format("2006-01-02 15:04:05 MST")
	}
	if cmd != "" {
		s += ": " + cmd
	}
	return s + ")"
}

// procStart reads the start time of pid (field 22 of /proc/PID/stat).
func procStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStat(string(b))
}

// parseStat extracts starttime from a /proc/PID/stat line, counting
// fields after the last ')': the command (field 2) may hold spaces.
func parseStat(s string) (uint64, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat: no command field")
	}
	f := strings.Fields(s[i+1:])
	const startField = 22 - 3 // fields after the command start at field 3
	if len(f) <= startField {
		return 0, fmt.Errorf("stat: %d fields", len(f)+2)
	}
	return strconv.ParseUint(f[startField], 10, 64)
}

func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
