package soc

// A simulated target is what the sim probe measures: through these
// methods (probe.SimController and probe.NonBurstReader) the probe reads
// the target's registers and plays its driver, without knowing the
// simulator's type; the rest of citune asks Simulated instead of looking
// at the simulator itself.

// Simulated reports whether the target is the built-in simulated
// controller.
func (t *Target) Simulated() bool { return t.Kind == KindSim && t.Sim != nil }

// DriverModelled reports whether a simulated target plays ehci-hcd's
// USBCMD write-back (false for every other target).
func (t *Target) DriverModelled() bool { return t.Simulated() && t.Sim.DriverModelled() }

// Read32 reads a register through whatever window is mapped now.
func (t *Target) Read32(off uint32) (uint32, error) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.Acc.Read32(off)
}

// SoC names the SoC the target's profile describes.
func (t *Target) SoC() string { return t.Profile.Name }

// Transfer tells a simulated target that a transfer happened, so that its
// driver plays what the real one does then (writing its cached USBCMD
// back); other targets have nothing to play.
func (t *Target) Transfer() {
	if t.Simulated() {
		t.Sim.Transfer()
	}
}

// NonBurst reads the usbmisc non-burst bit where the profile maps the
// port's usbmisc word: the simulated board then models the bit the
// registers say, not only the SoC's Linux default.
func (t *Target) NonBurst() (on, ok bool) {
	ref, err := t.Profile.Map.Lookup("USBMISC_CTRL.NON_BURST")
	if err != nil || ref.Field == nil {
		return false, false
	}
	v, err := t.Acc.Read32(ref.Reg.Offset)
	if err != nil {
		return false, false
	}
	return ref.Field.Get(v) == 1, true
}
