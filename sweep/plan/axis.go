package plan

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/sweep/host"
)

// Kind is what an axis changes.
type Kind string

// Axis kinds.
const (
	KindRegister Kind = "register" // a register field: "AHBBRST", "SBUSCFG.AHBBRST"
	KindFile     Kind = "file"     // a sysfs/procfs file: "sysfs:/sys/block/sda/queue/max_sectors_kb"
	KindModParam Kind = "modparam" // a module parameter: "modparam:ehci_hcd.log2_irq_thresh"
	// KindCmdline is a parameter of a built-in module, set on the kernel
	// command line: each value is a boot ("cmdline:ehci_hcd.park").
	KindCmdline Kind = "cmdline"
	// KindDT is a device-tree property of the controller's node, set by an
	// overlay the boot loader applies: each value is a boot, and it is in
	// force when the register field it sets reads it ("dt:tx-burst-size-dword").
	// Values are the property's (one cell), which is the field's value.
	KindDT Kind = "dt"
)

// ErrPlan is wrapped by every error about a plan that cannot run.
var ErrPlan = errors.New("invalid sweep plan")

// ErrNoAxes is wrapped (with ErrPlan) when a plan has no axis.
var ErrNoAxes = errors.New("no axes")

// Axis is one swept setting and the values it takes.
type Axis struct {
	Kind Kind `json:"kind"`
	// Name is REG.FIELD for registers, the absolute path for files and
	// module.param for module parameters.
	Name string `json:"name"`
	// Values in sweep order; register values are canonical decimal.
	Values []string `json:"values"`

	// Ref is the register field (KindRegister).
	Ref regs.Ref `json:"-"`
	// Module and Param split a module parameter's name (module name with
	// '_' for '-', as /sys/module spells it).
	Module string `json:"-"`
	Param  string `json:"-"`
}

// Label is the short name shown to people: the field name when it is
// unambiguous in the map, the path or module.param otherwise.
func (a *Axis) Label() string {
	if a.Kind == KindRegister {
		return a.Ref.Field.Name
	}
	return a.Name
}

// Spec renders the axis as the --axis flag would give it.
func (a *Axis) Spec() string { return a.SpecName() + "=" + strings.Join(a.Values, ",") }

// SpecName is the axis' name with its kind's prefix, as the --axis flag
// and NewAxis take it: REG.FIELD, sysfs:PATH or modparam:MODULE.PARAM.
func (a *Axis) SpecName() string {
	switch a.Kind {
	case KindFile:
		return "sysfs:" + a.Name
	case KindModParam, KindCmdline, KindDT:
		return string(a.Kind) + ":" + a.Name
	}
	return a.Name
}

// Number returns a register axis value as a number.
func (a *Axis) Number(v string) uint32 {
	n, _ := strconv.ParseUint(v, 10, 32)
	return uint32(n)
}

// ParseAxis parses an --axis spec against the register map m:
//
//	FIELD=V1,V2,...            register field (REG.FIELD or a unique FIELD;
//	                           values are numbers or value names; "all"
//	                           means every legal value of a field that has
//	                           a fixed set)
//	sysfs:/PATH=V1,V2,...      a file (also procfs: and file:)
//	modparam:MODULE.PARAM=V1,... a kernel module parameter
//	cmdline:MODULE.PARAM=V1,...  a built-in module's parameter, one boot each
//	dt:PROPERTY=V1,...          a device-tree property of the controller's
//	                            node, through an overlay, one boot each
func ParseAxis(m *regs.Map, spec string) (Axis, error) {
	s := strings.TrimSpace(spec)
	i := strings.LastIndex(s, "=")
	if i < 0 {
		return Axis{}, fmt.Errorf("%w: axis %q: want NAME=V1,V2 (values separated by commas)", ErrPlan, spec)
	}
	name, vals := strings.TrimSpace(s[:i]), splitValues(s[i+1:])
	return NewAxis(m, name, vals)
}

func splitValues(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// NewAxis builds an axis from a name (with its kind prefix, as in
// ParseAxis) and values, checking names and values.
func NewAxis(m *regs.Map, name string, vals []string) (Axis, error) {
	if len(vals) == 0 {
		return Axis{}, fmt.Errorf("%w: axis %s: no values", ErrPlan, name)
	}
	prefix, rest, hasPrefix := strings.Cut(name, ":")
	if !hasPrefix {
		return registerAxis(m, name, vals)
	}
	switch strings.ToLower(prefix) {
	case "sysfs", "procfs", "file":
		return fileAxis(rest, vals)
	case "modparam":
		return modParamAxis(rest, vals)
	case "cmdline":
		a, err := modParamAxis(rest, vals)
		a.Kind = KindCmdline
		return a, err
	case "dt":
		return dtAxis(rest, vals)
	}
	return Axis{}, fmt.Errorf("%w: axis %s: unknown kind %q (want a register field, sysfs:/PATH, procfs:/PATH, modparam:MODULE.PARAM, cmdline:MODULE.PARAM or dt:PROPERTY)", ErrPlan, name, prefix)
}

func registerAxis(m *regs.Map, name string, vals []string) (Axis, error) {
	ref, err := m.Lookup(name)
	if err != nil {
		return Axis{}, fmt.Errorf("%w: axis %s: %v", ErrPlan, name, err)
	}
	if ref.Field == nil {
		return Axis{}, fmt.Errorf("%w: axis %s: a sweep changes fields, not whole registers (fields of %s: %s)", ErrPlan, name, ref.Reg.Name, ref.Reg.FieldNames())
	}
	a := Axis{Kind: KindRegister, Name: ref.String(), Ref: ref}
	if len(vals) == 1 && (strings.EqualFold(vals[0], "all") || vals[0] == "*") {
		if !ref.Field.Strict {
			return Axis{}, fmt.Errorf("%w: axis %s: \"all\" needs a field with a fixed set of values; %s takes %s", ErrPlan, name, ref, regs.Legal(ref.Field))
		}
		vals = nil
		for _, e := range ref.Field.Values {
			if !e.Reserved {
				vals = append(vals, strconv.FormatUint(uint64(e.Value), 10))
			}
		}
	}
	var errs []error
	seen := map[uint32]bool{}
	for _, v := range vals {
		c, err := m.ParseChange(ref.String() + "=" + v)
		if err != nil {
			// The error names the field (USBCMD.ITC: ...).
			errs = append(errs, fmt.Errorf("%w: axis %v", ErrPlan, err))
			continue
		}
		if seen[c.Value] {
			errs = append(errs, fmt.Errorf("%w: axis %s: value %s given twice", ErrPlan, ref, v))
			continue
		}
		seen[c.Value] = true
		a.Values = append(a.Values, strconv.FormatUint(uint64(c.Value), 10))
	}
	if len(errs) == 0 && ref.Class() == regs.ClassLive {
		return Axis{}, fmt.Errorf("%w: axis %s: live state, not a knob (%s)", ErrPlan, ref, regs.LiveRisk(ref))
	}
	return a, errors.Join(errs...)
}

func fileAxis(path string, vals []string) (Axis, error) {
	if !filepath.IsAbs(path) {
		return Axis{}, fmt.Errorf("%w: axis %s: the path must be absolute", ErrPlan, path)
	}
	// A file axis changes kernel settings: only /sys and /proc files (read
	// under the host's root, so tests give a fake tree), never an
	// arbitrary file of the machine.
	if c := filepath.Clean(path); !strings.HasPrefix(c, "/sys/") && !strings.HasPrefix(c, "/proc/") {
		return Axis{}, fmt.Errorf("%w: axis %s: a file axis takes a path under /sys or /proc", ErrPlan, path)
	}
	if err := uniqueValues(path, vals); err != nil {
		return Axis{}, err
	}
	for _, v := range vals {
		if strings.ContainsAny(v, "\n") {
			return Axis{}, fmt.Errorf("%w: axis %s: value %q has a newline", ErrPlan, path, v)
		}
	}
	return Axis{Kind: KindFile, Name: filepath.Clean(path), Values: vals}, nil
}

func modParamAxis(name string, vals []string) (Axis, error) {
	mod, param, ok := strings.Cut(name, ".")
	if !ok || mod == "" || param == "" || strings.ContainsAny(name, "/ ") {
		return Axis{}, fmt.Errorf("%w: axis modparam:%s: want modparam:MODULE.PARAM (ehci_hcd.log2_irq_thresh)", ErrPlan, name)
	}
	mod = host.ModuleName(mod)
	if err := uniqueValues(name, vals); err != nil {
		return Axis{}, err
	}
	for _, v := range vals {
		if strings.ContainsAny(v, " \t\n\"'") {
			return Axis{}, fmt.Errorf("%w: axis modparam:%s: value %q: no spaces or quotes", ErrPlan, name, v)
		}
	}
	return Axis{Kind: KindModParam, Name: mod + "." + param, Values: vals, Module: mod, Param: param}, nil
}

func uniqueValues(name string, vals []string) error {
	seen := map[string]bool{}
	for _, v := range vals {
		if seen[v] {
			return fmt.Errorf("%w: axis %s: value %s given twice", ErrPlan, name, v)
		}
		seen[v] = true
	}
	return nil
}

// dtAxis is a dt:PROPERTY axis. Which field the property sets comes from
// the profile's knobs (the sweep resolves it, plan does not know
// profiles); values are one-cell numbers, kept as canonical decimal like
// a register axis's.
func dtAxis(prop string, vals []string) (Axis, error) {
	if prop == "" || strings.Trim(prop, "abcdefghijklmnopqrstuvwxyz0123456789,._+-") != "" {
		return Axis{}, fmt.Errorf("%w: axis dt:%s: want dt:PROPERTY (a device-tree property name, tx-burst-size-dword)", ErrPlan, prop)
	}
	a := Axis{Kind: KindDT, Name: prop}
	for _, v := range vals {
		n, err := strconv.ParseUint(v, 0, 32)
		if err != nil {
			return Axis{}, fmt.Errorf("%w: axis dt:%s: value %q: want a number (one cell: 16, 0x10)", ErrPlan, prop, v)
		}
		a.Values = append(a.Values, strconv.FormatUint(n, 10))
	}
	return a, uniqueValues("dt:"+prop, a.Values)
}
