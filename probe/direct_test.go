package probe

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags line of the mapping that starts at addr in
// /proc/self/smaps, and whether there is one.
func vmFlags(t *testing.T, addr uintptr) (string, bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	want := fmt.Sprintf("%x-", addr)
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A mapping's header is "start-end perms ...", its fields "Key: ...".
		if f := strings.Fields(line); len(f) > 0 && !strings.HasSuffix(f[0], ":") {
			in = strings.HasPrefix(line, want)
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return line, true
		}
	}
	return "", false
}

func TestAlignedBufOnHugePages(t *testing.T) {
	hp := hugePageSize()
	if hp == 0 {
		t.Skip("this kernel has no transparent huge pages")
	}
	a, err := newAlignedBuf(1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(a.b)))
	if len(a.b) != 1<<20 || cap(a.b) != 1<<20 {
		t.Errorf("len %d cap %d, want 1 MiB", len(a.b), cap(a.b))
	}
	if addr%uintptr(hp) != 0 {
		t.Errorf("buffer at %#x is not on a %d-byte huge page boundary", addr, hp)
	}
	if !a.huge {
		mode, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
		if strings.Contains(string(mode), "[never]") {
			t.Skip("transparent huge pages are off here")
		}
		t.Fatalf("THP is %q but the buffer was not marked for huge pages", strings.TrimSpace(string(mode)))
	}
	// madvise splits the mapping: the huge part is its own VMA, marked
	// "hg" (VM_HUGEPAGE), which is what makes the kernel back it with a
	// huge page.
	flags, ok := vmFlags(t, addr)
	if !ok {
		t.Fatalf("no mapping starts at %#x in smaps", addr)
	}
	if !strings.Contains(flags, " hg") {
		t.Errorf("mapping at %#x: %q, want the hg flag", addr, flags)
	}
	for i := range a.b {
		a.b[i] = byte(i)
	}
	a.free()
	if a.b != nil || a.base != nil {
		t.Error("free left the slices set")
	}
	if _, ok := vmFlags(t, addr); ok {
		t.Errorf("mapping at %#x still there after free", addr)
	}
}

func TestAlignedBufSmallPages(t *testing.T) {
	for _, tc := range []struct {
		n    int
		huge bool
	}{
		{1 << 20, false}, // --small-pages
		{64 << 10, true}, // below hugeMin: ordinary pages even when asked
	} {
		a, err := newAlignedBuf(tc.n, tc.huge)
		if err != nil {
			t.Fatal(err)
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(a.b)))
		if addr%uintptr(os.Getpagesize()) != 0 {
			t.Errorf("%d bytes at %#x: not page aligned", tc.n, addr)
		}
		if a.huge {
			t.Errorf("%d bytes, huge %v: put on huge pages", tc.n, tc.huge)
		}
		if flags, ok := vmFlags(t, addr); ok && strings.Contains(flags, " hg") {
			t.Errorf("%d bytes, huge %v: marked hg: %q", tc.n, tc.huge, flags)
		}
		a.free()
	}
}
