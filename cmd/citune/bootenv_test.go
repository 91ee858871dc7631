package main

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/citune/citune/bootargs"
	"github.com/rogpeppe/go-internal/testscript"
)

// mkenv FILE SIZE NAME=VALUE... writes a U-Boot environment with a
// redundant copy: the active one (flags 1) at 0, an older one at SIZE.
func cmdMkenv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: mkenv FILE SIZE NAME=VALUE...")
	}
	size, err := strconv.ParseInt(args[1], 0, 32)
	ts.Check(err)
	img := make([]byte, 2*size)
	for c, fl := range []byte{1, 0} {
		b := img[int64(c)*size : int64(c+1)*size]
		b[4] = fl
		n := 5
		vars := args[2:]
		if c == 1 {
			vars = []string{"bootargs=stale"}
		}
		for _, v := range vars {
			n += copy(b[n:], v) + 1
		}
		binary.LittleEndian.PutUint32(b, crc32.ChecksumIEEE(b[5:]))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), img, 0o644))
}

// bootloader ROOT plays the boot loader of the board under ROOT: the
// next boot's bootargs from its store become ROOT/proc/cmdline, and the
// boot gets a new boot_id. bootloader ROOT ignore boots without them (a
// loader that fell back), bootloader ROOT show prints them (show NAME...:
// those variables).
func cmdBootloader(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: bootloader ROOT [ignore|show]")
	}
	root := ts.MkAbs(args[0])
	st, err := bootargs.Detect(root)
	ts.Check(err)
	v, _, err := st.Get("bootargs")
	ts.Check(err)
	if len(args) > 1 && args[1] == "show" {
		for _, n := range args[2:] {
			x, ok, err := st.Get(n)
			ts.Check(err)
			if !ok {
				x = "(unset)"
			}
			fmt.Fprintf(ts.Stdout(), "%s=%s\n", n, x)
		}
		if len(args) == 2 {
			fmt.Fprintf(ts.Stdout(), "%s\n", v)
		}
		return
	}
	idf := filepath.Join(root, "proc/sys/kernel/random/boot_id")
	id, _ := os.ReadFile(idf)
	n, _ := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(string(id)), "boot-"))
	ts.Check(os.MkdirAll(filepath.Dir(idf), 0o755))
	ts.Check(os.WriteFile(idf, fmt.Appendf(nil, "boot-%d\n", n+1), 0o644))
	if len(args) > 1 && args[1] == "ignore" {
		return
	}
	ts.Check(os.WriteFile(filepath.Join(root, "proc/cmdline"), []byte(v+"\n"), 0o644))
}
