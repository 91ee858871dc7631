// Package bootargs reads and writes the kernel command line a board's
// boot loader passes at the next boot: the U-Boot environment (as
// fw_env.config describes it) and extlinux.conf. Standard library only.
package bootargs

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The kinds of store.
const (
	KindUBoot    = "uboot-env"
	KindExtlinux = "extlinux"
)

// Store is a boot loader's copy of the next boot's variables: bootargs
// (extlinux: the default entry's append line) and fdtoverlays.
type Store interface {
	Kind() string
	// Config is the file that locates the store (fw_env.config or
	// extlinux.conf), as recorded in the journal.
	Config() string
	// Describe says what was found, for the user.
	Describe() string
	// Get returns variable name and whether it is set.
	Get(name string) (string, bool, error)
	// Set changes variables (nil: remove) in one write.
	Set(vals map[string]*string) error
}

// ErrNone is returned by Detect when no boot loader store is found.
var ErrNone = errors.New("no boot loader store found (neither /etc/fw_env.config nor /boot/extlinux/extlinux.conf)")

// Detect finds the store under root ("/" on a board): extlinux.conf
// first, else the U-Boot environment that fw_env.config locates.
// Decision: where both exist, U-Boot's distro boot reads extlinux.conf
// and sets bootargs from its append line, so the environment's bootargs
// would not reach the kernel. Device paths in fw_env.config are taken
// under root.
func Detect(root string) (Store, error) {
	for _, c := range []struct{ kind, path string }{
		{KindExtlinux, "boot/extlinux/extlinux.conf"}, {KindExtlinux, "extlinux/extlinux.conf"}, {KindExtlinux, "boot/extlinux.conf"},
		{KindUBoot, "etc/fw_env.config"}, {KindUBoot, "etc/u-boot-env.config"},
	} {
		p := filepath.Join(root, c.path)
		if _, err := os.Stat(p); err == nil {
			return Open(c.kind, p, root)
		}
	}
	return nil, ErrNone
}

// Open opens a store of kind at config (device paths under root).
func Open(kind, config, root string) (Store, error) {
	switch kind {
	case KindUBoot:
		return openUBoot(config, root)
	case KindExtlinux:
		return &extlinux{path: config}, nil
	}
	return nil, fmt.Errorf("unknown boot loader store kind %q", kind)
}

// SetParam returns cmdline with name=value: every token of that name
// (the kernel reads - and _ alike in parameter names) replaced by one,
// where the first stood, else appended.
func SetParam(cmdline, name, value string) string {
	var out []string
	done := false
	for _, f := range strings.Fields(cmdline) {
		n, _, _ := strings.Cut(f, "=")
		if norm(n) != norm(name) {
			out = append(out, f)
		} else if !done {
			out, done = append(out, name+"="+value), true
		}
	}
	if !done {
		out = append(out, name+"="+value)
	}
	return strings.Join(out, " ")
}

// Param returns the value of the last name=value in cmdline (the one
// the kernel takes).
func Param(cmdline, name string) (string, bool) {
	v, ok := "", false
	for _, f := range strings.Fields(cmdline) {
		if n, x, _ := strings.Cut(f, "="); norm(n) == norm(name) {
			v, ok = x, true
		}
	}
	return v, ok
}

func norm(s string) string { return strings.ReplaceAll(s, "-", "_") }

// writeAtomic replaces path by data through a temporary file beside it.
func writeAtomic(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp := path + ".citune.tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	err = cmp.Or(err, f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// ResumeFiles are the one-shot resume at boot a cmdline: sweep installs
// (relative to the root): a systemd unit and its enabling link, or an
// init script for busybox or sysvinit. `citune restore` removes them with
// the boot arguments, so no sweep resumes after the restore.
var ResumeFiles = []string{
	"etc/systemd/system/multi-user.target.wants/citune-resume.service",
	"etc/systemd/system/citune-resume.service",
	"etc/init.d/S99citune-resume",
}

// RemoveResume removes ResumeFiles under root and names those removed.
func RemoveResume(root string) []string {
	var gone []string
	for _, p := range ResumeFiles {
		if err := os.Remove(filepath.Join(root, p)); err == nil {
			gone = append(gone, "/"+p)
		}
	}
	return gone
}
