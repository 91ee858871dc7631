package probe

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// Header pages as 64-bit and 32-bit kernels describe them, and the two
// handler events' formats as Linux 6.x prints them.
const (
	headerPage64 = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"
	headerPage32 = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n"
	entryFormat  = "name: irq_handler_entry\nID: 225\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n\nprint fmt: \"irq=%d name=%s\", REC->irq, __get_str(name)\n"
	exitFormat   = "name: irq_handler_exit\nID: 224\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:int irq;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int ret;\toffset:12;\tsize:4;\tsigned:1;\n\nprint fmt: \"irq=%d ret=%s\", REC->irq, REC->ret ? \"handled\" : \"unhandled\"\n"
)

// traceDir makes an instance directory with the given header page.
func traceDir(t *testing.T, headerPage string) string {
	t.Helper()
	dir := t.TempDir()
	for name, s := range map[string]string{
		"events/header_page":                  headerPage,
		"events/irq/irq_handler_entry/format": entryFormat,
		"events/irq/irq_handler_exit/format":  exitFormat,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// pageBuilder writes ring buffer pages the way the kernel lays them out.
type pageBuilder struct {
	l    rawLayout
	data []byte
}

func (b *pageBuilder) u32(v uint32) { b.data = binary.LittleEndian.AppendUint32(b.data, v) }

// event appends a data event delta ns after the previous one; long
// forces the type_len 0 form (length in the next word).
func (b *pageBuilder) event(delta uint32, id uint16, irq int32, long bool) {
	rec := binary.LittleEndian.AppendUint16(nil, id)
	rec = append(rec, 0, 0, 1, 0, 0, 0) // flags, preempt count, pid
	rec = binary.LittleEndian.AppendUint32(rec, uint32(irq))
	rec = binary.LittleEndian.AppendUint32(rec, 0) // name's data_loc or ret
	if long {
		b.u32(delta << 5)
		b.u32(uint32(len(rec) + 4))
	} else {
		b.u32(delta<<5 | uint32(len(rec)/4))
	}
	b.data = append(b.data, rec...)
}

func (b *pageBuilder) extend(delta uint64) {
	b.u32(uint32(delta&(1<<27-1))<<5 | rbTypeTimeExtend)
	b.u32(uint32(delta >> 27))
}

func (b *pageBuilder) page(ts uint64, flags uint64) []byte {
	p := make([]byte, b.l.pageSize)
	binary.LittleEndian.PutUint64(p, ts)
	commit := uint64(len(b.data)) | flags
	if b.l.commitSize == 8 {
		binary.LittleEndian.PutUint64(p[b.l.commitOff:], commit)
	} else {
		binary.LittleEndian.PutUint32(p[b.l.commitOff:], uint32(commit))
	}
	copy(p[b.l.dataOff:], b.data)
	b.data = nil
	return p
}

func TestRawLayoutFromTheKernelsDescription(t *testing.T) {
	for _, tc := range []struct {
		name                string
		header              string
		commitSize, dataOff int
	}{{"64-bit", headerPage64, 8, 16}, {"32-bit", headerPage32, 4, 12}} {
		l, err := readRawLayout(traceDir(t, tc.header))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		want := rawLayout{commitOff: 8, commitSize: tc.commitSize, dataOff: tc.dataOff, pageSize: 4096, entryID: 225, exitID: 224, entryIRQ: 8, exitIRQ: 8}
		if l != want {
			t.Errorf("%s: layout %+v, want %+v", tc.name, l, want)
		}
	}
	if _, err := readRawLayout(traceDir(t, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\n")); err == nil {
		t.Error("a header page without commit and data: want an error (the text is read instead)")
	}
	if _, err := readRawLayout(t.TempDir()); err == nil {
		t.Error("no header page: want an error")
	}
	if _, _, err := parseEventFormat([]byte("name: x\nID: 7\nformat:\n\tfield:int other;\toffset:8;\tsize:4;\n")); err == nil {
		t.Error("a format without irq: want an error")
	}
}

// Both layouts decode the same handler runs: plain and long events, time
// extends, other IRQs and events between, padding, and a page that lost
// events (its open entry is dropped).
func TestRawPagesPairHandlerEvents(t *testing.T) {
	for _, header := range []string{headerPage64, headerPage32} {
		dir := traceDir(t, header)
		l, err := readRawLayout(dir)
		if err != nil {
			t.Fatal(err)
		}
		b := &pageBuilder{l: l}
		// page 1: 2 µs; then 5 µs with another IRQ's pair and a foreign
		// event between, as long events; then an extend of 2^27+3 ns
		// before an entry whose exit comes 7 µs later.
		b.event(100, 225, 40, false)
		b.event(2000, 224, 40, false)
		b.event(50, 225, 40, true)
		b.event(1000, 225, 41, false)
		b.event(1000, 224, 41, false)
		b.event(10, 300, 40, false)
		b.event(2990, 224, 40, true)
		b.extend(1<<27 + 3)
		b.event(0, 225, 40, false)
		b.event(7000, 224, 40, false)
		b.u32(rbTypePadding) // padding to the end of the page
		p1 := b.page(1_000_000, 0)
		// page 2: an entry left open ...
		b.event(5, 225, 40, false)
		p2 := b.page(2_000_000_000, 0)
		// page 3: ... whose exit may be among the lost events: not paired;
		// then one clean 3 µs run.
		b.event(100, 224, 40, false)
		b.event(100, 225, 40, false)
		b.event(3000, 224, 40, false)
		p3 := b.page(3_000_000_000, rbMissedEvents)

		cpu := filepath.Join(dir, "per_cpu", "cpu0")
		if err := os.MkdirAll(cpu, 0o755); err != nil {
			t.Fatal(err)
		}
		pages := append(append(append([]byte{}, p1...), p2...), p3...)
		if err := os.WriteFile(filepath.Join(cpu, "trace_pipe_raw"), pages, 0o644); err != nil {
			t.Fatal(err)
		}
		h, err := collectRaw(dir, l, 40)
		if err != nil {
			t.Fatal(err)
		}
		if h.events != 4 || !near(h.avgUS(), 4.25) || !near(h.maxUS, 7) {
			t.Errorf("commit %d bytes: got %+v, want 4 runs, avg 4.25 µs, max 7 µs", l.commitSize, h)
		}
	}
}

func TestRawPageRefusesBadLengths(t *testing.T) {
	l := rawLayout{commitOff: 8, commitSize: 8, dataOff: 16, pageSize: 64, entryID: 225, exitID: 224, entryIRQ: 8, exitIRQ: 8}
	var h handlerStats
	c := rawCPU{h: &h}
	b := &pageBuilder{l: l}
	b.u32(0)   // a long event ...
	b.u32(200) // ... longer than the page
	if err := c.page(b.page(0, 0), l, 40); err == nil {
		t.Error("an event past the page's data: want an error")
	}
	p := b.page(0, 0)
	binary.LittleEndian.PutUint64(p[8:], 4000) // more data than the page holds
	if err := c.page(p, l, 40); err == nil {
		t.Error("a commit past the page: want an error")
	}
	if err := c.page(p[:10], l, 40); err == nil {
		t.Error("a short page: want an error")
	}
}

func FuzzRawPage(f *testing.F) {
	l := rawLayout{commitOff: 8, commitSize: 8, dataOff: 16, pageSize: 256, entryID: 225, exitID: 224, entryIRQ: 8, exitIRQ: 8}
	b := &pageBuilder{l: l}
	b.event(1, 225, 1, false)
	b.extend(1 << 30)
	b.event(1, 224, 1, true)
	f.Add(b.page(7, 0), false)
	f.Add(make([]byte, 20), true)
	f.Fuzz(func(t *testing.T, p []byte, small bool) {
		l := l
		if small {
			l.commitSize, l.dataOff = 4, 12
		}
		var h handlerStats
		c := rawCPU{h: &h}
		c.page(p, l, 1)
		if h.events > uint64(len(p)) {
			t.Fatalf("%d events from %d bytes", h.events, len(p))
		}
	})
}
