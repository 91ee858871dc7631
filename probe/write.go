package probe

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/citune/citune/units"
)

// DefaultWriteSize is how much the write probe writes when no size is given.
const DefaultWriteSize = 64 << 20

// WriteProbe writes a pattern with O_DIRECT, fsyncs, reads it back with
// O_DIRECT and compares. The pattern encodes each 8-byte word's offset
// and a per-run seed, so that data that lands in the wrong place, or a
// stale block from an earlier run, is caught as well as a flipped bit;
// a mismatch names the first byte that differs.
//
// Path is a new file (created and removed again), a directory (a
// temporary file inside it), or, with Destructive, a block device, which
// is overwritten from Offset and refused while it or any partition of
// it is mounted.
type WriteProbe struct {
	Path        string
	BS          int64
	Size        int64
	Offset      int64 // block devices only
	Destructive bool
	// Buffered writes through the page cache and drops it before reading
	// back (needs root).
	Buffered   bool
	SmallPages bool // as ReadProbe's

	procRoot   string
	afterWrite func(path string) error // between write and read-back (tests)
}

var writeSeq atomic.Uint64

// Name implements Probe.
func (p *WriteProbe) Name() string {
	s := fmt.Sprintf("write %s bs=%s size=%s", p.Path, units.Size(p.BS), units.Size(p.Size))
	return s + nameFlags(p.Offset, p.Buffered, p.SmallPages)
}

// nameFlags is the part of the read and write probes' names they share.
func nameFlags(offset int64, buffered, smallPages bool) string {
	s := ""
	if offset != 0 {
		s += fmt.Sprintf(" offset=%d", offset)
	}
	if buffered {
		s += " buffered"
	}
	if smallPages {
		s += " small-pages"
	}
	return s
}

// destination decides where to write: the file path and its target.
func (p *WriteProbe) destination() (path string, t target, err error) {
	st, err := os.Stat(p.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		dir := filepath.Dir(p.Path)
		if _, derr := os.Stat(dir); derr != nil {
			return "", t, explainOpen(dir, derr, false)
		}
		return p.Path, target{path: p.Path, lbs: sectorSize}, nil
	case err != nil:
		return "", t, explainOpen(p.Path, err, false)
	case st.IsDir():
		name := fmt.Sprintf(".citune-probe-%d-%d.tmp", os.Getpid(), writeSeq.Add(1))
		path = filepath.Join(p.Path, name)
		return path, target{path: path, lbs: sectorSize}, nil
	case st.Mode().IsRegular():
		return "", t, fmt.Errorf("%s already exists: the write probe creates its own file and removes it afterwards; give a new file name or a directory on the device under test", p.Path)
	}
	t, err = statTarget(p.Path)
	if err != nil {
		return "", t, err
	}
	if !t.block {
		return "", t, fmt.Errorf("%s is not a file, a directory or a block device", p.Path)
	}
	if !p.Destructive {
		return "", t, usagef("%s is a block device: writing it destroys its contents; add --destructive if that is what you want", p.Path)
	}
	if err := checkUnmounted(p.Path, filepath.Join(procRootOr(p.procRoot), "self/mounts")); err != nil {
		return "", t, err
	}
	return p.Path, t, nil
}

// Run implements Probe.
func (p *WriteProbe) Run(ctx context.Context, progress func(done, total int64)) (r Run, err error) {
	wt, f, err := p.openDest()
	if err != nil {
		return Run{}, err
	}
	if !wt.t.block {
		defer os.Remove(wt.path)
	}
	buf, err := newAlignedBuf(int(p.BS), !p.SmallPages)
	if err != nil {
		f.Close()
		return Run{}, err
	}
	defer buf.free()
	seed := uint64(time.Now().UnixNano()) ^ writeSeq.Add(1)<<48
	r, err = p.writeAll(ctx, f, buf.b, wt, seed, progress)
	if err != nil {
		return r, err
	}
	if p.afterWrite != nil {
		if err := p.afterWrite(wt.path); err != nil {
			return r, err
		}
	}
	if p.Buffered {
		if err := dropCaches(p.procRoot); err != nil {
			return r, err
		}
	}
	err = p.readBack(ctx, &r, buf.b, wt, seed, progress)
	return r, err
}

// writeDest is where a write probe writes, from offset start.
type writeDest struct {
	path  string
	t     target
	start int64
}

// openDest opens and checks the destination (a new file, or the block
// device exclusively); on error it closes (and removes) what it opened.
func (p *WriteProbe) openDest() (wd writeDest, _ *os.File, err error) {
	path, t, err := p.destination()
	if err != nil {
		return wd, nil, err
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	start := int64(0)
	if t.block {
		flag = os.O_WRONLY | os.O_EXCL // O_EXCL on a block device: fail if in use
		start = p.Offset
	}
	f, err := openDirect(path, flag, p.Buffered)
	if err != nil {
		return wd, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			if !t.block {
				os.Remove(path)
			}
		}
	}()
	if err := t.geometry(f); err != nil {
		return wd, nil, err
	}
	if err := t.checkAlign(p.BS, start); err != nil {
		return wd, nil, err
	}
	if t.block && start+p.Size > t.size {
		return wd, nil, usagef("--size %s from offset %d goes past the end of %s (%s)", units.Size(p.Size), start, p.Path, units.Size(t.size))
	}
	return writeDest{path: path, t: t, start: start}, f, nil
}

// writeAll writes the pattern of seed over the whole range through buf,
// syncs and closes f (on every path), and returns the timed Run.
func (p *WriteProbe) writeAll(ctx context.Context, f *os.File, buf []byte, wd writeDest, seed uint64, progress func(done, total int64)) (r Run, err error) {
	path, start := wd.path, wd.start
	fd := int(f.Fd())
	var done int64
	t0 := time.Now()
	stop := func() {
		f.Close()
		r.fill(done, time.Since(t0), 0)
	}
	for done < p.Size {
		if err := ctx.Err(); err != nil {
			stop()
			return r, fmt.Errorf("write %s stopped after %s: %w", path, units.Size(done), err)
		}
		n := min(p.BS, p.Size-done)
		b := buf[:n]
		fillPattern(b, start+done, seed)
		if _, err := pwriteFull(fd, b, start+done); err != nil {
			stop()
			r.Err = explainIO("write", path, start+done, done, int(n), err, !p.Buffered, wd.t.lbs).Error()
			return r, errors.New(r.Err)
		}
		done += n
		if progress != nil {
			progress(done, 2*p.Size)
		}
	}
	if err := f.Sync(); err != nil {
		stop()
		r.Err = fmt.Sprintf("fsync of %s after writing %s failed: %v", path, units.Size(done), err)
		return r, errors.New(r.Err)
	}
	r.fill(done, time.Since(t0), 0)
	r.Hash = ""
	if err := f.Close(); err != nil {
		return r, fmt.Errorf("closing %s: %w", path, err)
	}
	return r, nil
}

// readBack reads the range back, compares it with the pattern of seed,
// and records the read-back rate and any difference in r.
func (p *WriteProbe) readBack(ctx context.Context, r *Run, buf []byte, wd writeDest, seed uint64, progress func(done, total int64)) error {
	path, start := wd.path, wd.start
	rf, err := openDirect(path, os.O_RDONLY, p.Buffered)
	if err != nil {
		return fmt.Errorf("reading back: %w", err)
	}
	defer rf.Close()
	rfd := int(rf.Fd())
	var checked, bad, first int64 = 0, 0, -1
	var firstGot, firstWant byte
	t1 := time.Now()
	for checked < p.Size {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("read-back of %s stopped after %s: %w", path, units.Size(checked), err)
		}
		n := min(p.BS, p.Size-checked)
		b := buf[:n]
		m, err := preadFull(rfd, b, start+checked)
		if err == nil && int64(m) < n {
			err = fmt.Errorf("file ends after %d bytes", start+checked+int64(m))
		}
		if err != nil {
			r.Err = explainIO("read-back", path, start+checked, checked, int(n), err, !p.Buffered, wd.t.lbs).Error()
			return errors.New(r.Err)
		}
		if at, cnt, got, want := verifyPattern(b, start+checked, seed); cnt > 0 {
			if first < 0 {
				first, firstGot, firstWant = at, got, want
			}
			bad += cnt
		}
		checked += n
		if progress != nil {
			progress(p.Size+checked, 2*p.Size)
		}
	}
	if el := time.Since(t1); el > 0 {
		r.ReadBackRate = float64(checked) / el.Seconds()
	}
	if first >= 0 {
		r.Corrupt = true
		r.Detail = fmt.Sprintf("read-back differs from what was written: first at byte offset %d (wrote %#02x, read %#02x); %d of %d bytes differ", first, firstWant, firstGot, bad, p.Size)
	}
	return nil
}

// patternWord is the 8-byte word written at byte offset off.
func patternWord(off int64, seed uint64) uint64 {
	x := uint64(off) ^ seed
	x *= 0x9E3779B97F4A7C15
	x ^= x >> 29
	return x
}

func fillPattern(b []byte, off int64, seed uint64) {
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], patternWord(off+int64(i), seed))
	}
}

// verifyPattern compares b (read from offset off) with the pattern: the
// first differing byte's offset and values, and how many bytes differ.
func verifyPattern(b []byte, off int64, seed uint64) (at, count int64, got, want byte) {
	at = -1
	for i := 0; i+8 <= len(b); i += 8 {
		w := patternWord(off+int64(i), seed)
		g := binary.LittleEndian.Uint64(b[i:])
		if g == w {
			continue
		}
		for j := 0; j < 8; j++ {
			gb, wb := byte(g>>(8*j)), byte(w>>(8*j))
			if gb != wb {
				if at < 0 {
					at, got, want = off+int64(i+j), gb, wb
				}
				count++
			}
		}
	}
	return at, count, got, want
}

func pwriteFull(fd int, b []byte, off int64) (int, error) { return ioFull(sysPwrite, fd, b, off, true) }

func preadFull(fd int, b []byte, off int64) (int, error) { return ioFull(sysPread, fd, b, off, false) }

// ioFull repeats op until b is done, through EINTR; nothing moved ends a
// read (the end of the file) and fails a write (EIO).
func ioFull(op func(int, []byte, int64) (int, error), fd int, b []byte, off int64, write bool) (int, error) {
	done := 0
	for done < len(b) {
		n, err := op(fd, b[done:], off+int64(done))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			if write {
				return done, syscall.EIO
			}
			break
		}
		done += n
	}
	return done, nil
}

// checkUnmounted refuses dev when it, or any partition of it, appears in
// the mount table at mountsPath (/proc/self/mounts).
func checkUnmounted(dev, mountsPath string) error {
	real, err := filepath.EvalSymlinks(dev)
	if err != nil {
		real = dev
	}
	var devRdev uint64
	if st, err := os.Stat(real); err == nil {
		devRdev = rdevOf(st)
	}
	data, err := os.ReadFile(mountsPath)
	if err != nil {
		return fmt.Errorf("cannot tell whether %s is mounted (%v): refusing to write it", dev, err)
	}
	mounted := mountedFrom(string(data), filepath.Base(real), devRdev)
	if len(mounted) > 0 {
		return fmt.Errorf("%s is mounted (%s): refusing to write it; unmount first", dev, strings.Join(mounted, "; "))
	}
	return nil
}

// mountedFrom lists "SOURCE on MOUNTPOINT" for every mount of disk or a
// partition of it.
func mountedFrom(mounts, disk string, rdev uint64) []string {
	var out []string
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.HasPrefix(f[0], "/") {
			continue
		}
		src := unescapeMount(f[0])
		real, err := filepath.EvalSymlinks(src)
		if err != nil {
			real = src
		}
		hit := isDiskOrPartition(disk, filepath.Base(real))
		if !hit && rdev != 0 {
			st, err := os.Stat(real)
			hit = err == nil && rdevOf(st) == rdev && st.Mode()&os.ModeDevice != 0
		}
		if hit {
			out = append(out, src+" on "+unescapeMount(f[1]))
		}
	}
	return out
}

// isDiskOrPartition reports whether name is disk or a partition of it,
// with the kernel's naming: sda → sda1, mmcblk0 → mmcblk0p1.
func isDiskOrPartition(disk, name string) bool {
	if name == disk {
		return true
	}
	rest, ok := strings.CutPrefix(name, disk)
	if !ok || rest == "" {
		return false
	}
	if last := disk[len(disk)-1]; last >= '0' && last <= '9' {
		if rest, ok = strings.CutPrefix(rest, "p"); !ok {
			return false
		}
	}
	_, err := strconv.ParseUint(rest, 10, 32)
	return err == nil
}

// unescapeMount undoes the octal escapes of /proc/self/mounts (\040).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
