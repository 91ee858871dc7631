package soc

// The pre-parsed form of the built-in profiles: a built Profile (after
// Parse: decoded, validated, its maps merged) written as a plain binary
// encoding, so that a register command loads its profile without TOML.
//
// Decisions:
//   - What is packed is Parse's result itself: loading one is a decode,
//     with no TOML, no locator and no build. profiles' tests (`go test
//     ./profiles -update`) write the archive through Parse and check
//     that every packed profile decodes to exactly what Parse gives, so
//     the two never drift. A profile file a user gives goes through Parse.
//   - The encoding walks the types by reflection (every exported field,
//     in order), so a field added to Profile or regs is packed with no
//     code to keep in step. Unsigned numbers are uvarints, signed ones
//     zig-zag varints, a slice, map or pointer starts with 0 for nil
//     (else its length + 1, or 1), map keys are sorted. The encoder is
//     the generator's (profiles/pack_test.go): the binary only decodes.
//   - Every decoded string is a slice of the one input string.
//   - A map is written as it differs from the map Parse started from
//     (the ChipIdea map, or for a controller the profile's): mostly
//     indices. An unpacked controller's map shares its registers' field
//     lists with the profile's map: maps are only read once loaded.

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/citune/citune/regs"
)

// UnpackProfile decodes what the generator wrote (profiles/pack_test.go).
func UnpackProfile(data string) (p *Profile, err error) {
	d := packDecoder{s: data}
	defer func() {
		if r := recover(); r != nil { // a truncated or foreign input
			p, err = nil, fmt.Errorf("soc: corrupt packed profile: %v", r)
		}
	}()
	p = new(Profile)
	d.value(reflect.ValueOf(p).Elem())
	p.Map = d.regsMap(regs.ChipIdea())
	for i := range p.Controllers {
		c := &p.Controllers[i]
		c.Map = d.regsMap(p.Map.ForCoreShared(c.Core))
	}
	if d.s != "" {
		return nil, errors.New("soc: corrupt packed profile: trailing bytes")
	}
	return p, nil
}

func (d *packDecoder) regsMap(base *regs.Map) *regs.Map {
	if d.uint() == 0 {
		return nil
	}
	m := new(regs.Map)
	d.value(reflect.ValueOf(m).Elem())
	n := d.length(d.uint())
	m.Registers = make([]regs.Register, n)
	for i := range m.Registers {
		j := d.uint()
		switch {
		case j == 0:
			d.value(reflect.ValueOf(&m.Registers[i]).Elem())
		case j <= uint64(len(base.Registers)):
			r := &m.Registers[i]
			*r = base.Registers[j-1]
			v := reflect.ValueOf(r).Elem()
			mask := d.uint()
			if mask>>v.NumField() != 0 {
				panic("field past the register")
			}
			for k := range v.NumField() {
				if mask&(1<<k) != 0 {
					v.Field(k).SetZero()
					d.value(v.Field(k))
				}
			}
		default:
			panic("register index past the base map")
		}
	}
	return m
}

type packDecoder struct{ s string }

func (d *packDecoder) uint() uint64 {
	var n uint64
	for shift := 0; ; shift += 7 {
		c := d.s[0]
		d.s = d.s[1:]
		if shift > 63 {
			panic("number overflows")
		}
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n
		}
	}
}

// length reads a length and checks it against what is left.
func (d *packDecoder) length(n uint64) int {
	if n > uint64(len(d.s)) {
		panic("length past the end")
	}
	return int(n)
}

// decoders holds the decoder of each type met, built once per type.
var decoders struct {
	sync.Mutex
	m map[reflect.Type]decodeFunc
}

type decodeFunc func(d *packDecoder, v reflect.Value)

func (d *packDecoder) value(v reflect.Value) {
	decoders.Lock()
	if decoders.m == nil {
		decoders.m = map[reflect.Type]decodeFunc{}
	}
	f := decoderOf(v.Type())
	decoders.Unlock()
	f(d, v)
}

// decoderOf returns the decoder of t (decoders locked).
func decoderOf(t reflect.Type) decodeFunc {
	if f, ok := decoders.m[t]; ok {
		return f
	}
	var f decodeFunc
	switch t.Kind() {
	case reflect.Bool:
		f = func(d *packDecoder, v reflect.Value) { v.SetBool(d.uint() != 0) }
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		f = func(d *packDecoder, v reflect.Value) { v.SetUint(d.uint()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		f = func(d *packDecoder, v reflect.Value) {
			u := d.uint()
			v.SetInt(int64(u>>1) ^ -int64(u&1))
		}
	case reflect.String:
		f = func(d *packDecoder, v reflect.Value) {
			n := d.length(d.uint())
			v.SetString(d.s[:n])
			d.s = d.s[n:]
		}
	case reflect.Pointer:
		et := t.Elem()
		ef := decoderOf(et)
		f = func(d *packDecoder, v reflect.Value) {
			if d.uint() == 0 {
				return
			}
			x := reflect.New(et)
			ef(d, x.Elem())
			v.Set(x)
		}
	case reflect.Slice:
		ef := decoderOf(t.Elem())
		f = func(d *packDecoder, v reflect.Value) {
			n := d.uint()
			if n == 0 {
				return
			}
			// Each element takes at least one byte.
			l := d.length(n - 1)
			x := reflect.MakeSlice(t, l, l)
			for i := 0; i < l; i++ {
				ef(d, x.Index(i))
			}
			v.Set(x)
		}
	case reflect.Map:
		kf, ef := decoderOf(t.Key()), decoderOf(t.Elem())
		f = func(d *packDecoder, v reflect.Value) {
			n := d.uint()
			if n == 0 {
				return
			}
			l := d.length(n - 1)
			x := reflect.MakeMapWithSize(t, l)
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			for i := 0; i < l; i++ {
				kf(d, k)
				e.SetZero()
				ef(d, e)
				x.SetMapIndex(k, e)
			}
			v.Set(x)
		}
	case reflect.Struct:
		type field struct {
			i int
			f decodeFunc
		}
		var fs []field
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				fs = append(fs, field{i, decoderOf(t.Field(i).Type)})
			}
		}
		f = func(d *packDecoder, v reflect.Value) {
			for _, x := range fs {
				x.f(d, v.Field(x.i))
			}
		}
	default:
		f = func(*packDecoder, reflect.Value) { panic("cannot unpack " + t.String()) }
	}
	decoders.m[t] = f
	return f
}
