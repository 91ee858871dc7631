// Package profiles holds citune's per-SoC profiles. The format is
// described in README.md beside this file; package soc loads and
// validates them.
//
// The *.toml files here are the sources. FS holds their text, as one
// DEFLATE stream (profiles.z, written by `go test ./profiles -update` and
// checked against the sources by TestArchiveFresh), for tests and tools:
// the text compresses about 7:1. The binary does not link it: it loads
// the pre-parsed profiles of packed.go (Packed), which start a command
// without TOML (bench/startup.sh). Both are written by the same -update.
// compress/flate is already in the binary.
package profiles

import (
	"bytes"
	"compress/flate"
	_ "embed" // profiles.z
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// archive is a string, not a []byte: a string lands in the read-only
// segment, a []byte in the data segment, whose every byte counts.
//
//go:embed profiles.z
var archive string

// FS holds the *.toml profiles, read-only.
var FS archiveFS

type archiveFS struct{}

var (
	once  sync.Once
	files map[string][]byte
	names []string
	bad   error
)

func load() {
	files, names, bad = Unpack(archive)
}

// Pack writes the archive of the named files (name, then the contents).
func Pack(w io.Writer, contents map[string][]byte) error {
	zw, err := flate.NewWriter(w, flate.BestCompression)
	if err != nil {
		return err
	}
	var ns []string
	for n := range contents {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	for _, n := range ns {
		b := contents[n]
		io.WriteString(zw, n+"\x00"+strconv.Itoa(len(b))+"\x00")
		zw.Write(b)
	}
	return zw.Close()
}

// Unpack reads an archive Pack wrote: the files and their sorted names.
func Unpack(z string) (map[string][]byte, []string, error) {
	raw, err := io.ReadAll(flate.NewReader(strings.NewReader(z)))
	if err != nil {
		return nil, nil, err
	}
	m := map[string][]byte{}
	var ns []string
	for len(raw) > 0 {
		name, rest, ok1 := bytes.Cut(raw, []byte{0})
		size, rest, ok2 := bytes.Cut(rest, []byte{0})
		n, err := strconv.Atoi(string(size))
		if !ok1 || !ok2 || err != nil || n < 0 || n > len(rest) {
			return nil, nil, errors.New("profiles: corrupt archive")
		}
		m[string(name)] = rest[:n]
		ns = append(ns, string(name))
		raw = rest[n:]
	}
	sort.Strings(ns)
	return m, ns, nil
}

// ReadFile implements fs.ReadFileFS.
func (archiveFS) ReadFile(name string) ([]byte, error) {
	once.Do(load)
	if bad != nil {
		return nil, bad
	}
	b, ok := files[name]
	if !ok || !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return bytes.Clone(b), nil
}

// ReadDir implements fs.ReadDirFS (the archive is one flat directory).
func (archiveFS) ReadDir(name string) ([]fs.DirEntry, error) {
	once.Do(load)
	if bad != nil {
		return nil, bad
	}
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for _, n := range names {
		out = append(out, fs.FileInfoToDirEntry(info{n, int64(len(files[n])), false}))
	}
	return out, nil
}

// Open implements fs.FS.
func (a archiveFS) Open(name string) (fs.File, error) {
	if name == "." {
		ents, err := a.ReadDir(".")
		if err != nil {
			return nil, err
		}
		return &dir{ents: ents}, nil
	}
	b, err := a.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &file{Reader: bytes.NewReader(b), info: info{path.Base(name), int64(len(b)), false}}, nil
}

type info struct {
	name  string
	size  int64
	isDir bool
}

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return i.size }
func (i info) Mode() fs.FileMode {
	if i.isDir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return i.isDir }
func (i info) Sys() any           { return nil }

type file struct {
	*bytes.Reader
	info info
}

func (f *file) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *file) Close() error               { return nil }

type dir struct {
	ents []fs.DirEntry
	pos  int
}

func (d *dir) Stat() (fs.FileInfo, error) { return info{".", 0, true}, nil }
func (d *dir) Read([]byte) (int, error)   { return 0, errors.New("is a directory") }
func (d *dir) Close() error               { return nil }
func (d *dir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.ents[d.pos:]
	if n <= 0 {
		d.pos = len(d.ents)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	if n > len(rest) {
		n = len(rest)
	}
	d.pos += n
	return rest[:n], nil
}
