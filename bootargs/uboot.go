package bootargs

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// envCopy is one copy of the environment: a device or file, the offset
// and the size of the environment there (fw_env.config's first three
// columns).
type envCopy struct {
	dev  string
	off  int64
	size int
}

// uboot is the U-Boot environment in the standard layout: a little-endian
// CRC32 of the data, with two copies a flags byte after it (the copy
// with the valid CRC and the higher flags, 255 before 0, is active),
// then NAME=VALUE strings ended by NUL, the last by two, padded to the
// size. Decision: citune writes the layout itself on files and block
// devices (an SD card's or eMMC's raw area, a FAT partition's uboot.env),
// the inactive copy first so a power cut leaves the old one valid; MTD
// flash needs an erase, so there it runs fw_setenv with the same config.
type uboot struct {
	config string
	copies []envCopy
}

func openUBoot(config, root string) (*uboot, error) {
	b, err := os.ReadFile(config)
	if err != nil {
		return nil, err
	}
	u := &uboot{config: config}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) < 3 {
			return nil, fmt.Errorf("%s:%d: want DEVICE OFFSET SIZE", config, i+1)
		}
		off, err1 := strconv.ParseInt(f[1], 0, 64)
		size, err2 := strconv.ParseInt(f[2], 0, 32)
		if err1 != nil || err2 != nil || off < 0 || size < 16 || size > 1<<24 {
			return nil, fmt.Errorf("%s:%d: bad offset or size", config, i+1)
		}
		dev := f[0]
		if root != "" && root != "/" && filepath.IsAbs(dev) {
			dev = filepath.Join(root, dev)
		}
		u.copies = append(u.copies, envCopy{dev, off, int(size)})
	}
	if len(u.copies) == 0 || len(u.copies) > 2 {
		return nil, fmt.Errorf("%s: want one or two environment copies, found %d", config, len(u.copies))
	}
	if len(u.copies) == 2 && u.copies[0].size != u.copies[1].size {
		return nil, fmt.Errorf("%s: the two copies differ in size", config)
	}
	return u, nil
}

func (u *uboot) Kind() string   { return KindUBoot }
func (u *uboot) Config() string { return u.config }
func (u *uboot) mtd() bool      { return strings.Contains(u.copies[0].dev, "/dev/mtd") }

func (u *uboot) Describe() string {
	s := fmt.Sprintf("U-Boot environment (%s: %s at %#x, %#x bytes", u.config, u.copies[0].dev, u.copies[0].off, u.copies[0].size)
	if len(u.copies) == 2 {
		s += fmt.Sprintf(", redundant copy %s at %#x", u.copies[1].dev, u.copies[1].off)
	}
	return s + ")"
}

func (u *uboot) hdr() int { return 4 + len(u.copies) - 1 }

// read returns the active copy's index, its flags and its variables in
// order; an environment with no valid copy is an error (U-Boot then
// boots its built-in default, which citune cannot see).
func (u *uboot) read() (active int, flags byte, vars []string, err error) {
	active = -1
	for i, c := range u.copies {
		b, err := readAt(c)
		if err != nil {
			return 0, 0, nil, err
		}
		data := b[u.hdr():]
		if crc32.ChecksumIEEE(data) != binary.LittleEndian.Uint32(b) {
			continue
		}
		fl := byte(0)
		if len(u.copies) == 2 {
			fl = b[4]
		}
		if active < 0 || newer(fl, flags) {
			active, flags, vars = i, fl, splitVars(data)
		}
	}
	if active < 0 {
		return 0, 0, nil, fmt.Errorf("%s: no environment copy has a valid CRC (U-Boot boots its built-in default): citune does not write it; save it once from U-Boot (saveenv)", u.Describe())
	}
	return active, flags, vars, nil
}

// newer says whether flags a is newer than b (255 wraps to 0).
func newer(a, b byte) bool {
	if a == 0 && b == 255 {
		return true
	}
	if a == 255 && b == 0 {
		return false
	}
	return a > b
}

func splitVars(data []byte) []string {
	var vs []string
	for len(data) > 0 && data[0] != 0 {
		v, rest, _ := bytes.Cut(data, []byte{0})
		vs = append(vs, string(v))
		data = rest
	}
	return vs
}

func readAt(c envCopy) ([]byte, error) {
	f, err := os.Open(c.dev)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, c.size)
	if _, err := f.ReadAt(b, c.off); err != nil {
		return nil, fmt.Errorf("%s at %#x: %w", c.dev, c.off, err)
	}
	return b, nil
}

func (u *uboot) Get(name string) (string, bool, error) {
	if u.mtd() {
		out, err := exec.Command("fw_printenv", "-c", u.config, "-n", name).Output()
		if err != nil {
			return "", false, nil
		}
		return strings.TrimRight(string(out), "\n"), true, nil
	}
	_, _, vars, err := u.read()
	if err != nil {
		return "", false, err
	}
	for _, v := range vars {
		if n, x, _ := strings.Cut(v, "="); n == name {
			return x, true, nil
		}
	}
	return "", false, nil
}

func (u *uboot) Set(vals map[string]*string) error {
	if u.mtd() {
		for n, v := range vals {
			args := []string{"-c", u.config, n}
			if v != nil {
				args = append(args, *v)
			}
			if out, err := exec.Command("fw_setenv", args...).CombinedOutput(); err != nil {
				return fmt.Errorf("fw_setenv %s: %v: %s (MTD flash needs fw_setenv: libubootenv-tool or u-boot-tools)", n, err, bytes.TrimSpace(out))
			}
		}
		return nil
	}
	active, flags, vars, err := u.read()
	if err != nil {
		return err
	}
	var out []string
	had := map[string]bool{}
	for _, v := range vars {
		n, _, _ := strings.Cut(v, "=")
		had[n] = true
		if nv, ok := vals[n]; !ok {
			out = append(out, v)
		} else if nv != nil {
			out = append(out, n+"="+*nv)
		}
	}
	for n, v := range vals {
		if v != nil && !had[n] {
			out = append(out, n+"="+*v)
		}
	}
	for _, v := range out {
		if strings.IndexByte(v, 0) >= 0 || strings.HasPrefix(v, "=") {
			return errors.New("a U-Boot variable cannot hold a NUL or have an empty name")
		}
	}
	b := make([]byte, u.copies[0].size)
	data := b[u.hdr():]
	n := 0
	for _, v := range out {
		if n+len(v)+2 > len(data) {
			return fmt.Errorf("%s: the variables do not fit in %d bytes", u.Describe(), len(data))
		}
		n += copy(data[n:], v) + 1
	}
	binary.LittleEndian.PutUint32(b, crc32.ChecksumIEEE(data))
	target := 0
	if len(u.copies) == 2 {
		target = 1 - active
		b[4] = flags + 1
	}
	return writeAt(u.copies[target], b)
}

func writeAt(c envCopy, b []byte) error {
	f, err := os.OpenFile(c.dev, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(b, c.off)
	if err == nil {
		err = f.Sync()
	}
	return cmp.Or(err, f.Close())
}
