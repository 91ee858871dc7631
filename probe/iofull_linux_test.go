package probe

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFullReadsAndWrites: preadFull stops at the end of a file without an
// error and pwriteFull writes all of a buffer; both give the error of a
// file descriptor that is no longer open.
func TestFullReadsAndWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fd := int(f.Fd())
	if n, err := pwriteFull(fd, []byte("0123456789"), 2); n != 10 || err != nil {
		t.Fatalf("pwriteFull: %d, %v; want 10, nil", n, err)
	}
	b := make([]byte, 32)
	if n, err := preadFull(fd, b, 4); n != 8 || err != nil || string(b[:n]) != "23456789" {
		t.Fatalf("preadFull at 4: %d %q, %v; want 8 \"23456789\", nil", n, b[:n], err)
	}
	f.Close()
	if _, err := preadFull(fd, b, 0); !errors.Is(err, syscall.EBADF) {
		t.Errorf("preadFull on a closed fd: %v, want EBADF", err)
	}
	if _, err := pwriteFull(fd, b, 0); !errors.Is(err, syscall.EBADF) {
		t.Errorf("pwriteFull on a closed fd: %v, want EBADF", err)
	}
}

// TestIOFull: a call interrupted by a signal is made again, a write that
// moves nothing is EIO, a read that moves nothing is the end of the file.
func TestIOFull(t *testing.T) {
	for _, tc := range []struct {
		write bool
		want  error
	}{{true, syscall.EIO}, {false, nil}} {
		calls := 0
		op := func(_ int, b []byte, _ int64) (int, error) {
			calls++
			switch calls {
			case 1:
				return 0, syscall.EINTR
			case 2:
				return 3, nil
			}
			return 0, nil
		}
		n, err := ioFull(op, 0, make([]byte, 8), 0, tc.write)
		if n != 3 || !errors.Is(err, tc.want) && err != tc.want || calls != 3 {
			t.Errorf("write %v: %d, %v after %d calls; want 3, %v after 3", tc.write, n, err, calls, tc.want)
		}
	}
}
