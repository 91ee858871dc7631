package main

import (
	"cmp"
	"io/fs"
	"os"
	"strings"

	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/results"
)

// boardID is what a sweep records of its board: --board (else
// $CITUNE_BOARD), the hostname and, for the live controller only (not a
// simulator or an image), the device tree's model.
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
