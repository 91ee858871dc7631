package soc

import (
	"github.com/citune/citune/regs"
	"github.com/citune/citune/undo"
	"periph.io/x/conn/v3"
)

// A Target is a periph conn.Resource: Halt undoes what this process
// changed on it (the undo session attached with SetHalt), as periph
// programs stop a device on their quit and signal paths.
var _ conn.Resource = (*Target)(nil)

// SetHalt attaches what Halt runs (an undo session's Halt).
func (t *Target) SetHalt(f func() error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.halt = f
}

// Halt undoes this process's changes on the target (nothing without a
// session).
func (t *Target) Halt() error {
	t.mu.RLock()
	f := t.halt
	t.mu.RUnlock()
	if f == nil {
		return nil
	}
	return f()
}

// ID is the target's canonical identity for the journal and its lock.
func (t *Target) ID() (undo.TargetID, error) {
	switch t.Kind {
	case KindDevMem:
		return undo.DevMem(t.Controller.Base), nil
	case KindFile:
		return undo.File(t.path)
	}
	return undo.Sim(t.Profile.Name + "/" + t.Controller.Label), nil
}

// Accessor reaches the registers through whatever window is mapped at
// each access: an undo session opened before a Remap writes through the
// new mapping.
func (t *Target) Accessor() regs.Accessor { return t }

// Write32 writes a register through whatever window is mapped now (Read32:
// simulated.go).
func (t *Target) Write32(off, v uint32) error {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.acc.Write32(off, v)
}
