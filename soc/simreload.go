package soc

import (
	"errors"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
)

// ReloadSim plays a driver reload on a simulated target: the controller
// is reset to the board values, and the simulated ehci-hcd starts from
// the module parameters readParam returns for the profile's knobs (ITC,
// park). The target's accessor is replaced and its identity checked.
func (t *Target) ReloadSim(readParam func(module, param string) (string, error)) error {
	if t.Kind != KindSim {
		return errors.New("ReloadSim: not a simulated target")
	}
	// The port comes back in its role, with an ehci-hcd only where there
	// was one.
	snap, _ := Take(t.Profile.Map, t)
	role := simStart(t.Profile, t.Controller, snap)
	o := SimOptions{Role: role}
	if role == regs.RoleHost && t.simr != nil && !t.simr.DriverModelled() {
		o.Driver = SimDriverOff
	}
	for _, k := range t.Profile.Knobs {
		mod, param, ok := strings.Cut(k.Param, ".")
		if !ok || k.ParamEncoding != EncodingLog2 && k.ParamEncoding != EncodingPark {
			continue
		}
		v, err := readParam(mod, param)
		if err != nil {
			continue // not loaded with it: the driver's default
		}
		n, err := strconv.ParseUint(v, 10, 8)
		if err != nil {
			continue
		}
		n = min(n, k.ParamEncoding.MaxParam())
		switch k.ParamEncoding {
		case EncodingLog2:
			o.Log2IrqThresh = uint(n)
		case EncodingPark:
			o.Park = uint(n)
		}
	}
	nt, err := OpenSim(t.Profile, t.Controller, o)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.acc, t.simr = nt.acc, nt.simr
	t.mu.Unlock()
	return t.Identify()
}
