package probe

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// randomFile writes n pseudo-random bytes to a new file in dir.
func randomFile(t *testing.T, dir string, n int) (string, []byte) {
	t.Helper()
	data := make([]byte, n)
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	path := filepath.Join(dir, "data.bin")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

// directOK skips the test where the test directory refuses O_DIRECT.
func directOK(t *testing.T, path string) {
	t.Helper()
	f, err := openDirect(path, os.O_RDONLY, false)
	if errors.Is(err, ErrNoDirect) {
		t.Skipf("the test directory's file system has no O_DIRECT: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func crcOf(b []byte) string { return fmt.Sprintf("crc32:%08x", crc32.ChecksumIEEE(b)) }

// sampleOf is the sample check's CRC of data read from offset base,
// computed the slow way: byte by byte, keeping those whose offset is
// within SampleBytes of a multiple of SampleStride.
func sampleOf(data []byte, base int64) string {
	var s []byte
	for i, c := range data {
		if (base+int64(i))%SampleStride < SampleBytes {
			s = append(s, c)
		}
	}
	return crcOf(s)
}

func TestReadFile(t *testing.T) {
	path, data := randomFile(t, t.TempDir(), 3<<20+10000) // ends in a partial block
	directOK(t, path)
	tests := map[string]struct {
		p    ReadProbe
		want []byte
	}{
		"all, 64K blocks":      {ReadProbe{BS: 64 << 10, Size: -1}, data},
		"default size":         {ReadProbe{BS: 1 << 20}, data},
		"offset and size":      {ReadProbe{BS: 4096, Offset: 8192, Size: 1 << 20}, data[8192 : 8192+1<<20]},
		"size not a multiple":  {ReadProbe{BS: 1 << 20, Size: 1<<20 + 512}, data[:1<<20+512]},
		"buffered from offset": {ReadProbe{BS: 1 << 20, Offset: 1 << 20, Size: -1, Buffered: true}, data[1<<20:]},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			p := tc.p
			p.Path = path
			p.Verify = VerifyFull
			if p.Buffered && os.Geteuid() != 0 {
				t.Skip("dropping the page cache needs root")
			}
			var last int64
			r, err := p.Run(context.Background(), func(done, total int64) { last = done })
			if err != nil {
				t.Fatal(err)
			}
			if r.Bytes != int64(len(tc.want)) || last != r.Bytes {
				t.Errorf("read %d bytes (progress %d), want %d", r.Bytes, last, len(tc.want))
			}
			if want := crcOf(tc.want); r.Hash != want {
				t.Errorf("hash %s, want %s", r.Hash, want)
			}
			if want := sampleOf(tc.want, p.Offset); r.Sample != want {
				t.Errorf("sample %s, want %s", r.Sample, want)
			}
			if r.Rate <= 0 || r.Elapsed <= 0 {
				t.Errorf("rate %v over %v", r.Rate, r.Elapsed)
			}
		})
	}
}

func TestReadDuration(t *testing.T) {
	path, _ := randomFile(t, t.TempDir(), 1<<20)
	directOK(t, path)
	p := &ReadProbe{Path: path, BS: 256 << 10, Dur: time.Nanosecond}
	r, err := p.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Bytes == 0 || r.markSpan != 1<<20 {
		t.Errorf("read %d bytes, span %d", r.Bytes, r.markSpan)
	}
}

func TestReadExpectHash(t *testing.T) {
	path, data := randomFile(t, t.TempDir(), 1<<20)
	directOK(t, path)
	good := crcOf(data)
	p := &ReadProbe{Path: path, BS: 1 << 20, Size: -1, ExpectHash: strings.ToUpper(strings.TrimPrefix(good, "crc32:"))}
	if r, err := p.Run(context.Background(), nil); err != nil || r.Corrupt {
		t.Fatalf("matching hash: %v %+v", err, r)
	}
	p.ExpectHash = "crc32:00000000"
	res, err := Measure(context.Background(), p, Options{Repeat: 3})
	if !errors.Is(err, ErrCorrupt) || !res.Corrupt || len(res.Runs) != 1 {
		t.Fatalf("err %v, result %+v: want ErrCorrupt after the first run", err, res)
	}
	if want := "hash to " + good + ", expected crc32:00000000"; !strings.Contains(res.Runs[0].Detail, want) {
		t.Errorf("detail %q lacks %q", res.Runs[0].Detail, want)
	}
}

// hookProbe runs before(n) ahead of its n-th run (1-based).
type hookProbe struct {
	Probe
	n      int
	before func(n int)
}

func (h *hookProbe) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	h.n++
	h.before(h.n)
	return h.Probe.Run(ctx, progress)
}

// flipByte changes one byte of a file (or device) in place.
func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
}

func TestReadRepeatsCatchCorruptByte(t *testing.T) {
	path, _ := randomFile(t, t.TempDir(), 4<<20)
	directOK(t, path)
	const bs = 256 << 10
	const at = 5*bs + 1234
	p := &hookProbe{Probe: &ReadProbe{Path: path, BS: bs, Size: -1, Verify: VerifyFull}, before: func(n int) {
		if n == 3 {
			flipByte(t, path, at)
		}
	}}
	res, err := Measure(context.Background(), p, Options{Repeat: 4, Warmup: 1})
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("err %v, want ErrCorrupt", err)
	}
	if len(res.Runs) != 3 || !res.Runs[2].Corrupt || res.Runs[1].Corrupt {
		t.Fatalf("runs %+v: want the third run corrupt and the measuring stopped", res.Runs)
	}
	want := "run 3 read different data than run 1: the first difference is in the 256KiB block at byte offset 1310720"
	if res.Runs[2].Detail != want {
		t.Errorf("detail %q, want %q", res.Runs[2].Detail, want)
	}
	if !strings.Contains(err.Error(), "byte offset 1310720") || res.Stats.N != 2 || res.Hash != "" {
		t.Errorf("error %v, stats %+v, hash %q", err, res.Stats, res.Hash)
	}
}

// failingFile fails with EIO once failAfter bytes have been read, like a
// device that was unplugged.
type failingFile struct {
	preader
	failAfter, done int64
}

func (f *failingFile) pread(b []byte, off int64) (int, error) {
	if f.done+int64(len(b)) > f.failAfter {
		return 0, syscall.EIO
	}
	n, err := f.preader.pread(b, off)
	f.done += int64(n)
	return n, err
}

func TestReadDeviceDisappears(t *testing.T) {
	path, _ := randomFile(t, t.TempDir(), 4<<20)
	directOK(t, path)
	runs := 0
	p := &ReadProbe{Path: path, BS: 1 << 20, Size: -1, open: func(path string, buffered bool) (preader, error) {
		runs++
		f, err := openRead(path, buffered)
		if err != nil || runs < 3 {
			return f, err
		}
		return &failingFile{preader: f, failAfter: 2 << 20}, nil
	}}
	res, err := Measure(context.Background(), p, Options{Repeat: 5})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"read of 1048576 bytes at offset 2097152", "failed after 2MiB", "input/output error", "did the device disappear"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(res.Runs) != 3 || res.Runs[2].Bytes != 2<<20 || res.Runs[2].Err == "" {
		t.Fatalf("runs %+v: want two good runs and the failed one with 2MiB done", res.Runs)
	}
	if res.Stats.N != 2 || res.Stats.Mean <= 0 || res.Sample == "" {
		t.Errorf("what was measured before the failure is lost: %+v", res)
	}
}

func TestReadErrorsExplain(t *testing.T) {
	dir := t.TempDir()
	path, _ := randomFile(t, dir, 1<<20)
	tests := map[string]struct {
		p     ReadProbe
		want  string
		usage bool
	}{
		"nonexistent":       {ReadProbe{Path: filepath.Join(dir, "nope"), BS: 1 << 20}, "does not exist", false},
		"directory":         {ReadProbe{Path: dir, BS: 1 << 20}, "is a directory", false},
		"unaligned bs":      {ReadProbe{Path: path, BS: 1000}, "--bs 1000 is not a multiple of 512", true},
		"no bs":             {ReadProbe{Path: path}, "--bs 0B: give a block size from 512 bytes to 1GiB", true},
		"unaligned offset":  {ReadProbe{Path: path, BS: 1 << 20, Offset: 100}, "--offset 100 is not a multiple of 512", true},
		"size and time":     {ReadProbe{Path: path, BS: 1 << 20, Size: 1 << 20, Dur: time.Second}, "not both", true},
		"hash, no hashing":  {ReadProbe{Path: path, BS: 1 << 20, ExpectHash: "crc32:0", Verify: VerifyNone}, "drop --no-hash", true},
		"hash and duration": {ReadProbe{Path: path, BS: 1 << 20, ExpectHash: "crc32:0", Dur: time.Second}, "needs a fixed --size", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.p.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if errors.Is(err, ErrUsage) != tc.usage {
				t.Errorf("usage error: %v, want %v", !tc.usage, tc.usage)
			}
		})
	}
	if err := (&ReadProbe{Path: path, BS: 1 << 20, Size: -1, Verify: VerifyFull}).Check(); err != nil {
		t.Errorf("a good probe: %v", err)
	}
	t.Run("past the end", func(t *testing.T) {
		directOK(t, path)
		_, err := (&ReadProbe{Path: path, BS: 1 << 20, Size: 2 << 20}).Run(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), "goes past the end") {
			t.Fatalf("error %v", err)
		}
	})
}

func TestExplainErrno(t *testing.T) {
	pe := func(e syscall.Errno) error { return &os.PathError{Op: "open", Path: "/dev/sdz", Err: e} }
	tests := map[string]struct {
		err  error
		want string
	}{
		"permission":  {explainOpen("/dev/sdz", pe(syscall.EACCES), true), "permission denied opening /dev/sdz: check the permissions"},
		"no O_DIRECT": {explainOpen("/mnt/x", pe(syscall.EINVAL), true), "refused O_DIRECT"},
		"busy":        {explainOpen("/dev/sdz", pe(syscall.EBUSY), true), "is in use"},
		"EINVAL read": {explainIO("read", "/dev/sdz", 4096, 4096, 1000, syscall.EINVAL, true, 512), "multiples of the logical block size (512 bytes)"},
		"ENODEV read": {explainIO("read", "/dev/sdz", 0, 0, 4096, syscall.ENODEV, true, 512), "did the device disappear"},
	}
	for name, tc := range tests {
		if !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %q lacks %q", name, tc.err, tc.want)
		}
	}
	if err := explainOpen("/mnt/x", pe(syscall.EINVAL), true); !errors.Is(err, ErrNoDirect) || !strings.Contains(err.Error(), "refused O_DIRECT") {
		t.Errorf("no O_DIRECT: %v, want ErrNoDirect saying the device refused it", err)
	}
}

// loopDevice attaches a loop device to a new image of n random bytes, or
// skips the test where the machine does not allow one.
func loopDevice(t *testing.T, n int) (dev, image string, data []byte) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("loop devices need root")
	}
	losetup, err := exec.LookPath("losetup")
	if err != nil {
		t.Skip("losetup is not installed")
	}
	image, data = randomFile(t, t.TempDir(), n)
	out, err := exec.Command(losetup, "--find", "--show", image).Output()
	if err != nil {
		t.Skipf("losetup could not attach a loop device: %v", err)
	}
	dev = strings.TrimSpace(string(out))
	t.Cleanup(func() { exec.Command(losetup, "--detach", dev).Run() })
	return dev, image, data
}

func TestReadLoopDevice(t *testing.T) {
	dev, image, data := loopDevice(t, 8<<20)
	p := &ReadProbe{Path: dev, BS: 1 << 20, Size: -1, Verify: VerifyFull}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	const at = 6<<20 + 77
	hp := &hookProbe{Probe: p, before: func(n int) {
		if n == 2 {
			flipByte(t, image, at)
		}
	}}
	res, err := Measure(context.Background(), hp, Options{Repeat: 2})
	if len(res.Runs) == 0 || res.Runs[0].Bytes != 8<<20 || res.Runs[0].Hash != crcOf(data) || res.Runs[0].Sample != sampleOf(data, 0) {
		t.Fatalf("first run %+v, want all 8MiB with hash %s and sample %s", res.Runs, crcOf(data), sampleOf(data, 0))
	}
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "block at byte offset 6291456") {
		t.Fatalf("error %v, want the corrupt block at 6MiB named", err)
	}
}
