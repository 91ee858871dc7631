// Package sim is citune's simulated ChipIdea controller: an in-process
// regs.Accessor seeded from a profile's reset values that enforces the
// access kinds of the register map (RO, W1C, write-once, self-clearing,
// cleared-by-any-write, read-as-zero ranges) and refuses the registers its
// core does not have. It can also play the Linux ehci-hcd driver, which
// writes its cached USBCMD back after transfers, so that sweeps can be
// tested against settings that do not hold.
package sim

import (
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/citune/citune/regs"
)

// Range is an inclusive byte range of the window.
type Range struct{ Lo, Hi uint32 }

// Config describes the simulated controller.
type Config struct {
	Map  *regs.Map
	Size uint32 // window size in bytes
	// ReadAsZero ranges read 0 and ignore writes (QEMU's ID and endpoint
	// areas).
	ReadAsZero []Range
	// Initial holds register values (by offset) the simulation starts
	// with instead of the reset values (what Linux leaves on a running
	// board); a controller reset (USBCMD.RST) restores the reset values.
	Initial map[uint32]uint32
	// Driver, when set, models ehci-hcd in host role: at start it stores
	// its cached USBCMD (RS=1, ITC=2^Log2IrqThresh, and park mode with
	// count Park when Park is 1..3) and Transfer writes that copy back, as
	// the driver does when it switches the async schedule.
	Driver        bool
	Log2IrqThresh uint
	Park          uint
	SoC           string // the profile, for the model's per-SoC terms
}

// Sim is a simulated controller window. It is safe for concurrent use.
type Sim struct {
	mu     sync.Mutex
	cfg    Config
	vals   map[uint32]uint32
	cached uint32 // the driver's USBCMD copy
	Reads  int    // accesses, for tests and benchmarks
	Writes int
}

// New returns a simulated controller at reset.
func New(cfg Config) *Sim {
	s := &Sim{cfg: cfg}
	s.reset()
	maps.Copy(s.vals, cfg.Initial)
	if cfg.Driver {
		if r := cfg.Map.Register("USBCMD"); r != nil {
			v := s.vals[r.Offset]
			put := func(name string, x uint32) {
				if f := r.Field(name); f != nil {
					v = f.Put(v, x)
				}
			}
			put("ITC", 1<<cfg.Log2IrqThresh)
			put("RS", 1)
			// ehci_init() parks only where HCC_CANPARK says the core can.
			if cfg.Park >= 1 && cfg.Park <= 3 && s.canPark() {
				put("ASPE", 1)
				put("ASP", uint32(cfg.Park))
			}
			s.cached = v
			s.vals[r.Offset] = v
		}
	}
	return s
}

// canPark reports HCCPARAMS.CANPARK (bit 2); a map without HCCPARAMS
// (a device-only core) cannot park.
func (s *Sim) canPark() bool {
	r := s.cfg.Map.Register("HCCPARAMS")
	return r != nil && s.vals[r.Offset]&(1<<2) != 0
}

// SoC names the simulated controller's profile.
func (s *Sim) SoC() string { return s.cfg.SoC }

func (s *Sim) reset() {
	s.vals = map[uint32]uint32{}
	for i := range s.cfg.Map.Registers {
		r := &s.cfg.Map.Registers[i]
		if r.ResetKnown {
			s.vals[r.Offset] = r.Reset
		}
	}
}

func (s *Sim) raz(off uint32) bool {
	return slices.ContainsFunc(s.cfg.ReadAsZero, func(r Range) bool { return off >= r.Lo && off <= r.Hi })
}

func (s *Sim) check(off uint32) error {
	if off%4 != 0 || off+4 > s.cfg.Size {
		return fmt.Errorf("simulated controller: offset %#x outside the %#x-byte window or unaligned", off, s.cfg.Size)
	}
	// A host-only core has no device registers (Map.ForCore).
	if a := s.cfg.Map.AbsentAt(off); a != nil {
		return fmt.Errorf("simulated controller: %w", a)
	}
	return nil
}

// Read32 implements regs.Accessor.
func (s *Sim) Read32(off uint32) (uint32, error) {
	if err := s.check(off); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Reads++
	if s.raz(off) {
		return 0, nil
	}
	return s.vals[off], nil
}

// Write32 implements regs.Accessor with the map's access semantics.
func (s *Sim) Write32(off uint32, v uint32) error {
	if err := s.check(off); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Writes++
	if s.raz(off) {
		return nil
	}
	r := s.cfg.Map.At(off)
	if r == nil {
		s.vals[off] = v // unmapped word: plain storage
		return nil
	}
	if r.ReadOnly {
		return nil
	}
	cur := s.vals[off]
	nv := cur
	covered := r.Covered()
	if r.W1C {
		nv &^= v &^ covered
	} else {
		nv = nv&covered | v&^covered
	}
	controllerReset := false
	for i := range r.Fields {
		f := &r.Fields[i]
		w := f.Get(v)
		switch f.Access {
		case regs.RW:
			nv = f.Put(nv, w)
		case regs.RO:
		case regs.W1C:
			nv = f.Put(nv, f.Get(cur)&^w)
		case regs.WriteOnce:
			if f.Get(cur) == 0 {
				nv = f.Put(nv, w)
			}
		case regs.WC:
			nv = f.Put(nv, 0) // any write clears the counter
		case regs.SC:
			if f.Never && w != 0 {
				controllerReset = true
			}
			nv = f.Put(nv, 0) // completes at once
		}
	}
	if controllerReset {
		s.reset()
		return nil
	}
	s.vals[off] = nv
	return nil
}

// Transfer models what the driver does around one transfer: with Driver
// set it writes its cached USBCMD back, undoing ITC and park changes made
// behind its back.
func (s *Sim) Transfer() {
	if !s.cfg.Driver {
		return
	}
	r := s.cfg.Map.Register("USBCMD")
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals[r.Offset] = s.cached
}

// DriverModelled reports whether the simulator plays ehci-hcd (Config.Driver).
func (s *Sim) DriverModelled() bool { return s.cfg.Driver }

// Seed sets a register's value directly, bypassing the access rules.
func (s *Sim) Seed(off, v uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vals[off] = v
}

// Peek returns a register value without counting an access.
func (s *Sim) Peek(off uint32) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raz(off) {
		return 0
	}
	return s.vals[off]
}

var _ regs.Accessor = (*Sim)(nil)
