package soc

import "testing"

func TestEncodings(t *testing.T) {
	for _, tc := range []struct {
		e         Encoding
		field     uint32
		param     uint32
		ok        bool
		max       uint64
		roundtrip bool
	}{
		{EncodingLog2, 64, 6, true, 6, true},
		{EncodingLog2, 1, 0, true, 6, true},
		{EncodingLog2, 8, 3, true, 6, true},
		{EncodingLog2, 0, 0, false, 6, false},
		{EncodingLog2, 12, 0, false, 6, false},
		{EncodingLog2, 128, 0, false, 6, false},
		{EncodingPark, 3, 3, true, 3, true},
		{EncodingPark, 4, 4, false, 3, false},
		{EncodingValue, 17, 17, true, 1<<31 - 1, true},
		{"", 5, 5, true, 1<<31 - 1, true},
	} {
		p, ok := tc.e.ParamFor(tc.field)
		if ok != tc.ok || ok && p != tc.param {
			t.Errorf("%q.ParamFor(%d) = %d, %v; want %d, %v", tc.e, tc.field, p, ok, tc.param, tc.ok)
		}
		if tc.e.MaxParam() != tc.max {
			t.Errorf("%q.MaxParam() = %d", tc.e, tc.e.MaxParam())
		}
		if tc.roundtrip && tc.e.FieldFor(p) != tc.field {
			t.Errorf("%q.FieldFor(%d) = %d, want %d", tc.e, p, tc.e.FieldFor(p), tc.field)
		}
		if !tc.e.Known() || tc.e.Describe() == "" {
			t.Errorf("%q not known or undescribed", tc.e)
		}
	}
	if Encoding("exp").Known() {
		t.Error("unknown encoding known")
	}
}
