package undo

import (
	"fmt"
	"os"
	"path/filepath"
)

// Target kinds, as soc names them.
const (
	TargetDevMem = "devmem"
	TargetFile   = "file"
	TargetSim    = "sim"
)

// TargetID is a target's canonical identity: the physical base address
// for /dev/mem, the device and inode of the resolved path for an image
// file. Labels (profile, controller, the path as typed) are never part
// of the key.
type TargetID struct {
	Kind string `json:"kind"`
	Base uint64 `json:"base,omitempty"`
	Dev  uint64 `json:"dev,omitempty"`
	Ino  uint64 `json:"ino,omitempty"`
	Path string `json:"path,omitempty"` // the resolved image path
	Name string `json:"name,omitempty"` // tells simulated targets apart
}

// DevMem is the identity of a controller window at physical address base.
func DevMem(base uint64) TargetID { return TargetID{Kind: TargetDevMem, Base: base} }

// Sim is the identity of a simulated controller (in-process only).
func Sim(name string) TargetID { return TargetID{Kind: TargetSim, Name: name} }

// File is the identity of the register image at path: symlinks resolved,
// then its device and inode.
func File(path string) (TargetID, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return TargetID{}, err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return TargetID{}, err
	}
	dev, ino, ok := devIno(fi)
	if !ok {
		return TargetID{}, fmt.Errorf("%s: no device and inode", path)
	}
	return TargetID{Kind: TargetFile, Dev: dev, Ino: ino, Path: abs}, nil
}

// Key is the identity as one string (also the lock file's name).
func (t TargetID) Key() string {
	switch t.Kind {
	case TargetDevMem:
		return fmt.Sprintf("devmem-%#x", t.Base)
	case TargetFile:
		return fmt.Sprintf("file-%d-%d", t.Dev, t.Ino)
	}
	return "sim-" + t.Name
}

// String names the target for people.
func (t TargetID) String() string {
	switch t.Kind {
	case TargetDevMem:
		return fmt.Sprintf("/dev/mem %#08x", t.Base)
	case TargetFile:
		return "image " + t.Path
	}
	return "simulated " + t.Name
}
