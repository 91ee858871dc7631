package probe

import "fmt"

// Reference compares the data of a series of single runs that read the
// same bytes (a sweep's runs, across points): the first run that hashed
// every byte and the first that checked the sample are the references;
// a later run of the same length whose hash or sample differs is
// Corrupt. This catches a setting that corrupts every transfer, which
// comparing a point's runs with each other would not.
type Reference struct {
	full, sample refHash
}

type refHash struct {
	h     string
	run   int
	bytes int64
}

// Check compares r, the series' n-th run (1-based), with the references,
// taking it as one where there is none yet. A corrupt run, or one of
// another length (a timed run), is left alone.
func (ref *Reference) Check(r *Run, n int) {
	if r.Corrupt {
		return
	}
	check := func(rh *refHash, h, what string) {
		switch {
		case h == "":
		case rh.h == "":
			*rh = refHash{h, n, r.Bytes}
		case r.Bytes == rh.bytes && h != rh.h:
			r.Corrupt = true
			r.Detail = fmt.Sprintf("the data read %s to %s; the sweep's probe run %d read %s", what, h, rh.run, rh.h)
		}
	}
	check(&ref.full, r.Hash, "hash")
	if !r.Corrupt {
		check(&ref.sample, r.Sample, "sample")
	}
}
