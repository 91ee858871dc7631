package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// Addresses as devmem and memtool users write them: a physical address
// (0x02184340), a controller and an offset (usbh1+0x140, usb@2184200+0x140),
// or an offset in the controller's window (0x140). A physical address
// picks the controller whose span (window and usbmisc word) holds it.

// addrRef is a register named by address.
type addrRef struct {
	ctl *soc.Controller // nil: the command's controller
	off uint32
}

// parseAddress reads s as an address of profile p (ok: s is one).
func parseAddress(p *soc.Profile, s string) (ref addrRef, ok bool, err error) {
	if label, offs, found := strings.Cut(s, "+"); found {
		c, cerr := p.Controller(label)
		if cerr != nil {
			return ref, true, cerr
		}
		off, perr := strconv.ParseUint(offs, 0, 32)
		if perr != nil {
			return ref, true, fmt.Errorf("%s: bad offset %q (want e.g. %s+0x140)", s, offs, c.Label)
		}
		return addrRef{ctl: c, off: uint32(off)}, true, checkOffset(c, s, uint32(off))
	}
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return ref, false, nil
	}
	v, perr := strconv.ParseUint(s, 0, 32)
	if perr != nil {
		return ref, true, fmt.Errorf("%s: not a 32-bit address", s)
	}
	a := uint32(v)
	// The controller's own window first, then its usbmisc word (the
	// span from the base reaches over the next controllers' windows).
	for i := range p.Controllers {
		c := &p.Controllers[i]
		if uint64(a) >= c.Base && uint64(a) < c.Base+uint64(c.Size) {
			return addrRef{ctl: c, off: uint32(uint64(a) - c.Base)}, true, checkOffset(c, s, uint32(uint64(a)-c.Base))
		}
	}
	for i := range p.Controllers {
		c := &p.Controllers[i]
		if c.USBMisc != 0 && uint64(a)&^3 == c.USBMisc {
			return addrRef{ctl: c, off: uint32(uint64(a) - c.Base)}, true, checkOffset(c, s, uint32(uint64(a)-c.Base))
		}
	}
	// Small values are offsets in the controller's window (no controller
	// of any profile sits below 0x10000).
	if a < 0x10000 {
		return addrRef{off: a}, true, checkOffset(nil, s, a)
	}
	var spans []string
	for _, c := range p.Controllers {
		spans = append(spans, fmt.Sprintf("%s %#08x-%#08x", c.Label, c.Base, c.Base+uint64(c.Size)-1))
	}
	return ref, true, fmt.Errorf("%s: no %s controller there (%s)", s, p.Name, strings.Join(spans, ", "))
}

// checkOffset refuses an unaligned offset, and one outside c's window (c
// nil: the command's controller, whose map refuses it later).
func checkOffset(c *soc.Controller, s string, off uint32) error {
	if off%4 != 0 {
		return fmt.Errorf("%s: not 32-bit aligned (citune reads whole words only)", s)
	}
	if c != nil && off >= c.Span() {
		return fmt.Errorf("%s: offset %s is outside %s's window (%d bytes)", s, regs.Off(off), c.Label, c.Span())
	}
	return nil
}

// resolveAddresses sets the command's controller from the addresses among
// names (all on one) and returns the offsets they name, by index.
func (a *app) resolveAddresses(p *soc.Profile, names []string) (map[int]uint32, error) {
	offs := map[int]uint32{}
	var picked *soc.Controller
	for i, n := range names {
		ref, ok, err := parseAddress(p, n)
		if !ok {
			continue
		}
		if err != nil {
			return nil, usageErr("%v", err)
		}
		offs[i] = ref.off
		if ref.ctl == nil {
			continue
		}
		if picked != nil && picked != ref.ctl {
			return nil, usageErr("%s is on %s, an earlier address on %s: one controller per command", n, ref.ctl.Label, picked.Label)
		}
		picked = ref.ctl
	}
	if picked != nil {
		if a.g.controller != "" {
			if c, err := p.Controller(a.g.controller); err == nil && c != picked {
				return nil, usageErr("the address is on %s (%s), but --controller says %s", picked.Label, picked.Node, c.Label)
			}
		}
		a.g.controller = picked.Label
	}
	return offs, nil
}
