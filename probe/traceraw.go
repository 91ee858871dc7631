package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Reading the handler events in the ring buffer's own binary pages
// (per_cpu/cpuN/trace_pipe_raw) instead of the text file "trace".
//
// Decision: binary first, text as the fallback. Formatting an event as
// text costs the kernel a vsnprintf, and parsing it back costs citune as
// much again: about 5 µs of CPU per interrupt (bench/probe-vs-dd.sh), far
// more on a 500 MHz Cortex-A5, and at ITC 1 a USB disk raises hundreds
// per MiB. The pages are decoded with the layout the kernel describes in
// events/header_page and each event's format file, so 32-bit kernels
// read the same way as 64-bit ones; a layout this decoder does not know
// (big-endian, no irq field) is read as text.

// rawLayout is the kernel's description of its ring buffer pages and of
// the two handler events.
type rawLayout struct {
	commitOff, commitSize int // the page header's commit (data length and flags)
	dataOff, pageSize     int
	entryID, exitID       uint16
	entryIRQ, exitIRQ     int // offset of the irq field in each event's record
}

// Ring buffer event types (type_len of the event header) and flags of
// the page's commit field, from the kernel's include/linux/ring_buffer.h
// and kernel/trace/ring_buffer.c.
const (
	rbTypePadding    = 29
	rbTypeTimeExtend = 30
	rbTypeTimeStamp  = 31
	rbMissedEvents   = 1 << 31
	rbMissedStored   = 1 << 30
	rbTSBits         = 59 // an absolute time stamp's width; the rest comes from the page
)

func readRawLayout(dir string) (rawLayout, error) {
	var l rawLayout
	if binary.NativeEndian.Uint16([]byte{1, 0}) != 1 {
		return l, errors.New("binary trace pages: big-endian kernels are read as text")
	}
	hp, err := os.ReadFile(filepath.Join(dir, "events/header_page"))
	if err != nil {
		return l, err
	}
	fields := parseFormatFields(hp)
	commit, ok1 := fields["commit"]
	data, ok2 := fields["data"]
	if !ok1 || !ok2 || (commit.size != 4 && commit.size != 8) || data.off < commit.off+commit.size {
		return l, fmt.Errorf("binary trace pages: unexpected header_page %q", hp)
	}
	l.commitOff, l.commitSize, l.dataOff, l.pageSize = commit.off, commit.size, data.off, data.off+data.size
	for _, ev := range []struct {
		name string
		id   *uint16
		irq  *int
	}{{"irq_handler_entry", &l.entryID, &l.entryIRQ}, {"irq_handler_exit", &l.exitID, &l.exitIRQ}} {
		b, err := os.ReadFile(filepath.Join(dir, "events/irq", ev.name, "format"))
		if err != nil {
			return l, err
		}
		id, irq, err := parseEventFormat(b)
		if err != nil {
			return l, fmt.Errorf("%s: %w", ev.name, err)
		}
		*ev.id, *ev.irq = id, irq
	}
	return l, nil
}

type formatField struct{ off, size int }

// parseFormatFields reads the "field:TYPE NAME; offset:N; size:N;" lines
// of a tracefs format file.
func parseFormatFields(b []byte) map[string]formatField {
	out := map[string]formatField{}
	for line := range strings.Lines(string(b)) {
		var name string
		f := formatField{off: -1, size: -1}
		for part := range strings.SplitSeq(line, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(part), ":")
			if !ok {
				continue
			}
			switch k {
			case "field":
				words := strings.Fields(v)
				if len(words) > 0 {
					name, _, _ = strings.Cut(words[len(words)-1], "[")
				}
			case "offset":
				f.off, _ = strconv.Atoi(v)
			case "size":
				f.size, _ = strconv.Atoi(v)
			}
		}
		if name != "" && f.off >= 0 && f.size >= 0 {
			out[name] = f
		}
	}
	return out
}

// parseEventFormat returns an event's id and its 4-byte irq field's offset.
func parseEventFormat(b []byte) (id uint16, irqOff int, err error) {
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "ID:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 16)
			if err != nil {
				return 0, 0, fmt.Errorf("bad ID line %q", strings.TrimSpace(line))
			}
			id = uint16(n)
		}
	}
	irq, ok := parseFormatFields(b)["irq"]
	if id == 0 || !ok || irq.size != 4 {
		return 0, 0, errors.New("no ID or no 4-byte irq field in its format")
	}
	return id, irq.off, nil
}

// rawCPU pairs the events of one CPU's buffer, which come in time order.
type rawCPU struct {
	h     *handlerStats
	entry int64 // the open entry's time stamp
	open  bool
}

// page decodes one ring buffer page. It stops at the end of the page's
// data; a page that lost events before it drops an open entry.
func (c *rawCPU) page(p []byte, l rawLayout, irq int) error {
	if len(p) < l.dataOff {
		return fmt.Errorf("short trace page (%d bytes)", len(p))
	}
	ts := int64(binary.LittleEndian.Uint64(p))
	var commit uint64
	if l.commitSize == 8 {
		commit = binary.LittleEndian.Uint64(p[l.commitOff:])
	} else {
		commit = uint64(binary.LittleEndian.Uint32(p[l.commitOff:]))
	}
	if commit&(rbMissedEvents|rbMissedStored) != 0 {
		c.open = false // the exit of an open entry may be among the lost
	}
	size := int(commit &^ (rbMissedEvents | rbMissedStored))
	end := l.dataOff + size
	if size < 0 || end > len(p) {
		return fmt.Errorf("trace page claims %d bytes of data in %d", size, len(p)-l.dataOff)
	}
	for off := l.dataOff; off+4 <= end; {
		hdr := binary.LittleEndian.Uint32(p[off:])
		typeLen, delta := hdr&0x1f, int64(hdr>>5)
		var rec []byte
		switch {
		case typeLen == rbTypePadding:
			if delta == 0 || off+8 > end {
				return nil // the rest of the page is padding
			}
			off += 4 + int(binary.LittleEndian.Uint32(p[off+4:]))
			continue
		case typeLen == rbTypeTimeExtend:
			if off+8 > end {
				return errors.New("trace page: cut time extend")
			}
			ts += int64(binary.LittleEndian.Uint32(p[off+4:]))<<27 | delta
			off += 8
			continue
		case typeLen == rbTypeTimeStamp:
			if off+8 > end {
				return errors.New("trace page: cut time stamp")
			}
			abs := int64(binary.LittleEndian.Uint32(p[off+4:]))<<27 | delta
			// The stamp keeps 59 bits; the top ones are the page's.
			hi := ts &^ (1<<rbTSBits - 1)
			abs |= hi
			if abs < ts && hi != 0 {
				abs += 1 << rbTSBits
			}
			ts = abs
			off += 8
			continue
		case typeLen == 0:
			if off+8 > end {
				return errors.New("trace page: cut event length")
			}
			n := int(binary.LittleEndian.Uint32(p[off+4:]))
			if n < 4 || off+4+n > end {
				return fmt.Errorf("trace page: event of %d bytes at %d", n, off)
			}
			rec = p[off+8 : off+4+n]
			off += 4 + n
		default:
			n := int(typeLen) * 4
			if off+4+n > end {
				return fmt.Errorf("trace page: event of %d bytes at %d", n, off)
			}
			rec = p[off+4 : off+4+n]
			off += 4 + n
		}
		ts += delta
		c.event(rec, ts, l, irq)
	}
	return nil
}

// event takes one record at time stamp ts (ns).
func (c *rawCPU) event(rec []byte, ts int64, l rawLayout, irq int) {
	if len(rec) < 2 {
		return
	}
	id := binary.LittleEndian.Uint16(rec)
	var irqOff int
	switch id {
	case l.entryID:
		irqOff = l.entryIRQ
	case l.exitID:
		irqOff = l.exitIRQ
	default:
		return
	}
	if irqOff+4 > len(rec) || int(int32(binary.LittleEndian.Uint32(rec[irqOff:]))) != irq {
		return
	}
	if id == l.entryID {
		c.entry, c.open = ts, true
		return
	}
	if !c.open || ts < c.entry {
		return
	}
	c.open = false
	c.h.add(ts - c.entry)
}

// collectRaw reads every CPU's trace_pipe_raw of the instance dir until
// it is empty (the events disabled first, so that it stays so).
func collectRaw(dir string, l rawLayout, irq int) (handlerStats, error) {
	var h handlerStats
	cpus, err := filepath.Glob(filepath.Join(dir, "per_cpu", "cpu*", "trace_pipe_raw"))
	if err != nil || len(cpus) == 0 {
		return h, errors.New("no per_cpu/cpuN/trace_pipe_raw in the trace instance")
	}
	page := make([]byte, l.pageSize)
	for _, path := range cpus {
		c := rawCPU{h: &h}
		if err := readPipeRaw(path, page, func(p []byte) error { return c.page(p, l, irq) }); err != nil {
			return handlerStats{}, err
		}
	}
	return h, nil
}

// readPipeRaw reads the pages of one trace_pipe_raw without blocking. A
// CPU that is possible but not present or online has a directory but no
// buffer: the kernel answers ENODEV, which is an empty CPU here (seen on
// the emulated i.MX6 board, cpu1 of one).
func readPipeRaw(path string, page []byte, each func([]byte) error) error {
	fd, err := openNonblock(path)
	if err == syscall.ENODEV {
		return nil
	}
	if err != nil {
		return fmt.Errorf("tracefs: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer sysClose(fd)
	for {
		n, err := sysRead(fd, page)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN || err == syscall.ENODEV || n == 0:
			return nil
		case err != nil:
			return fmt.Errorf("tracefs: %w", &os.PathError{Op: "read", Path: path, Err: err})
		}
		if err := each(page[:n]); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// collectText is the fallback: the whole text file "trace".
func collectText(dir string, irq int) (handlerStats, error) {
	data, err := os.ReadFile(filepath.Join(dir, "trace"))
	if err != nil {
		return handlerStats{}, fmt.Errorf("tracefs: %w", err)
	}
	return parseTrace(data, irq), nil
}
