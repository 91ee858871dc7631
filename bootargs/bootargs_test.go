package bootargs

import (
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// image writes an environment copy of size bytes with vars and flags
// (flags < 0: single copy layout).
func image(size int, flags int, vars ...string) []byte {
	b := make([]byte, size)
	h := 4
	if flags >= 0 {
		h, b[4] = 5, byte(flags)
	}
	n := h
	for _, v := range vars {
		n += copy(b[n:], v) + 1
	}
	binary.LittleEndian.PutUint32(b, crc32.ChecksumIEEE(b[h:]))
	return b
}

func str(s string) *string { return &s }

func TestUBootRedundant(t *testing.T) {
	root := t.TempDir()
	env := filepath.Join(root, "dev", "mmcblk0")
	os.MkdirAll(filepath.Dir(env), 0o755)
	disk := make([]byte, 0x10000)
	copy(disk[0x4000:], image(0x2000, 7, "bootcmd=run distro_bootcmd", "bootargs=console=ttymxc1,115200 rootwait"))
	copy(disk[0x6000:], image(0x2000, 6, "bootargs=old"))
	os.WriteFile(env, disk, 0o644)
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/fw_env.config"), []byte("# device offset size\n/dev/mmcblk0 0x4000 0x2000\n/dev/mmcblk0 0x6000 0x2000\n"), 0o644)
	s, err := Detect(root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Kind() != KindUBoot || !strings.Contains(s.Describe(), "redundant copy") {
		t.Fatalf("%s: %s", s.Kind(), s.Describe())
	}
	v, ok, err := s.Get("bootargs")
	if err != nil || !ok || v != "console=ttymxc1,115200 rootwait" {
		t.Fatalf("bootargs %q %v %v (the copy with flags 7 is active)", v, ok, err)
	}
	if err := s.Set(map[string]*string{"bootargs": str(SetParam(v, "ehci_hcd.park", "3")), "bootcount": str("0")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(env)
	// The inactive copy was written, flags 8, valid CRC; the active one kept.
	c2 := b[0x6000:0x8000]
	if c2[4] != 8 || crc32.ChecksumIEEE(c2[5:]) != binary.LittleEndian.Uint32(c2) {
		t.Fatalf("second copy: flags %d, crc ok %v", c2[4], crc32.ChecksumIEEE(c2[5:]) == binary.LittleEndian.Uint32(c2))
	}
	if string(b[0x4000+5:0x4000+5+7]) != "bootcmd" {
		t.Fatal("the active copy was overwritten")
	}
	if v, _, _ := s.Get("bootargs"); v != "console=ttymxc1,115200 rootwait ehci_hcd.park=3" {
		t.Fatalf("after set: %q", v)
	}
	if v, _, _ := s.Get("bootcmd"); v != "run distro_bootcmd" {
		t.Fatalf("bootcmd lost: %q", v)
	}
	// Removing a variable; flags wrap 255 -> 0.
	copy(b[0x4000:], image(0x2000, 255, "bootargs=a", "x=1"))
	copy(b[0x6000:], image(0x2000, 254, "bootargs=b"))
	os.WriteFile(env, b, 0o644)
	if v, _, _ := s.Get("bootargs"); v != "a" {
		t.Fatalf("flags 255 is newer than 254: %q", v)
	}
	if err := s.Set(map[string]*string{"x": nil}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(env)
	if b[0x6000+4] != 0 {
		t.Fatalf("flags after 255: %d", b[0x6000+4])
	}
	if _, ok, _ := s.Get("x"); ok {
		t.Fatal("x still set")
	}
	if v, _, _ := s.Get("bootargs"); v != "a" {
		t.Fatalf("flags 0 is newer than 255: %q", v)
	}
	// No valid copy: refused, nothing written.
	for i := range b {
		b[i] = 0xff
	}
	os.WriteFile(env, b, 0o644)
	if err := s.Set(map[string]*string{"bootargs": str("x")}); err == nil || !strings.Contains(err.Error(), "no environment copy has a valid CRC") {
		t.Fatalf("bad CRC: %v", err)
	}
	// Too large for the environment.
	os.WriteFile(env, disk, 0o644)
	if err := s.Set(map[string]*string{"bootargs": str(strings.Repeat("x", 0x2000))}); err == nil || !strings.Contains(err.Error(), "do not fit") {
		t.Fatalf("too large: %v", err)
	}
}

func TestUBootSingleFile(t *testing.T) {
	dir := t.TempDir()
	env := filepath.Join(dir, "uboot.env")
	os.WriteFile(env, image(0x400, -1, "bootargs=root=/dev/mmcblk0p2"), 0o644)
	cfg := filepath.Join(dir, "fw_env.config")
	os.WriteFile(cfg, []byte(env+" 0 0x400\n"), 0o644)
	s, err := Open(KindUBoot, cfg, "/")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(map[string]*string{"bootargs": str("root=/dev/mmcblk0p2 ehci_hcd.park=0")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(env)
	if crc32.ChecksumIEEE(b[4:]) != binary.LittleEndian.Uint32(b) || !strings.HasPrefix(string(b[4:]), "bootargs=root=/dev/mmcblk0p2 ehci_hcd.park=0\x00\x00") {
		t.Fatalf("single copy: %q", b[:60])
	}
	for _, bad := range []string{"", "/x 0\n", "/x 0 8\n", "/x 0 16\n/x 16 16\n/x 32 16\n", "/x zz 0x400\n"} {
		os.WriteFile(cfg, []byte(bad), 0o644)
		if _, err := Open(KindUBoot, cfg, "/"); err == nil {
			t.Errorf("config %q accepted", bad)
		}
	}
}

const conf = `# extlinux.conf
default debian
timeout 3

label rescue
	kernel /boot/vmlinuz.old
	append root=/dev/mmcblk0p2 single

label debian
	kernel /boot/vmlinuz
	fdt /boot/imx6q-sabrelite.dtb
	APPEND root=/dev/mmcblk0p2 rootwait ehci-hcd.park=1

label other
	kernel /boot/x
`

func TestExtlinux(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "boot/extlinux/extlinux.conf")
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(conf), 0o644)
	// With fw_env.config too, extlinux.conf wins: its append line is
	// what U-Boot's distro boot passes.
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/fw_env.config"), []byte("/dev/mmcblk0 0x4000 0x2000\n"), 0o644)
	s, err := Detect(root)
	if err != nil || s.Kind() != KindExtlinux {
		t.Fatal(s, err)
	}
	v, ok, err := s.Get("bootargs")
	if err != nil || !ok || v != "root=/dev/mmcblk0p2 rootwait ehci-hcd.park=1" {
		t.Fatalf("append %q %v %v", v, ok, err)
	}
	nv := SetParam(v, "ehci_hcd.park", "3")
	if nv != "root=/dev/mmcblk0p2 rootwait ehci_hcd.park=3" {
		t.Fatalf("SetParam: %q", nv)
	}
	if err := s.Set(map[string]*string{"bootargs": &nv, "fdtoverlays": str("/boot/usbh1.dtbo")}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	want := strings.Replace(conf, "\tAPPEND root=/dev/mmcblk0p2 rootwait ehci-hcd.park=1\n", "\tappend "+nv+"\n\tfdtoverlays /boot/usbh1.dtbo\n", 1)
	if string(b) != want {
		t.Fatalf("got\n%s\nwant\n%s", b, want)
	}
	// Back to the original: the fdtoverlays line goes.
	if err := s.Set(map[string]*string{"bootargs": &v, "fdtoverlays": nil}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(p)
	if string(b) != strings.Replace(conf, "APPEND", "append", 1) {
		t.Fatalf("restored:\n%s", b)
	}
	if err := s.Set(map[string]*string{"bootargs": str("a\nlabel evil")}); err == nil {
		t.Fatal("a newline was written")
	}
	if p, ok := Param("a x.y=1 x-y=2 x.y=3", "x.y"); !ok || p != "3" {
		t.Fatalf("Param: %q", p)
	}
}

func FuzzUBootRead(f *testing.F) {
	f.Add(image(64, 3, "bootargs=x", "a=b"), image(64, 2, "bootargs=y"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		dir := t.TempDir()
		a, b = append(a, make([]byte, 64)...)[:64], append(b, make([]byte, 64)...)[:64]
		os.WriteFile(filepath.Join(dir, "env"), append(a, b...), 0o644)
		os.WriteFile(filepath.Join(dir, "cfg"), []byte(filepath.Join(dir, "env")+" 0 64\n"+filepath.Join(dir, "env")+" 64 64\n"), 0o644)
		s, err := Open(KindUBoot, filepath.Join(dir, "cfg"), "/")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.Get("bootargs"); err != nil {
			return
		}
		if err := s.Set(map[string]*string{"bootargs": str("z")}); err != nil {
			return // too large
		}
		if v, ok, err := s.Get("bootargs"); err != nil || !ok || v != "z" {
			t.Fatalf("after set: %q %v %v", v, ok, err)
		}
	})
}

func FuzzExtlinux(f *testing.F) {
	f.Add(conf, "root=/dev/x ehci_hcd.park=3")
	f.Add("label a\n  append x\nlabel b\n", "y")
	f.Fuzz(func(t *testing.T, text, v string) {
		p := filepath.Join(t.TempDir(), "extlinux.conf")
		os.WriteFile(p, []byte(text), 0o644)
		s, _ := Open(KindExtlinux, p, "/")
		if _, _, err := s.Get("bootargs"); err != nil {
			return
		}
		if err := s.Set(map[string]*string{"bootargs": &v}); err != nil {
			return
		}
		got, ok, err := s.Get("bootargs")
		if want := strings.TrimSpace(v); err != nil || !ok || got != want {
			t.Fatalf("set %q, get %q %v %v in\n%s", v, got, ok, err, text)
		}
	})
}
