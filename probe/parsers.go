package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/citune/citune/units"
)

// Unit is the unit of a number a command prints. Byte and bit rates are
// converted to bytes per second; any other unit ("fps", "IOPS") is kept
// as it is and stored in Run.Unit.
type Unit struct {
	Name   string
	Factor float64 // to bytes per second; 0 for other units
}

func (u Unit) String() string { return u.Name }

func (u Unit) set(r *Run, v float64) {
	if u.Factor == 0 {
		r.Rate, r.Unit = v, u.Name
		return
	}
	r.Rate = v * u.Factor
}

// ParseUnit reads a unit name. Byte rates: B/s, kB/s, MB/s, GB/s
// (decimal), KiB/s, MiB/s, GiB/s; bit rates: bit/s, kbit/s, Mbit/s,
// Gbit/s (also bps, Mbps, ...). Anything else is a unit of its own.
func ParseUnit(s string) (Unit, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Unit{}, usagef("a unit is needed: --unit MB/s, MiB/s, Mbit/s, fps, ...")
	}
	if f, ok := units.RateFactor(s); ok {
		return Unit{Name: s, Factor: f}, nil
	}
	return Unit{Name: s}, nil
}

// parseNumber reads "37.75", "1,234.5" or "1e6". A comma must separate
// thousands: "12,5" or "1.234,5" (a decimal comma?) is refused, not read
// as 125 or 1.2345.
func parseNumber(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, ",") && !thousands(strings.TrimLeft(s, "+-")) {
		return 0, errors.New("its comma does not separate thousands (a decimal comma?)")
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range: ±Inf, which checkRate refuses
		return 0, errNotNumber
	}
	return v, nil
}

var errNotNumber = errors.New("not a number")

// thousands reports whether the commas of s (no sign) only separate
// groups of three digits before its decimal point or exponent.
func thousands(s string) bool {
	end := len(s)
	if i := strings.IndexAny(s, ".eE"); i >= 0 {
		end = i
	}
	if strings.Contains(s[end:], ",") {
		return false
	}
	groups := strings.Split(s[:end], ",")
	if g := groups[0]; g == "" || len(g) > 3 || g[0] == '0' {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return true
}

// checkRate refuses a number that is no rate: NaN, an infinity, a
// negative number (the sign survives any unit's factor).
func checkRate(v float64) error {
	switch {
	case math.IsNaN(v):
		return errors.New("the number read is NaN, not a rate")
	case math.IsInf(v, 0):
		return errors.New("the number read is infinite, not a rate")
	case v < 0:
		return errors.New("the number read is negative, not a rate")
	}
	return nil
}

// jsonPath finds the number at a dotted path in the first JSON document
// of out (tools such as fio print notes before it).
func jsonPath(out []byte, path string) (float64, error) {
	i := bytes.IndexByte(out, '{')
	if j := bytes.IndexByte(out, '['); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return 0, fmt.Errorf("%w: no JSON document in the output", ErrNoRate)
	}
	dec := json.NewDecoder(bytes.NewReader(out[i:]))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return 0, fmt.Errorf("%w: the output is not valid JSON: %v", ErrNoRate, err)
	}
	cur := doc
	var walked []string
	for _, key := range strings.Split(path, ".") {
		where := "the top level"
		if len(walked) > 0 {
			where = strings.Join(walked, ".")
		}
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[key]
			if !ok {
				keys := slices.Sorted(maps.Keys(v))
				if len(keys) > 12 {
					keys = append(keys[:12], "...")
				}
				return 0, fmt.Errorf("%w: json path %s: no key %q at %s (keys: %s)", ErrNoRate, path, key, where, strings.Join(keys, ", "))
			}
			cur = next
		case []any:
			n, err := strconv.Atoi(key)
			if err != nil || n < 0 || n >= len(v) {
				return 0, fmt.Errorf("%w: json path %s: %s is a list of %d; %q is not an index into it", ErrNoRate, path, where, len(v), key)
			}
			cur = v[n]
		default:
			return 0, fmt.Errorf("%w: json path %s: %s is a value, not an object or list", ErrNoRate, path, where)
		}
		walked = append(walked, key)
	}
	s, ok := cur.(string)
	if n, isNum := cur.(json.Number); isNum {
		s, ok = n.String(), true
	}
	v, err := parseNumber(s)
	switch {
	case !ok || errors.Is(err, errNotNumber):
		return 0, fmt.Errorf("%w: json path %s holds %v, not a number", ErrNoRate, path, cur)
	case err != nil:
		return 0, fmt.Errorf("%w: json path %s holds %q: %v", ErrNoRate, path, s, err)
	}
	return v, nil
}

// iperfResult is what citune takes from iperf3's JSON: the sender's and
// the receiver's sums (zero where the report has none).
type iperfResult struct{ sender, receiver iperfSum }

type iperfSum struct {
	Seconds       float64 `json:"seconds"`
	Bytes         int64   `json:"bytes"`
	BitsPerSecond float64 `json:"bits_per_second"`
}

type iperfEnd struct {
	SumSent     *iperfSum `json:"sum_sent"`
	SumReceived *iperfSum `json:"sum_received"`
	Sum         *iperfSum `json:"sum"` // UDP in older iperf3
}

// parseIperf3 reads `iperf3 -J` output (one JSON object) or
// `--json-stream` output (one event per line).
func parseIperf3(out []byte) (iperfResult, error) {
	var doc struct {
		End   *iperfEnd `json:"end"`
		Error string    `json:"error"`
	}
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return iperfResult{}, fmt.Errorf("%w: iperf3 printed nothing on stdout (did you pass -J?)", ErrNoRate)
	}
	if err := json.Unmarshal(trimmed, &doc); err != nil {
		// --json-stream: one event object per line.
		var end *iperfEnd
		var msg string
		for _, line := range bytes.Split(trimmed, []byte("\n")) {
			var ev struct {
				Event string          `json:"event"`
				Data  json.RawMessage `json:"data"`
			}
			if json.Unmarshal(bytes.TrimSpace(line), &ev) != nil {
				continue
			}
			switch ev.Event {
			case "end":
				end = new(iperfEnd)
				if json.Unmarshal(ev.Data, end) != nil {
					end = nil
				}
			case "error":
				json.Unmarshal(ev.Data, &msg)
			}
		}
		if msg != "" {
			return iperfResult{}, fmt.Errorf("iperf3: %s", msg)
		}
		if end == nil {
			return iperfResult{}, fmt.Errorf("%w: the output is neither iperf3 -J JSON nor --json-stream events (%v)", ErrNoRate, err)
		}
		doc.End = end
	}
	if doc.Error != "" {
		return iperfResult{}, fmt.Errorf("iperf3: %s", doc.Error)
	}
	e := doc.End
	if e == nil {
		return iperfResult{}, fmt.Errorf("%w: iperf3 JSON has no \"end\" section (the test did not finish)", ErrNoRate)
	}
	var res iperfResult
	if s := e.SumSent; s != nil {
		res.sender = *s
	}
	if s := e.SumReceived; s != nil {
		res.receiver = *s
	}
	if s := e.Sum; s != nil && res.sender.BitsPerSecond == 0 && res.receiver.BitsPerSecond == 0 {
		// UDP: one sum, seen from the side that wrote the report.
		res.sender, res.receiver = *s, *s
	}
	if res.sender.BitsPerSecond == 0 && res.receiver.BitsPerSecond == 0 {
		return iperfResult{}, fmt.Errorf("%w: iperf3's \"end\" section has no sum_sent/sum_received rate", ErrNoRate)
	}
	return res, nil
}
