package mmio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func image(t *testing.T, size int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "regs.bin")
	b := make([]byte, size)
	for i := 0; i < size; i += 4 {
		binary.LittleEndian.PutUint32(b[i:], uint32(0x1000+i))
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMapFileReadWrite(t *testing.T) {
	p := image(t, 0x200)
	w, err := MapFile(p, 0x200, true)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := w.Read32(0x140); err != nil || v != 0x1140 {
		t.Fatalf("Read32(0x140) = %#x, %v; want 0x1140", v, err)
	}
	if err := w.Write32(0x160, 0xdeadbeef); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if got := binary.LittleEndian.Uint32(b[0x160:]); got != 0xdeadbeef {
		t.Errorf("file word at 0x160 = %#x after write through the mapping", got)
	}
	// neighbours untouched: one 32-bit store, nothing wider
	if got := binary.LittleEndian.Uint32(b[0x15c:]); got != 0x115c {
		t.Errorf("word before = %#x", got)
	}
	if got := binary.LittleEndian.Uint32(b[0x164:]); got != 0x1164 {
		t.Errorf("word after = %#x", got)
	}
}

func TestWindowRefusesBadOffsets(t *testing.T) {
	w, err := MapFile(image(t, 0x200), 0x200, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, off := range []uint32{0x142, 0x1, 0x200, 0x1fe, 0xfffffffc} {
		if _, err := w.Read32(off); !errors.Is(err, ErrRange) {
			t.Errorf("Read32(%#x) err = %v, want ErrRange", off, err)
		}
		if err := w.Write32(off, 1); !errors.Is(err, ErrRange) {
			t.Errorf("Write32(%#x) err = %v, want ErrRange", off, err)
		}
	}
	if _, err := w.Read32(0x1fc); err != nil {
		t.Errorf("last word: %v", err)
	}
}

func TestReadOnlyImageWriteFaultIsAnError(t *testing.T) {
	p := image(t, 0x200)
	w, err := MapFile(p, 0x200, false)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.Write32(0x140, 1)
	if !errors.Is(err, ErrFault) {
		t.Fatalf("write to a read-only mapping: err = %v, want ErrFault", err)
	}
	if !strings.Contains(err.Error(), "0x00000140/32") {
		t.Errorf("error %q does not name the address and width", err)
	}
	if v, err := w.Read32(0x140); err != nil || v != 0x1140 {
		t.Errorf("after the fault Read32 = %#x, %v", v, err)
	}
}

func TestMapFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := MapFile(filepath.Join(dir, "missing.bin"), 0x200, false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	short := filepath.Join(dir, "short.bin")
	os.WriteFile(short, make([]byte, 0x100), 0o644)
	if _, err := MapFile(short, 0x200, false); err == nil || !strings.Contains(err.Error(), "holds 256 bytes") {
		t.Errorf("short image: %v", err)
	}
	if _, err := MapFile(dir, 0x200, false); err == nil {
		t.Error("a directory mapped")
	}
}

func TestClosedWindow(t *testing.T) {
	w, err := MapFile(image(t, 0x200), 0x200, true)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if _, err := w.Read32(0); err == nil {
		t.Error("read after Close succeeded")
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func BenchmarkRead32File(b *testing.B) {
	p := filepath.Join(b.TempDir(), "r.bin")
	os.WriteFile(p, make([]byte, 0x200), 0o644)
	w, err := MapFile(p, 0x200, true)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		w.Read32(0x140)
	}
}

func TestIsEPERM(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{syscall.EPERM, true},
		{fmt.Errorf("mapping: %w", syscall.EPERM), true},
		// what periph's pmem.Map returns: the errno formatted with %v
		{errors.New("pmem: failed to memory map: operation not permitted"), true},
		{errors.New("pmem: failed to memory map: invalid argument"), false},
		{syscall.EACCES, false},
	} {
		if got := isEPERM(tc.err); got != tc.want {
			t.Errorf("isEPERM(%q) = %v", tc.err, got)
		}
	}
}
