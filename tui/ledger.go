package tui

import (
	"fmt"
	"strings"
	"sync"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// Ledger records which fields a session changed and restores them to their
// values in the starting snapshot. Only those fields are written back: a
// whole-register restore could undo what the driver did meanwhile (RS,
// ASE in USBCMD). It is safe for concurrent use.
type Ledger struct {
	mu      sync.Mutex
	m       *regs.Map
	start   soc.Snapshot
	touched []regs.Ref
}

// NewLedger starts an empty ledger for map m and starting snapshot start.
func NewLedger(m *regs.Map, start soc.Snapshot) *Ledger {
	return &Ledger{m: m, start: start}
}

// Touch records that refs are about to be written.
func (l *Ledger) Touch(refs ...regs.Ref) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, r := range refs {
		if !l.has(r) {
			l.touched = append(l.touched, r)
		}
	}
}

func (l *Ledger) has(r regs.Ref) bool {
	for _, t := range l.touched {
		if sameRef(t, r) {
			return true
		}
	}
	return false
}

// Touched lists the fields changed so far, in the order first written.
func (l *Ledger) Touched() []regs.Ref {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]regs.Ref(nil), l.touched...)
}

// StartValue is the value of ref in the starting snapshot.
func (l *Ledger) StartValue(ref regs.Ref) (uint32, bool) {
	return startValue(l.start, ref)
}

func startValue(s soc.Snapshot, ref regs.Ref) (uint32, bool) {
	raw, ok := s.Value(ref.Reg.Name)
	if !ok {
		return 0, false
	}
	if ref.Field == nil {
		return raw, true
	}
	return ref.Field.Get(raw), true
}

// Restore writes every touched field that differs from the starting
// snapshot back to its starting value and reads it back. Fields that hold
// their starting value afterwards are forgotten. It returns the results
// (nil when nothing needed writing).
func (l *Ledger) Restore(acc regs.Accessor) ([]regs.Result, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return restoreRefs(acc, l.start, l.touched, func(done []regs.Ref) {
		var keep []regs.Ref
		for _, t := range l.touched {
			held := false
			for _, d := range done {
				if sameRef(t, d) {
					held = true
				}
			}
			if !held {
				keep = append(keep, t)
			}
		}
		l.touched = keep
	})
}

// RestoreOne restores a single field (revert).
func (l *Ledger) RestoreOne(acc regs.Accessor, ref regs.Ref) ([]regs.Result, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return restoreRefs(acc, l.start, []regs.Ref{ref}, func([]regs.Ref) {})
}

// restoreRefs composes and commits the changes that return refs to their
// values in start; held receives the refs that are at their start value
// afterwards (already there, or written and read back).
func restoreRefs(acc regs.Accessor, start soc.Snapshot, refs []regs.Ref, held func([]regs.Ref)) ([]regs.Result, error) {
	var changes []regs.Change
	var ok []regs.Ref
	for _, ref := range refs {
		want, found := startValue(start, ref)
		if !found {
			return nil, fmt.Errorf("restore: %s is not in the starting snapshot", ref)
		}
		cur, err := acc.Read32(ref.Reg.Offset)
		if err != nil {
			return nil, fmt.Errorf("restore: reading %s: %w", ref.Reg.Name, err)
		}
		if ref.Field == nil {
			want &^= ref.Reg.ZeroOnWrite()
			if cur&^ref.Reg.ZeroOnWrite() == want {
				ok = append(ok, ref)
				continue
			}
		} else if ref.Field.Get(cur) == want {
			ok = append(ok, ref)
			continue
		}
		changes = append(changes, regs.Change{Ref: ref, Value: want})
	}
	if len(changes) == 0 {
		held(ok)
		return nil, nil
	}
	ws, err := regs.Prepare(acc, changes)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	rs, err := regs.Commit(acc, ws)
	for _, r := range rs {
		for _, c := range r.Changes {
			bad := false
			for _, mm := range r.Mismatches {
				if sameRef(mm.Ref, c.Ref) {
					bad = true
				}
			}
			if !bad {
				ok = append(ok, c.Ref)
			}
		}
	}
	held(ok)
	if err != nil {
		return rs, fmt.Errorf("restore: %w", err)
	}
	return rs, nil
}

// sameRef compares refs by name, so that refs into different copies of a
// map compare equal.
func sameRef(a, b regs.Ref) bool {
	return refKey(a) == refKey(b)
}

// refKey is "REG.FIELD" or "REG", upper case.
func refKey(r regs.Ref) string {
	return strings.ToUpper(r.String())
}

// RestoreReport renders restore results one line each, for the screen and
// for the terminal after the program ended.
func RestoreReport(rs []regs.Result) []string {
	var out []string
	for _, r := range rs {
		for _, c := range r.Changes {
			got := r.Readback
			if c.Ref.Field != nil {
				got = c.Ref.Field.Get(r.Readback)
			}
			st := "ok"
			for _, mm := range r.Mismatches {
				if sameRef(mm.Ref, c.Ref) {
					st = "DID NOT RETURN"
				}
			}
			if c.Ref.Field == nil {
				out = append(out, fmt.Sprintf("%s = %s, reads %s  %s", c.Ref, regs.Hex(c.Value), regs.Hex(got), st))
			} else {
				out = append(out, fmt.Sprintf("%s = %d, reads %d  %s", c.Ref, c.Value, got, st))
			}
		}
	}
	return out
}
