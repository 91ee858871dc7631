package soc

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc/mmio"
	"github.com/citune/citune/soc/sim"
)

// Kind is how a target is reached.
type Kind string

// Target kinds.
const (
	KindDevMem Kind = "devmem"
	KindFile   Kind = "file"
	KindSim    Kind = "sim"
)

// Target is an open controller window with the profile that describes it.
// Profile is the view of the controller (Profile.ForController), and the
// Target's own accessor (Read32, Write32) refuses registers its core does
// not have (regs.Guard). The window is not exported: every access takes
// the lock that orders it with swaps.
type Target struct {
	Profile    *Profile
	Controller *Controller
	Kind       Kind
	path       string // image path for KindFile
	acc        regs.Accessor
	simr       *sim.Sim // for KindSim
	win        *mmio.Window
	halt       func() error
	// mu orders window swaps (Remap, ReloadSim) with the accesses made
	// through the Target itself (what undo sessions and the signal path's
	// Halt write through) and with SetHalt/Halt. acc and simr are read
	// without it only by the goroutine that swaps them.
	mu sync.RWMutex
}

// SimDriver says when the simulated controller plays ehci-hcd.
type SimDriver int

// SimDriver modes.
const (
	SimDriverHost SimDriver = iota // ehci-hcd in host role, as on a board
	SimDriverOff                   // never: ITC and park written by hand hold
)

// SimOptions configure a simulated target.
type SimOptions struct {
	Driver SimDriver // whether ehci-hcd rewrites USBCMD (sim.Config)
	// Log2IrqThresh and Park are the ehci-hcd module parameters the
	// simulated driver starts with.
	Log2IrqThresh, Park uint
	// ResetValues starts the controller as it comes out of reset: its
	// reset values instead of the board values, and no ehci-hcd.
	ResetValues bool
	Role        regs.Role // empty: simStart's
}

// simStart is the role a simulated controller starts in: RoleOf, and
// device for a port whose role RoleOf does not know.
func simStart(p *Profile, c *Controller, snap Snapshot) regs.Role {
	if r := RoleOf(p.Map, c, snap); r != "" {
		return r
	}
	return regs.RoleDevice
}

// BoardStart returns the register values (by offset) a running board
// holds in role: the reset values with the profile's board values for
// it, and USBMODE.CM set as the driver sets it.
func BoardStart(p *Profile, role regs.Role) map[uint32]uint32 {
	vals := map[uint32]uint32{}
	get := func(r *regs.Register) uint32 {
		if v, ok := vals[r.Offset]; ok {
			return v
		}
		return r.Reset
	}
	cs := p.BoardValues(role)
	if ref, err := p.Map.Lookup("USBMODE.CM"); err == nil {
		cm, ok := role.CM()
		if !ok {
			cm, _ = regs.RoleDevice.CM()
		}
		cs = append(cs, regs.Change{Ref: ref, Value: cm})
	}
	for _, c := range cs {
		vals[c.Ref.Reg.Offset] = c.Ref.Field.Put(get(c.Ref.Reg), c.Value)
	}
	return vals
}

// ReadsAsZero says whether the emulated board's register at offset off
// reads 0 and ignores writes (the profile's sim.read_as_zero).
func (p *Profile) ReadsAsZero(off uint32) bool {
	return p.Emulated && slices.ContainsFunc(p.Sim.ReadAsZero, func(s string) bool {
		lo, hi, err := ParseRange(s)
		return err == nil && off >= lo && off <= hi
	})
}

// OpenSim opens the simulated controller of profile p.
func OpenSim(p *Profile, c *Controller, o SimOptions) (*Target, error) {
	var raz []sim.Range
	for _, s := range p.Sim.ReadAsZero {
		lo, hi, err := ParseRange(s)
		if err != nil {
			return nil, err
		}
		raz = append(raz, sim.Range{Lo: lo, Hi: hi})
	}
	p = p.ForController(c)
	role := o.Role
	if role == "" {
		role = simStart(p, c, Snapshot{})
	} else if !slices.Contains(c.Roles, role) {
		has := JoinRoles(c.Roles, " and ")
		if len(c.Roles) == 1 {
			has += " only"
		}
		return nil, fmt.Errorf("%s %s cannot take the %s role (it has %s)", p.Name, c.Label, role, has)
	}
	cfg := sim.Config{Map: p.Map, Size: c.Span(), ReadAsZero: raz, SoC: p.Name,
		Driver: o.Driver == SimDriverHost && role == regs.RoleHost && !o.ResetValues, Log2IrqThresh: o.Log2IrqThresh, Park: o.Park}
	if !o.ResetValues {
		cfg.Initial = BoardStart(p, role)
	}
	s := sim.New(cfg)
	// Where no source gives a reset value (Vybrid), it holds what the
	// identity checks expect.
	for _, ch := range p.Identity {
		if r := p.Map.Register(ch.Register); r != nil && !r.ResetKnown {
			s.Seed(r.Offset, s.Peek(r.Offset)&^ch.Mask|ch.Value)
		}
	}
	return &Target{Profile: p, Controller: c, Kind: KindSim, acc: regs.Guard(s, p.Map), simr: s}, nil
}

// Where says which target Open opens: the simulated controller, a
// register image, else the controller's window through /dev/mem.
type Where struct {
	Sim        bool
	SimOptions SimOptions
	Image      string
	Writable   bool
}

// Open opens the target w names: the one way every command opens one.
func Open(p *Profile, c *Controller, w Where) (*Target, error) {
	switch {
	case w.Sim:
		return OpenSim(p, c, w.SimOptions)
	case w.Image != "":
		return OpenFile(p, c, w.Image, w.Writable)
	}
	return OpenDevMem(p, c)
}

// OpenFile opens a register image: the controller window from its offset
// 0 and, when it is long enough (mkimage writes Span bytes), the usbmisc
// word; a shorter image opens without that word.
func OpenFile(p *Profile, c *Controller, path string, writable bool) (*Target, error) {
	size := c.Span()
	if st, err := os.Stat(path); err == nil && st.Size() < int64(size) && st.Size() >= int64(c.Size) {
		size = uint32(st.Size()) &^ 3
	}
	w, err := mmio.MapFile(path, size, writable)
	if err != nil {
		return nil, err
	}
	p = p.ForController(c)
	if size < c.Span() {
		m := p.Map.Clone()
		kept := m.Registers[:0]
		for _, r := range m.Registers {
			if r.Offset+4 > size {
				m.Absent = append(m.Absent, regs.Absence{Name: r.Name, Offset: r.Offset,
					Why: fmt.Sprintf("the image holds %#x bytes, not this word at %#x (make a new one with citune mkimage)", size, r.Offset)})
				continue
			}
			kept = append(kept, r)
		}
		m.Registers = kept
		q := *p
		q.Map = m
		p = &q
	}
	return &Target{Profile: p, Controller: c, Kind: KindFile, path: path, acc: regs.Guard(w, p.Map), win: w}, nil
}

// OpenDevMem maps the controller's physical window through /dev/mem, up
// to its usbmisc word if the profile places one (Span).
func OpenDevMem(p *Profile, c *Controller) (*Target, error) {
	w, err := mmio.MapPhys(c.Base, c.Span())
	if err != nil {
		return nil, err
	}
	p = p.ForController(c)
	return &Target{Profile: p, Controller: c, Kind: KindDevMem, acc: regs.Guard(w, p.Map), win: w}, nil
}

// Remap maps a /dev/mem window again (after a driver reload, an old
// mapping may be revoked under CONFIG_IO_STRICT_DEVMEM).
func (t *Target) Remap() error {
	if t.Kind != KindDevMem {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.win != nil {
		t.win.Close()
	}
	w, err := mmio.MapPhys(t.Controller.Base, t.Controller.Span())
	if err != nil {
		return err
	}
	t.win, t.acc = w, regs.Guard(w, t.Profile.Map)
	return nil
}

// Close releases the mapping.
func (t *Target) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.win != nil {
		return t.win.Close()
	}
	return nil
}

// String describes the target for humans.
func (t *Target) String() string {
	switch t.Kind {
	case KindSim:
		return fmt.Sprintf("simulated %s %s", t.Profile.Name, t.Controller.Label)
	case KindFile:
		return fmt.Sprintf("image %s (%s %s)", t.path, t.Profile.Name, t.Controller.Label)
	}
	return fmt.Sprintf("/dev/mem %#08x (%s %s)", t.Controller.Base, t.Profile.Name, t.Controller.Label)
}

// ErrIdentity is wrapped when the controller does not look like the one
// the profile describes.
var ErrIdentity = errors.New("controller identity check failed")

// Identify runs the profile's identity checks. The error lists what was
// read and what was expected; nothing may be written when it fails.
func (t *Target) Identify() error { return Identify(t.Profile, t) }

// Identify runs p's identity checks against acc.
func Identify(p *Profile, acc regs.Accessor) error {
	var bad []string
	allSame, first := true, true
	var seen uint32
	for _, ch := range p.Identity {
		r := p.Map.Register(ch.Register)
		v, err := acc.Read32(r.Offset)
		if err != nil {
			return fmt.Errorf("identity check: %w", err)
		}
		if !first && v != seen {
			allSame = false
		}
		seen, first = v, false
		if v&ch.Mask != ch.Value {
			bad = append(bad, fmt.Sprintf("%s (offset %#03x) reads %s, expected %s under mask %s: %s",
				r.Name, r.Offset, regs.Hex(v), regs.Hex(ch.Value), regs.Hex(ch.Mask), ch.Why))
		}
	}
	if len(bad) > 0 {
		if len(bad) == len(p.Identity) && allSame && (seen == 0 || seen == ^uint32(0)) {
			bad = append(bad, fmt.Sprintf("every check read %s: the controller does not answer at this address (wrong SoC or controller, block clock-gated or powered down?)", regs.Hex(seen)))
		}
		return fmt.Errorf("%w for profile %s:\n  %s", ErrIdentity, p.Name, strings.Join(bad, "\n  "))
	}
	return nil
}

// Snapshot is the raw value of every register of a map at one moment.
type Snapshot struct {
	Registers []RegValue `json:"registers"`
}

// RegValue is one register's raw value.
type RegValue struct {
	Name   string `json:"name"`
	Offset uint32 `json:"offset"`
	Value  uint32 `json:"value"`
}

// Value returns the value of the named register.
func (s Snapshot) Value(name string) (uint32, bool) {
	if i := slices.IndexFunc(s.Registers, func(r RegValue) bool { return strings.EqualFold(r.Name, name) }); i >= 0 {
		return s.Registers[i].Value, true
	}
	return 0, false
}

// Take reads every register of m, leaving out those the accessor refuses
// as absent (regs.ErrAbsent: a host-only core's device registers).
func Take(m *regs.Map, acc regs.Accessor) (Snapshot, error) {
	var s Snapshot
	for i := range m.Registers {
		r := &m.Registers[i]
		v, err := acc.Read32(r.Offset)
		if errors.Is(err, regs.ErrAbsent) {
			continue
		}
		if err != nil {
			return s, fmt.Errorf("snapshot: reading %s: %w", r.Name, err)
		}
		s.Registers = append(s.Registers, RegValue{Name: r.Name, Offset: r.Offset, Value: v})
	}
	return s, nil
}

// RoleOf is the tree's one decision of a controller's role: USBMODE.CM
// in snap when it names one (regs.RoleOfCM), else the controller's only
// role, else the role its dr_mode fixes (DRRole). Its one fallback is ""
// (unknown: an OTG port that no driver has started, or QEMU, whose CM
// reads 0), never a guess: a wrong role would sweep or export the other
// role's mechanisms, so callers say "role unknown" and offer both. The
// simulator alone must pick one, because it creates the state it then
// reads: device (simStart), as the ChipIdea driver starts an OTG port
// with no cable (the ID pin reads 1: a B-device).
func RoleOf(m *regs.Map, c *Controller, snap Snapshot) regs.Role {
	if ref, err := m.Lookup("USBMODE.CM"); err == nil {
		v, _ := snap.Value(ref.Reg.Name)
		if role, ok := regs.RoleOfCM(ref.Field.Get(v)); ok {
			return role
		}
	}
	if len(c.Roles) == 1 {
		return c.Roles[0]
	}
	r, _ := DRRole(c.DRMode)
	return r
}

// Role is RoleOf the target's controller in snap.
func (t *Target) Role(snap Snapshot) regs.Role { return RoleOf(t.Profile.Map, t.Controller, snap) }

// RoleNow reads USBMODE and returns Role.
func (t *Target) RoleNow() (regs.Role, error) {
	r := t.Profile.Map.Register("USBMODE")
	if r == nil {
		return t.Role(Snapshot{}), nil
	}
	v, err := t.acc.Read32(r.Offset)
	if err != nil {
		return "", err
	}
	return t.Role(Snapshot{Registers: []RegValue{{Name: r.Name, Offset: r.Offset, Value: v}}}), nil
}

// CheckImage refuses a register image that is not a regular file,
// without opening it.
func CheckImage(path string) error { return mmio.CheckImage(path) }
