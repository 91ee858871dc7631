package main

import (
	"errors"

	"github.com/citune/citune/probe"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/soc/mmio"
	"github.com/citune/citune/sweep"
	"github.com/citune/citune/sweep/plan"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/undo"
)

// advice is what a user can do about err, in this command line's terms:
// the library packages say what is wrong in domain words (a TUI user has
// no flags), and the CLI adds the flags here, in one place.
func advice(err error) string {
	var exists *existsError
	switch {
	case errors.As(err, &exists):
		return "; --force replaces it"
	case errors.Is(err, soc.ErrNoProfile):
		return "; choose a profile with --profile (see `citune profiles`), or use --sim"
	case errors.Is(err, mmio.ErrNotRoot):
		return "; without a board, use --sim, or --mem-file with a saved image"
	case errors.Is(err, undo.ErrUntrusted), errors.Is(err, undo.ErrNoPlace):
		return "; give a journal in a folder only you can write with --journal FILE (or $CITUNE_JOURNAL)"
	case errors.Is(err, undo.ErrRefused):
		var re *undo.RefusedError
		if errors.As(err, &re) && re.Live {
			return "; `citune restore --allow-live` writes live state back too"
		}
		return ""
	case errors.Is(err, undo.ErrStore):
		return "; give a writable place with --journal FILE (or $CITUNE_JOURNAL), e.g. on a tmpfs; it must survive until `citune restore`"
	case errors.Is(err, plan.ErrNoAxes):
		return "; give --axis NAME=V1,V2 or a --plan file"
	case errors.Is(err, results.ErrExists):
		return "; continue it with --resume, choose another --out, or --force replaces it"
	case errors.Is(err, sweep.ErrNotReloaded):
		return "; give the modules to reload, top first, with --reload"
	case errors.Is(err, probe.ErrNoDirect):
		return "; try another --bs, or --buffered (it drops the page cache before each run instead)"
	}
	return ""
}
