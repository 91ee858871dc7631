package soc

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Addresses in JSON are hex strings ("0x140", "0x02184200"); a number
// (the first form of snapshots and results files) is still read.

// MarshalJSON writes the offset as a hex string of at least three digits.
func (r RegValue) MarshalJSON() ([]byte, error) {
	type plain RegValue
	return json.Marshal(struct {
		plain
		Offset string `json:"offset"`
	}{plain(r), fmt.Sprintf("0x%03x", r.Offset)})
}

// UnmarshalJSON reads the offset as a hex string or a number.
func (r *RegValue) UnmarshalJSON(b []byte) error {
	type plain RegValue
	aux := struct {
		*plain
		Offset json.RawMessage `json:"offset"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	if aux.Offset == nil {
		return nil
	}
	v, err := ParseJSONAddr(aux.Offset, 32)
	r.Offset = uint32(v)
	return err
}

// ParseJSONAddr reads an address written as a hex string ("0x140") or
// as a JSON number, of at most bits bits.
func ParseJSONAddr(b []byte, bits int) (uint64, error) {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
			return 0, fmt.Errorf("address %q: not a hex string (0x...)", s)
		}
		v, err := strconv.ParseUint(s[2:], 16, bits)
		if err != nil {
			return 0, fmt.Errorf("address %q: not a %d-bit hex number", s, bits)
		}
		return v, nil
	}
	v, err := strconv.ParseUint(string(b), 10, bits)
	if err != nil {
		return 0, fmt.Errorf("address %s: neither a hex string nor a %d-bit number", b, bits)
	}
	return v, nil
}
