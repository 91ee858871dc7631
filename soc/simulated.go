package soc

import (
	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc/sim"
)

// A simulated target is what the sim probe measures, through these
// methods (probe.SimController and probe.NonBurstReader); the rest of
// citune asks Simulated instead of looking at the simulator itself.

// Simulated reports whether the target is the built-in simulated
// controller.
func (t *Target) Simulated() bool { return t.Kind == KindSim && t.simr != nil }

// DriverModelled reports whether a simulated target plays ehci-hcd's
// USBCMD write-back (false for every other target).
func (t *Target) DriverModelled() bool { return t.Simulated() && t.simr.DriverModelled() }

// Read32 reads a register through whatever window is mapped now.
func (t *Target) Read32(off uint32) (uint32, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.acc.Read32(off)
}

// SoC names the SoC the target's profile describes.
func (t *Target) SoC() string { return t.Profile.Name }

// Transfer tells a simulated target that a transfer happened, so that its
// driver writes its cached USBCMD back as the real one does.
func (t *Target) Transfer() {
	if t.Simulated() {
		t.simr.Transfer()
	}
}

// NonBurst reads the usbmisc non-burst bit where the profile maps the
// port's usbmisc word, for the model to take.
func (t *Target) NonBurst() (on, ok bool) {
	ref, err := t.Profile.Map.Lookup("USBMISC_CTRL.NON_BURST")
	if err != nil || ref.Field == nil {
		return false, false
	}
	v, err := t.acc.Read32(ref.Reg.Offset)
	if err != nil {
		return false, false
	}
	return ref.Field.Get(v) == 1, true
}

// Path is the register image's path (KindFile), else "".
func (t *Target) Path() string { return t.path }

// Simulator is the simulated register file of a KindSim target (nil
// otherwise) as it is now: a reload replaces it.
func (t *Target) Simulator() *sim.Sim {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.simr
}

// Intercept wraps the window's accessor in f's, under the lock (tests
// inject faults with it; a swap drops the wrapper). It is the only way
// around the target's own accessor.
func (t *Target) Intercept(f func(regs.Accessor) regs.Accessor) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.acc = f(t.acc)
}
