package profiles

// The generator's half of packed.z (`go test ./profiles -update`): the
// encoder of a built soc.Profile, the inverse of soc.UnpackProfile, whose
// format soc/packed.go describes, and the archive writer, the inverse of
// packed.go's reader. The binary only reads; TestPackedFresh and soc's
// TestPackRoundTrip check that what is written unpacks to Parse's profile.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"sort"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

// packProfile encodes a profile Parse returned. Unexported fields are
// not written (the decoder skips them too): TestPackRoundTrip compares
// with Parse's profile, unexported fields included.
func packProfile(p *soc.Profile) ([]byte, error) {
	if p.Map == nil {
		return nil, errors.New("packProfile of a profile Parse did not build")
	}
	q := *p
	q.Map = nil
	q.Controllers = slices.Clone(p.Controllers)
	for i := range q.Controllers {
		q.Controllers[i].Map = nil
	}
	var e packEncoder
	if err := e.value(reflect.ValueOf(&q).Elem()); err != nil {
		return nil, err
	}
	if err := e.regsMap(p.Map, regs.ChipIdea()); err != nil {
		return nil, err
	}
	for _, c := range p.Controllers {
		if err := e.regsMap(c.Map, p.Map.ForCore(c.Core)); err != nil {
			return nil, err
		}
	}
	return e.b, nil
}

// regsMap writes m as it differs from base (what Parse started from): a
// register of the name of one of base is written as the index of that
// one and the fields of it that differ. A profile's map is mostly the
// ChipIdea map, a controller's mostly the profile's.
func (e *packEncoder) regsMap(m, base *regs.Map) error {
	if m == nil {
		e.uint(0)
		return nil
	}
	e.uint(1)
	h := *m
	h.Registers = nil
	if err := e.value(reflect.ValueOf(h)); err != nil {
		return err
	}
	e.uint(uint64(len(m.Registers)))
	for _, r := range m.Registers {
		j := slices.IndexFunc(base.Registers, func(b regs.Register) bool { return b.Name == r.Name })
		e.uint(uint64(j + 1)) // 0: written out
		if j < 0 {
			if err := e.value(reflect.ValueOf(r)); err != nil {
				return err
			}
			continue
		}
		v, b := reflect.ValueOf(r), reflect.ValueOf(base.Registers[j])
		if v.NumField() > 64 {
			return errors.New("cannot pack a register of more than 64 fields")
		}
		var mask uint64
		for i := range v.NumField() {
			if !reflect.DeepEqual(v.Field(i).Interface(), b.Field(i).Interface()) {
				mask |= 1 << i
			}
		}
		e.uint(mask)
		for i := range v.NumField() {
			if mask&(1<<i) != 0 {
				if err := e.value(v.Field(i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

type packEncoder struct{ b []byte }

func (e *packEncoder) uint(n uint64) { e.b = binary.AppendUvarint(e.b, n) }

func (e *packEncoder) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			e.uint(1)
		} else {
			e.uint(0)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.uint(v.Uint())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.b = binary.AppendVarint(e.b, v.Int())
	case reflect.String:
		e.uint(uint64(v.Len()))
		e.b = append(e.b, v.String()...)
	case reflect.Pointer:
		if v.IsNil() {
			e.uint(0)
			return nil
		}
		e.uint(1)
		return e.value(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			e.uint(0)
			return nil
		}
		e.uint(uint64(v.Len()) + 1)
		for i := 0; i < v.Len(); i++ {
			if err := e.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if v.IsNil() {
			e.uint(0)
			return nil
		}
		if v.Type().Key().Kind() != reflect.String {
			return fmt.Errorf("cannot pack %s", v.Type())
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		e.uint(uint64(len(keys)) + 1)
		for _, k := range keys {
			if err := e.value(k); err != nil {
				return err
			}
			if err := e.value(v.MapIndex(k)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			if !t.Field(i).IsExported() {
				continue
			}
			if err := e.value(v.Field(i)); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("cannot pack %s", v.Type())
	}
	return nil
}

// packArchive writes the archive of the named pre-parsed profiles.
func packArchive(w io.Writer, blobs map[string][]byte) error {
	ns := slices.Sorted(maps.Keys(blobs))
	if len(ns) == 0 {
		return errors.New("no profiles to pack")
	}
	h := binary.AppendUvarint(nil, uint64(len(ns)))
	var zs []byte
	for i, n := range ns {
		var dict []byte
		if i > 0 {
			dict = blobs[ns[0]]
		}
		var b bytes.Buffer
		zw, err := flate.NewWriterDict(&b, flate.BestCompression, dict)
		if err != nil {
			return err
		}
		zw.Write(blobs[n])
		if err := zw.Close(); err != nil {
			return err
		}
		h = binary.AppendUvarint(h, uint64(len(n)))
		h = append(h, n...)
		h = binary.AppendUvarint(h, uint64(len(blobs[n])))
		h = binary.AppendUvarint(h, uint64(b.Len()))
		zs = append(zs, b.Bytes()...)
	}
	_, err := w.Write(append(h, zs...))
	return err
}
