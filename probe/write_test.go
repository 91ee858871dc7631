package probe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	directOK(t, func() string { p, _ := randomFile(t, t.TempDir(), 4096); return p }())
	for name, target := range map[string]string{"into a directory": dir, "a new file": filepath.Join(dir, "probe.tmp")} {
		t.Run(name, func(t *testing.T) {
			p := &WriteProbe{Path: target, BS: 256 << 10, Size: 2 << 20}
			if err := p.Check(); err != nil {
				t.Fatal(err)
			}
			var last, total int64
			r, err := p.Run(context.Background(), func(d, tt int64) { last, total = d, tt })
			if err != nil {
				t.Fatal(err)
			}
			if r.Bytes != 2<<20 || r.Corrupt || r.Rate <= 0 || r.ReadBackRate <= 0 || last != total {
				t.Errorf("run %+v (progress %d of %d)", r, last, total)
			}
			left, _ := os.ReadDir(dir)
			if len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
		})
	}
}

func TestWriteCatchesCorruptByte(t *testing.T) {
	dir := t.TempDir()
	directOK(t, func() string { p, _ := randomFile(t, t.TempDir(), 4096); return p }())
	const at = 1234567
	p := &WriteProbe{Path: dir, BS: 1 << 20, Size: 2 << 20, afterWrite: func(path string) error {
		flipByte(t, path, at)
		return nil
	}}
	res, err := Measure(context.Background(), p, Options{Repeat: 2})
	if !errors.Is(err, ErrCorrupt) || len(res.Runs) != 1 || !res.Runs[0].Corrupt {
		t.Fatalf("err %v, runs %+v: want ErrCorrupt on the first run", err, res.Runs)
	}
	d := res.Runs[0].Detail
	if !strings.Contains(d, "first at byte offset 1234567 (wrote ") || !strings.Contains(d, "1 of 2097152 bytes differ") {
		t.Errorf("detail %q does not name the offset and the count", d)
	}
}

func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	existing, _ := randomFile(t, dir, 4096)
	const bs, size = 1 << 20, 1 << 20
	tests := map[string]struct {
		p     WriteProbe
		want  string
		usage bool
	}{
		"existing file":    {WriteProbe{Path: existing, BS: bs, Size: size}, "already exists", false},
		"missing dir":      {WriteProbe{Path: filepath.Join(dir, "no", "such", "file"), BS: bs, Size: size}, "does not exist", false},
		"character device": {WriteProbe{Path: "/dev/null", BS: bs, Size: size}, "neither a regular file nor a block device", false},
		"unaligned size":   {WriteProbe{Path: dir, BS: bs, Size: 1000}, "--size 1000: give a positive multiple of 512", true},
		"no size":          {WriteProbe{Path: dir, BS: bs}, "--size 0: give a positive multiple of 512", true},
		"unaligned offset": {WriteProbe{Path: dir, BS: bs, Size: size, Offset: 7}, "--offset 7 is not a multiple of 512", true},
		"unaligned bs":     {WriteProbe{Path: dir, BS: 1000, Size: size}, "--bs 1000 is not a multiple of 512", true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := tc.p.Check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if errors.Is(err, ErrUsage) != tc.usage {
				t.Errorf("usage error: %v, want %v", !tc.usage, tc.usage)
			}
		})
	}
}

func TestIsDiskOrPartition(t *testing.T) {
	tests := []struct {
		disk, name string
		want       bool
	}{
		{"sda", "sda", true},
		{"sda", "sda1", true},
		{"sda", "sda15", true},
		{"sda", "sdab1", false},
		{"sda", "sdb1", false},
		{"mmcblk0", "mmcblk0p1", true},
		{"mmcblk0", "mmcblk0boot0", false},
		{"mmcblk0", "mmcblk01", false},
		{"loop1", "loop10", false},
		{"loop1", "loop1p2", true},
		{"nvme0n1", "nvme0n1p3", true},
	}
	for _, tc := range tests {
		if got := isDiskOrPartition(tc.disk, tc.name); got != tc.want {
			t.Errorf("isDiskOrPartition(%q, %q) = %v", tc.disk, tc.name, got)
		}
	}
}

func TestMountCheck(t *testing.T) {
	mounts := filepath.Join(t.TempDir(), "mounts")
	os.WriteFile(mounts, []byte("/dev/vda / ext4 rw,relatime 0 0\nproc /proc proc rw 0 0\n/dev/sdz2 /media/usb\\040stick vfat rw 0 0\n"), 0o644)
	err := checkUnmounted("/dev/sdz", mounts)
	if err == nil || !strings.Contains(err.Error(), "/dev/sdz is mounted (/dev/sdz2 on /media/usb stick)") {
		t.Errorf("partition mounted: %v", err)
	}
	if err := checkUnmounted("/dev/sdy", mounts); err != nil {
		t.Errorf("unmounted device refused: %v", err)
	}
	if err := checkUnmounted("/dev/sdy", filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "cannot tell whether") {
		t.Errorf("unreadable mount table: %v", err)
	}
}

func TestWriteLoopDevice(t *testing.T) {
	dev, _, _ := loopDevice(t, 8<<20)
	p := &WriteProbe{Path: dev, BS: 1 << 20, Size: DefaultWriteSize}
	if err := p.Check(); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "add --destructive") {
		t.Fatalf("without --destructive: %v", err)
	}
	procRoot := t.TempDir()
	os.MkdirAll(filepath.Join(procRoot, "self"), 0o755)
	os.WriteFile(filepath.Join(procRoot, "self/mounts"), []byte(dev+"p1 /mnt/x ext4 rw 0 0\n"), 0o644)
	p.Destructive, p.procRoot = true, procRoot
	if err := p.Check(); err == nil || !strings.Contains(err.Error(), "is mounted ("+dev+"p1 on /mnt/x)") {
		t.Fatalf("partition mounted: %v", err)
	}
	p = &WriteProbe{Path: dev, BS: 1 << 20, Size: 4 << 20, Offset: 1 << 20, Destructive: true}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	r, err := p.Run(context.Background(), nil)
	if err != nil || r.Corrupt || r.Bytes != 4<<20 {
		t.Fatalf("%v %+v", err, r)
	}
	p.Size = 8 << 20
	if _, err := p.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "goes past the end") {
		t.Fatalf("past the end: %v", err)
	}
}
