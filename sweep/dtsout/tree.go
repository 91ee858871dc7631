package dtsout

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// Tree is what an overlay's target is decided from: the node paths of
// a base device tree and its __symbols__ (label -> path).
type Tree struct {
	Paths   []string
	Symbols map[string]string
}

// ParseDTB reads a flattened device tree blob (a board's .dtb): every
// node's path and the __symbols__ node's properties. It checks every
// offset against the blob, so a damaged or hostile file is an error,
// never a panic.
func ParseDTB(b []byte) (*Tree, error) {
	be := binary.BigEndian
	if len(b) < 40 || be.Uint32(b) != 0xd00dfeed {
		return nil, errors.New("not a device tree blob (no FDT magic)")
	}
	total, offStruct, offStr := be.Uint32(b[4:]), be.Uint32(b[8:]), be.Uint32(b[12:])
	sizeStr, sizeStruct := be.Uint32(b[32:]), be.Uint32(b[36:])
	if uint64(total) > uint64(len(b)) || uint64(offStruct)+uint64(sizeStruct) > uint64(total) || uint64(offStr)+uint64(sizeStr) > uint64(total) {
		return nil, fmt.Errorf("device tree blob: blocks outside its %d bytes", len(b))
	}
	st, strs := b[offStruct:offStruct+sizeStruct], b[offStr:offStr+sizeStr]
	t := &Tree{Symbols: map[string]string{}}
	var stack []string
	cstr := func(p []byte) (string, bool) {
		i := strings.IndexByte(string(p), 0)
		return string(p[:max(i, 0)]), i >= 0
	}
	for i := 0; ; {
		if i+4 > len(st) {
			return nil, errors.New("device tree blob: structure block ends without FDT_END")
		}
		tok := be.Uint32(st[i:])
		i += 4
		switch tok {
		case 1: // FDT_BEGIN_NODE
			name, ok := cstr(st[i:])
			if !ok {
				return nil, errors.New("device tree blob: unterminated node name")
			}
			i += (len(name) + 4) &^ 3
			stack = append(stack, name)
			p := "/" + strings.Join(stack[1:], "/")
			t.Paths = append(t.Paths, p)
		case 2: // FDT_END_NODE
			if len(stack) == 0 {
				return nil, errors.New("device tree blob: unbalanced FDT_END_NODE")
			}
			stack = stack[:len(stack)-1]
		case 3: // FDT_PROP
			if i+8 > len(st) {
				return nil, errors.New("device tree blob: truncated property")
			}
			n, off := int(be.Uint32(st[i:])), be.Uint32(st[i+4:])
			i += 8
			if n < 0 || n > len(st)-i || uint64(off) >= uint64(len(strs)) {
				return nil, errors.New("device tree blob: property outside its block")
			}
			if len(stack) == 2 && stack[1] == "__symbols__" {
				name, _ := cstr(strs[off:])
				v, _ := cstr(st[i : i+n])
				t.Symbols[name] = v
			}
			i += (n + 3) &^ 3
		case 4: // FDT_NOP
		case 9: // FDT_END
			if len(stack) != 0 || len(t.Paths) == 0 {
				return nil, errors.New("device tree blob: FDT_END inside a node or before the root node")
			}
			return t, nil
		default:
			return nil, fmt.Errorf("device tree blob: unknown token %#x", tok)
		}
	}
}

// ReadTree reads a live device tree (dir: proc/device-tree under root,
// a few levels deep, which reaches every i.MX controller node) as a Tree;
// nil when it is not there.
func ReadTree(root fs.FS, dir string) *Tree {
	if root == nil {
		return nil
	}
	if _, err := fs.Stat(root, dir); err != nil {
		return nil
	}
	t := &Tree{Symbols: map[string]string{}}
	fs.WalkDir(root, dir, func(p string, d fs.DirEntry, err error) error {
		rel := strings.TrimPrefix(p, dir)
		switch {
		case err != nil || !d.IsDir():
			return nil
		case rel == "/__symbols__":
			es, _ := fs.ReadDir(root, p)
			for _, e := range es {
				if b, err := fs.ReadFile(root, path.Join(p, e.Name())); err == nil {
					t.Symbols[e.Name()] = strings.TrimRight(string(b), "\x00")
				}
			}
			return fs.SkipDir
		case strings.Count(rel, "/") > 4:
			return fs.SkipDir
		}
		t.Paths = append(t.Paths, "/"+strings.TrimPrefix(rel, "/"))
		return nil
	})
	return t
}
