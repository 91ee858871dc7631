package soc

import (
	"math"
	"math/bits"
)

// Encoding says how a kernel parameter sets a knob's field: the one place
// that interprets it (the sweep's value check, dts, profiles show).
type Encoding string

// Encodings of Knob.ParamEncoding.
const (
	EncodingValue Encoding = "value" // field = param (also "")
	// EncodingLog2: field = 2^param, param 0..6 (ehci_hcd.log2_irq_thresh
	// sets ITC up to 64 micro-frames).
	EncodingLog2 Encoding = "log2"
	// EncodingPark: param 1..3 sets ASPE=1 and ASP=param; 0 turns park off
	// (ehci_hcd.park).
	EncodingPark Encoding = "park"
)

// Known reports whether e is an encoding citune understands.
func (e Encoding) Known() bool {
	switch e {
	case "", EncodingValue, EncodingLog2, EncodingPark:
		return true
	}
	return false
}

// MaxParam is the largest parameter value the encoding accepts.
func (e Encoding) MaxParam() uint64 {
	switch e {
	case EncodingLog2:
		return 6
	case EncodingPark:
		return 3
	}
	return math.MaxInt32
}

// Describe says in words how the parameter sets the field.
func (e Encoding) Describe() string {
	switch e {
	case EncodingLog2:
		return "field = 2^param"
	case EncodingPark:
		return "param 1-3 sets ASPE=1, ASP=param; 0 disables park"
	}
	return "field = param"
}

// ParamFor returns the parameter value that gives field value v (park:
// ASP's with ASPE 1), or false when none does.
func (e Encoding) ParamFor(v uint32) (uint32, bool) {
	switch e {
	case EncodingLog2:
		if v == 0 || bits.OnesCount32(v) != 1 || bits.TrailingZeros32(v) > 6 {
			return 0, false
		}
		return uint32(bits.TrailingZeros32(v)), true
	case EncodingPark:
		return v, v <= 3
	}
	return v, true
}

// FieldFor returns the field value parameter value p gives (park: the ASP
// value; ASPE is 1 when p > 0).
func (e Encoding) FieldFor(p uint32) uint32 {
	if e == EncodingLog2 {
		return 1 << p
	}
	return p
}
