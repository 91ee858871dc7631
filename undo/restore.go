package undo

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/citune/citune/regs"
)

// fieldTarget is a group of register bits to put back.
type fieldTarget struct {
	off, mask, want uint32
	name            string
}

// restoreFields writes each group's bits back by read-modify-write of
// its register: only the recorded bits change; write-1-to-clear,
// self-clearing and never-set bits are stored as 0 and write-once fields
// keep their current value, so nothing the driver owns is touched. Groups
// are written in the order given (newest change first), one store per
// register, each read back.
func restoreFields(m *regs.Map, acc regs.Accessor, fts []fieldTarget) ([]Restored, error) {
	var order []uint32
	by := map[uint32][]fieldTarget{}
	for _, ft := range fts {
		if _, ok := by[ft.off]; !ok {
			order = append(order, ft.off)
		}
		by[ft.off] = append(by[ft.off], ft)
	}
	var out []Restored
	var errs []error
	for _, off := range order {
		r := m.At(off)
		if r == nil {
			errs = append(errs, fmt.Errorf("the journal names a register at %s, which the profile's map does not have", regs.Off(off)))
			continue
		}
		cur, err := acc.Read32(off)
		if err != nil {
			errs = append(errs, fmt.Errorf("reading %s: %w", r.Name, err))
			continue
		}
		v := cur &^ r.ZeroOnWrite()
		differ := false
		for _, ft := range by[off] {
			if cur&ft.mask != ft.want&ft.mask {
				differ = true
			}
			v = v&^ft.mask | ft.want&ft.mask
		}
		for i := range r.Fields {
			if f := &r.Fields[i]; f.Access == regs.WriteOnce {
				v = f.Put(v, f.Get(cur))
			}
		}
		rb := cur
		if differ {
			if err := acc.Write32(off, v); err != nil {
				errs = append(errs, fmt.Errorf("writing %s: %w", r.Name, err))
				continue
			}
			if rb, err = acc.Read32(off); err != nil {
				errs = append(errs, fmt.Errorf("reading back %s: %w", r.Name, err))
				continue
			}
		}
		for _, ft := range by[off] {
			out = append(out, Restored{Name: ft.name, Want: bitsString(r, ft.mask, ft.want), Got: bitsString(r, ft.mask, rb),
				Held: rb&ft.mask == ft.want&ft.mask, Wrote: differ})
		}
	}
	return out, errors.Join(errs...)
}

// bitsString renders the bits of v under mask: a field's value in
// decimal, other bit groups in hex.
func bitsString(r *regs.Register, mask, v uint32) string {
	if i := slices.IndexFunc(r.Fields, func(f regs.Field) bool { return f.Mask() == mask }); i >= 0 {
		return fmt.Sprint(r.Fields[i].Get(v))
	}
	return regs.Hex(v & mask)
}

// sysOrProc reports whether path is a /sys or /proc file, also once its
// symbolic links are followed: /proc/self/root/..., /proc/PID/cwd/... and
// the like lead anywhere, so they are refused by name as well.
func sysOrProc(path string) bool {
	under := func(p string) bool { return strings.HasPrefix(p, "/sys/") || strings.HasPrefix(p, "/proc/") }
	c := filepath.Clean(path)
	if c != path || !under(c) {
		return false
	}
	if strings.HasPrefix(c, "/proc/") {
		for _, part := range strings.Split(c, "/") {
			switch part {
			case "root", "cwd", "fd", "exe", "map_files":
				return false
			}
		}
	}
	r, err := filepath.EvalSymlinks(c)
	return err != nil || under(r)
}

// restoreFile writes a file back unless it holds its value already.
func restoreFile(h Host, path, want string) ([]Restored, error) {
	if h == nil {
		return nil, fmt.Errorf("%s: no host to restore files", path)
	}
	cur, err := h.ReadFile(path)
	if err == nil && FileHolds(want, cur) {
		return []Restored{{Name: path, Want: want, Got: cur, Held: true}}, nil
	}
	if err := h.WriteFile(path, want); err != nil {
		return nil, fmt.Errorf("restoring %s: %w", path, err)
	}
	got, err := h.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []Restored{{Name: path, Want: want, Got: got, Held: FileHolds(want, got), Wrote: true}}, nil
}

// FileHolds reports whether a file that was written want now reads got:
// equal, or, for selector files like queue/scheduler ("mq-deadline
// [none]"), want is the bracketed choice.
func FileHolds(want, got string) bool {
	got = strings.TrimSpace(got)
	return got == want || strings.Contains(got, "["+want+"]")
}

// RestoreAll returns the session's target to the state before citune
// changed it: every journalled module parameter, file and register field
// of the target, newest change first, by read-modify-write of the
// recorded bits only. Records whose item is back are dropped, and so are
// interrupted sessions' registrations. The session must be a short one
// (KindRestore).
func (s *Session) RestoreAll(ctx context.Context) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.loadEntry()
	if e == nil {
		return nil, err
	}
	return s.restoreEntry(ctx, e)
}

// loadEntry loads the journal's entry of the session's target (nil: none).
func (s *Session) loadEntry() (*Entry, error) {
	if s.o.Journal == "" {
		return nil, nil
	}
	j, err := Load(s.o.Journal)
	if err != nil {
		return nil, err
	}
	return j.Find(s.o.Target.Key()), nil
}

// RestoreEntry is RestoreAll from an entry read elsewhere (Read: a
// journal that cannot be written, read without writing it); the
// session's own journal is brought up to date as by RestoreAll.
func (s *Session) RestoreEntry(ctx context.Context, e *Entry) ([]Restored, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Target.Key() != s.o.Target.Key() {
		return nil, fmt.Errorf("undo: an entry of %s restored on %s", e.Target, s.o.Target)
	}
	return s.restoreEntry(ctx, e)
}

func (s *Session) restoreEntry(ctx context.Context, e *Entry) ([]Restored, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
	defer cancel()
	var rl restoreLog
	var ps []paramTarget
	for _, p := range e.ModParams {
		ps = append(ps, paramTarget{p.Name, p.Original})
	}
	rl.add(s.restoreParams(ctx, ps))
	bootBack := false
	if e.Boot != nil {
		rs, err := restoreBoot(e.Boot)
		rl.add(rs, err)
		bootBack = err == nil
	}
	files := slices.Clone(e.Files)
	sort.SliceStable(files, func(i, j int) bool { return files[i].Time.After(files[j].Time) }) // newest first
	for _, f := range files {
		if !sysOrProc(f.Path) {
			rl.errs = append(rl.errs, &RefusedError{Journal: s.o.Journal, Items: []string{f.Path + ": not a /sys or /proc file, which is all a sweep changes"}})
			continue
		}
		rl.add(restoreFile(s.o.Host, f.Path, f.Original))
	}
	fields := slices.Clone(e.Fields)
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Time.After(fields[j].Time) })
	var fts []fieldTarget
	var refused []string
	live := false
	for _, f := range fields {
		if why, isLive := s.refusal(f); why != "" {
			refused = append(refused, f.Name()+": "+why)
			live = live || isLive
			continue
		}
		fts = append(fts, fieldTarget{off: f.Offset, mask: f.Mask, want: f.Original, name: f.Name()})
	}
	if len(refused) > 0 {
		rl.errs = append(rl.errs, &RefusedError{Journal: s.o.Journal, Items: refused, Live: live})
	}
	if s.o.Acc != nil && len(fts) > 0 {
		rl.add(restoreFields(s.o.Map, s.o.Acc, fts))
	}
	err := Update(s.o.Journal, func(j *Journal) error {
		e := j.Find(s.o.Target.Key())
		if e == nil {
			return nil
		}
		if s.o.Acc != nil {
			e.prune(s.o.Acc, s.o.Host)
		}
		e.Sessions = slices.DeleteFunc(e.Sessions, func(o Owner) bool { return !o.Alive() })
		if bootBack {
			e.Boot = nil
		}
		if len(e.Fields) == 0 {
			e.Changes = nil
		}
		return nil
	})
	if err != nil {
		rl.errs = append(rl.errs, err)
	}
	return rl.done()
}

// ErrRefused is wrapped when a restore leaves journal records alone that
// `citune set` would not write.
var ErrRefused = errors.New("journal records refused")

// RefusedError names the records a restore refused; they stay in the
// journal.
type RefusedError struct {
	Journal string
	Items   []string
	// Live is set when live state is among the refused (AllowLive would
	// write it).
	Live bool
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("not restored, kept in the journal %s (a restore writes only what `citune set` would): %s", e.Journal, strings.Join(e.Items, "; "))
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// refusal says why a restore may not write a record's bits ("" when it
// may): the same rules as Apply's. A read-only, write-1-to-clear,
// self-clearing or never-set field is never written; live state only
// with AllowLive, by the same classification (regs.LiveChanges).
func (s *Session) refusal(fr FieldRec) (why string, live bool) {
	r := s.o.Map.At(fr.Offset)
	if r == nil {
		return "", false // restoreFields names it
	}
	if r.ReadOnly {
		return "a read-only register", false
	}
	cur, err := s.o.Acc.Read32(fr.Offset)
	if err != nil {
		return "", false // restoreFields names it
	}
	want := cur&^fr.Mask | fr.Original&fr.Mask
	var cs []regs.Change
	for i := range r.Fields {
		f := &r.Fields[i]
		if f.Mask()&fr.Mask == 0 {
			continue
		}
		if f.Never {
			return fmt.Sprintf("%s.%s is never set", r.Name, f.Name), false
		}
		if f.Access == regs.RO || f.Access == regs.W1C || f.Access == regs.SC || f.Access == regs.WC {
			return fmt.Sprintf("%s.%s is %s, which set never writes", r.Name, f.Name, f.Access), false
		}
		cs = append(cs, regs.Change{Ref: regs.Ref{Reg: r, Field: f}, Value: f.Get(want)})
	}
	if fr.Mask&^r.Covered() != 0 {
		cs = append(cs, regs.Change{Ref: regs.Ref{Reg: r}, Value: want})
	}
	if s.o.AllowLive {
		return "", false
	}
	if live := regs.LiveChanges(cs, map[uint32]uint32{fr.Offset: cur}); len(live) > 0 {
		return fmt.Sprintf("live state (%s), written back only when allowed", regs.LiveRisk(live[0].Ref)), true
	}
	return "", false
}

// paramTarget is a module parameter ("module.param") and the value to
// put back.
type paramTarget struct{ name, want string }

// restoreParams reloads the module stack once with every parameter that
// is not at its value already, and reads each back.
func (s *Session) restoreParams(ctx context.Context, ps []paramTarget) ([]Restored, error) {
	var out []Restored
	params := map[string]string{}
	var names []string
	for _, p := range ps {
		if cur, err := readParam(s.o.Host, p.name); err == nil && cur == p.want {
			out = append(out, Restored{Name: p.name, Want: p.want, Got: cur, Held: true})
			continue
		}
		params[p.name] = p.want
		names = append(names, p.name)
	}
	if len(params) == 0 {
		return out, nil
	}
	if s.o.Host == nil {
		return out, errors.New("module parameters to restore but no module loader")
	}
	if err := s.o.Host.RestoreParams(ctx, params); err != nil {
		return out, err
	}
	for _, n := range names {
		got, _ := readParam(s.o.Host, n)
		out = append(out, Restored{Name: n, Want: params[n], Got: got, Held: got == params[n], Wrote: true})
	}
	return out, nil
}

// restoreLog gathers what a restore put back and what went wrong.
type restoreLog struct {
	out  []Restored
	errs []error
}

func (rl *restoreLog) add(rs []Restored, err error) {
	rl.out = append(rl.out, rs...)
	if err != nil {
		rl.errs = append(rl.errs, err)
	}
}

// done joins the errors and names what did not return.
func (rl *restoreLog) done() ([]Restored, error) {
	var bad []string
	for _, r := range rl.out {
		if !r.Held {
			bad = append(bad, r.String())
		}
	}
	if len(bad) > 0 {
		rl.errs = append(rl.errs, fmt.Errorf("some values did not return: %s", strings.Join(bad, "; ")))
	}
	return rl.out, errors.Join(rl.errs...)
}
