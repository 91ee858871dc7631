package soc

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// Paths read by Detect, relative to the root file system.
const (
	CompatiblePath = "proc/device-tree/compatible"
	SocIDPath      = "sys/devices/soc0/soc_id"
)

// Detection is the outcome of Detect.
type Detection struct {
	Compatible []string // root compatible strings of the device tree
	SocID      string
	Candidates []*Profile // profiles whose compatible or soc_id matched
	Chosen     *Profile
	// Notes says, per candidate, why it was taken or rejected.
	Notes []string
}

// ErrNoProfile is wrapped when no profile fits the machine.
var ErrNoProfile = errors.New("no profile matches this machine")

// Detect reads the device tree's root compatible and the SoC id from root
// and picks a profile among ps. Several may match the same device tree
// (the QEMU board uses the real i.MX6Q tree): the one whose identify
// (the identity checks) passes is chosen.
func Detect(root fs.FS, ps []*Profile, identify func(*Profile) error) (*Detection, error) {
	d := &Detection{}
	if b, err := fs.ReadFile(root, CompatiblePath); err == nil {
		d.Compatible = strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 })
	}
	if b, err := fs.ReadFile(root, SocIDPath); err == nil {
		d.SocID = strings.TrimSpace(string(b))
	}
	if len(d.Compatible) == 0 && d.SocID == "" {
		return d, fmt.Errorf("%w: neither /%s nor /%s is readable (not an i.MX/Vybrid Linux system?)", ErrNoProfile, CompatiblePath, SocIDPath)
	}
	for _, p := range ps {
		if p.matches(d.Compatible, d.SocID) {
			d.Candidates = append(d.Candidates, p)
		}
	}
	if len(d.Candidates) == 0 {
		return d, fmt.Errorf("%w: compatible %q, soc_id %q", ErrNoProfile, d.Compatible, d.SocID)
	}
	var passed []*Profile
	for _, p := range d.Candidates {
		if identify == nil {
			passed = append(passed, p)
			continue
		}
		if err := identify(p); err != nil {
			d.Notes = append(d.Notes, fmt.Sprintf("%s: rejected: %v", p.Name, err))
			continue
		}
		d.Notes = append(d.Notes, fmt.Sprintf("%s: identity checks pass", p.Name))
		passed = append(passed, p)
	}
	switch len(passed) {
	case 1:
		d.Chosen = passed[0]
		return d, nil
	case 0:
		return d, fmt.Errorf("%w: the device tree matches %s, but no controller passed the identity checks:\n  %s", ErrNoProfile, names(d.Candidates), strings.Join(d.Notes, "\n  "))
	}
	return d, fmt.Errorf("%w: several profiles fit (%s)", ErrNoProfile, names(passed))
}

func (p *Profile) matches(compat []string, socID string) bool {
	if slices.ContainsFunc(p.Compatible, func(c string) bool { return slices.Contains(compat, c) }) {
		return true
	}
	return socID != "" && slices.ContainsFunc(p.SocID, func(s string) bool { return strings.EqualFold(s, socID) })
}

func names(ps []*Profile) string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Name)
	}
	return strings.Join(s, ", ")
}
