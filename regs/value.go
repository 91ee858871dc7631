package regs

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrValue is wrapped by every error about a value that does not parse or
// is not legal for its field.
var ErrValue = errors.New("invalid value")

// ParseNumber parses decimal, 0x hex, 0b binary or 0o octal, with optional
// '_' separators. A leading 0 alone does not mean octal.
func ParseNumber(s string) (uint32, error) {
	t := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "_", "")
	base := 10
	switch {
	case strings.HasPrefix(t, "0x"):
		base, t = 16, t[2:]
	case strings.HasPrefix(t, "0b"):
		base, t = 2, t[2:]
	case strings.HasPrefix(t, "0o"):
		base, t = 8, t[2:]
	}
	if t == "" {
		return 0, fmt.Errorf("%w: %q is not a number", ErrValue, s)
	}
	v, err := strconv.ParseUint(t, base, 32)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("%w: %q does not fit in 32 bits", ErrValue, s)
		}
		return 0, fmt.Errorf("%w: %q is not a number (decimal, 0x.., 0b.. or a value name)", ErrValue, s)
	}
	return uint32(v), nil
}

// ParseValue parses s as a value of f: a value name (case ignored), on/off
// style booleans for one-bit fields, or a number, and checks that the value
// is legal (fits, in range, named when the field is strict, not reserved).
// Value names win over booleans; enable/disable(d) are refused for one-bit
// fields that have value names, where they could mean either value.
func ParseValue(f *Field, s string) (uint32, error) {
	t := strings.TrimSpace(s)
	for _, e := range f.Values {
		if e.Name != "" && strings.EqualFold(e.Name, t) {
			return e.Value, CheckValue(f, e.Value)
		}
	}
	if f.Width == 1 {
		var v uint32
		switch w := strings.ToLower(t); w {
		case "enable", "enabled", "disable", "disabled":
			// These words describe a state, and a field with value
			// names may mean the opposite by the bit: USBMODE.SDIS=1
			// is named DISABLED (streaming disabled), so "disable"
			// as a boolean (0) would contradict "disabled" (1).
			if len(f.Values) > 0 {
				return 0, fmt.Errorf("%s: %w: %q is ambiguous for this field (legal: %s)", f.Name, ErrValue, s, Legal(f))
			}
			if w == "enable" || w == "enabled" {
				v = 1
			}
			return v, CheckValue(f, v)
		case "on", "true", "yes", "set":
			return 1, CheckValue(f, 1)
		case "off", "false", "no", "clear":
			return 0, CheckValue(f, 0)
		}
	}
	v, err := ParseNumber(t)
	if err != nil {
		if len(f.Values) > 0 {
			return 0, fmt.Errorf("%s: %w (legal: %s)", f.Name, err, Legal(f))
		}
		return 0, fmt.Errorf("%s: %w", f.Name, err)
	}
	return v, CheckValue(f, v)
}

// CheckValue reports whether v is a legal value of f.
func CheckValue(f *Field, v uint32) error {
	if v > f.WidthMax() {
		return fmt.Errorf("%s: %w: %d (%#x) does not fit in %d bit(s) (max %d)", f.Name, ErrValue, v, v, f.Width, f.WidthMax())
	}
	if e := f.Enum(v); e != nil && e.Reserved {
		return fmt.Errorf("%s: %w: %d is reserved (%s)", f.Name, ErrValue, v, e.Meaning)
	}
	if f.Strict && f.Enum(v) == nil {
		return fmt.Errorf("%s: %w: %d is not a legal value (legal: %s)", f.Name, ErrValue, v, Legal(f))
	}
	if f.HasRange && (v < f.Min || v > f.Max) {
		return fmt.Errorf("%s: %w: %d is outside %d..%d", f.Name, ErrValue, v, f.Min, f.Max)
	}
	return nil
}

// Legal describes the legal values of f in a short form.
func Legal(f *Field) string {
	if f.Strict || (len(f.Values) > 0 && len(f.Values) == int(f.WidthMax())+1) {
		var s []string
		for _, e := range f.Values {
			if e.Reserved {
				continue
			}
			if e.Name != "" {
				s = append(s, fmt.Sprintf("%d=%s", e.Value, e.Name))
			} else {
				s = append(s, fmt.Sprint(e.Value))
			}
		}
		return strings.Join(s, ", ")
	}
	if f.HasRange {
		return fmt.Sprintf("%d..%d", f.Min, f.Max)
	}
	return fmt.Sprintf("0..%d", f.WidthMax())
}

// Meaning describes value v of f: the value's name and meaning, "reserved",
// or "" when the value has no name.
func Meaning(f *Field, v uint32) string {
	e := f.Enum(v)
	switch {
	case e == nil && f.Strict:
		return "not a legal value"
	case e == nil:
		return ""
	case e.Reserved:
		return "reserved: " + e.Meaning
	case e.Name != "" && e.Meaning != "":
		return e.Name + ": " + e.Meaning
	case e.Name != "":
		return e.Name
	}
	return e.Meaning
}
