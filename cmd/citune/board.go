package main

import (
	"cmp"
	"io/fs"
	"os"
	"strings"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/results"
)

// boardID is what a sweep records about the board it ran on: the name
// given (--board, else $CITUNE_BOARD), the device tree's model string
// and the hostname. The model is read only for the live controller:
// a simulated controller or a register image is not the board this
// machine's device tree describes.
func (a *app) boardID(name string, t *soc.Target) *results.BoardID {
	b := &results.BoardID{Name: strings.TrimSpace(name)}
	b.Name = cmp.Or(b.Name, strings.TrimSpace(a.env.getenv("CITUNE_BOARD")))
	if t.Kind == soc.KindDevMem {
		if m, err := fs.ReadFile(a.env.root, "proc/device-tree/model"); err == nil {
			b.Model = strings.TrimSpace(strings.TrimRight(string(m), "\x00"))
		}
	}
	if h, err := os.Hostname(); err == nil {
		b.Host = h
	}
	return b
}
