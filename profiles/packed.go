package profiles

// The pre-parsed profiles: what soc.Parse builds from each *.toml,
// encoded as soc.UnpackProfile reads it, for the binary (soc/packed.go
// says why; the encoder is the generator's, profiles/pack_test.go).
//
// packed.z holds them one DEFLATE stream each, so that loading one
// inflates only it (and the first, whose text every other stream uses as
// its dictionary: the profiles are mostly alike; without it the streams
// take 41 KB instead of 23 KB). Its layout: the number of entries, then
// the name, inflated size and stream length of each (uvarints, the names
// sorted), then the streams. `go test ./profiles -update` writes it;
// TestPackedFresh checks it against the sources.

import (
	"compress/flate"
	_ "embed" // packed.z
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"sort"
	"strings"
)

//go:embed packed.z
var packed string

// PackedNames lists the file names of the pre-parsed profiles, sorted.
func PackedNames() ([]string, error) {
	es, err := entries(packed)
	var ns []string
	for _, e := range es {
		ns = append(ns, e.name)
	}
	return ns, err
}

// Packed returns the pre-parsed profile of the file name ("imx6q.toml").
func Packed(name string) (string, error) {
	es, err := entries(packed)
	if err != nil {
		return "", err
	}
	i := sort.Search(len(es), func(i int) bool { return es[i].name >= name })
	if i == len(es) || es[i].name != name {
		return "", &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	dict, err := inflate(es[0], nil)
	if err != nil || i == 0 {
		return dict, err
	}
	return inflate(es[i], []byte(dict))
}

type entry struct {
	name, z string
	size    int // inflated
}

var errCorrupt = errors.New("profiles: corrupt packed archive")

func entries(a string) ([]entry, error) {
	r := strings.NewReader(a)
	n, err := binary.ReadUvarint(r)
	if err != nil || n > uint64(len(a)) {
		return nil, errCorrupt
	}
	es := make([]entry, n)
	sizes := make([]uint64, n)
	for i := range es {
		l, err := binary.ReadUvarint(r)
		if err != nil || l > uint64(r.Len()) {
			return nil, errCorrupt
		}
		off := len(a) - r.Len()
		es[i].name = a[off : off+int(l)]
		r.Seek(int64(l), io.SeekCurrent)
		raw, err1 := binary.ReadUvarint(r)
		z, err2 := binary.ReadUvarint(r)
		if err1 != nil || err2 != nil || raw > maxSize {
			return nil, errCorrupt
		}
		es[i].size, sizes[i] = int(raw), z
	}
	off := len(a) - r.Len()
	for i := range es {
		if sizes[i] > uint64(len(a)-off) {
			return nil, errCorrupt
		}
		es[i].z = a[off : off+int(sizes[i])]
		off += int(sizes[i])
	}
	if off != len(a) {
		return nil, errCorrupt
	}
	return es, nil
}

// maxSize bounds an entry's inflated size (a profile packs to about
// 20 KB).
const maxSize = 1 << 20

// inflate inflates an entry into a string of its size, copied once.
func inflate(e entry, dict []byte) (string, error) {
	var b strings.Builder
	b.Grow(e.size)
	r := flate.NewReaderDict(strings.NewReader(e.z), dict)
	var buf [2048]byte
	for {
		n, err := r.Read(buf[:min(len(buf), e.size-b.Len()+1)])
		b.Write(buf[:n])
		if b.Len() > e.size {
			return "", errCorrupt
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", errCorrupt
		}
	}
	if b.Len() != e.size {
		return "", errCorrupt
	}
	return b.String(), nil
}
