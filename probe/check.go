package probe

import (
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/citune/citune/units"
)

// The probes' rules: Check (read, write, sim) and CmdOptions.Probe; their
// errors name the flags that cmd/citune/probeflags.go binds to the fields.

// ErrUsage is matched by errors in how a probe was asked for.
var ErrUsage = errors.New("probe usage error")

type usageError struct{ msg string }

func (e *usageError) Error() string        { return e.msg }
func (e *usageError) Is(target error) bool { return target == ErrUsage }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

func checkBS(bs int64) error {
	if bs <= 0 || bs > 1<<30 {
		return usagef("--bs %s: give a block size from 512 bytes to 1GiB", units.Size(bs))
	}
	if bs%sectorSize != 0 {
		return usagef("--bs %d is not a multiple of 512 bytes: O_DIRECT needs block-aligned transfers", bs)
	}
	return nil
}

// Check checks the settings and that the target exists (nothing is read).
func (p *ReadProbe) Check() error {
	if err := checkBS(p.BS); err != nil {
		return err
	}
	if p.Dur > 0 && p.Size != 0 {
		return usagef("probe read: give --size or --duration, not both")
	}
	if p.ExpectHash != "" && p.Verify == VerifyNone {
		return usagef("probe read: --expect-hash needs hashing: drop --no-hash")
	}
	if p.ExpectHash != "" && p.Dur > 0 {
		return usagef("probe read: --expect-hash needs a fixed --size, not --duration")
	}
	if p.Offset < 0 || p.Offset%sectorSize != 0 {
		return usagef("--offset %d is not a multiple of 512 bytes: O_DIRECT needs aligned offsets", p.Offset)
	}
	_, err := statTarget(p.Path)
	return err
}

// Check checks the settings and the destination (nothing is written).
func (p *WriteProbe) Check() error {
	if err := checkBS(p.BS); err != nil {
		return err
	}
	if p.Size <= 0 || p.Size%sectorSize != 0 {
		return usagef("--size %d: give a positive multiple of 512 bytes", p.Size)
	}
	if p.Offset < 0 || p.Offset%sectorSize != 0 {
		return usagef("--offset %d is not a multiple of 512 bytes", p.Offset)
	}
	_, _, err := p.destination()
	return err
}

// CmdOptions are the cmd probe's settings: the command, and how to find
// the rate in its output, which is one of Parse ("iperf3", with Sender
// for the sender's rate), Regex or JSONPath (the latter two with Unit).
type CmdOptions struct {
	Argv                         []string
	Timeout                      time.Duration
	Parse, Regex, JSONPath, Unit string
	Sender                       bool
}

// Probe checks the options and returns the probe.
func (o CmdOptions) Probe() (*CmdProbe, error) {
	if len(o.Argv) == 0 {
		return nil, usagef("probe cmd: no command given (put it after --)")
	}
	p := &CmdProbe{Argv: o.Argv, Timeout: o.Timeout}
	switch {
	case o.Parse != "" && o.Regex == "" && o.JSONPath == "":
		if o.Parse != "iperf3" {
			return nil, usagef("probe cmd: --parse knows iperf3 only; for other tools use --regex or --json-path with --unit")
		}
		p.Parse = &Iperf3Parser{Sender: o.Sender}
	case o.Regex != "" && o.Parse == "" && o.JSONPath == "":
		x, err := regexp.Compile(o.Regex)
		if err != nil {
			return nil, usagef("probe cmd: --regex: %v", err)
		}
		if x.NumSubexp() > 1 {
			return nil, usagef("probe cmd: --regex %q has %d groups; use one group around the number (or (?:...) for the others)", o.Regex, x.NumSubexp())
		}
		u, err := ParseUnit(o.Unit)
		if err != nil {
			return nil, err
		}
		p.Parse = &RegexParser{Re: x, Unit: u}
	case o.JSONPath != "" && o.Regex == "" && o.Parse == "":
		u, err := ParseUnit(o.Unit)
		if err != nil {
			return nil, err
		}
		p.Parse = &JSONPathParser{Path: o.JSONPath, Unit: u}
	default:
		return nil, usagef("probe cmd: say how to find the rate: one of --parse iperf3, --regex RE --unit U, --json-path PATH --unit U")
	}
	if o.Sender && o.Parse == "" {
		return nil, usagef("probe cmd: --sender goes with --parse iperf3")
	}
	return p, nil
}

// Check checks the sim probe's settings as a user gives them (a 0 Qmult
// or Buffers, the model's default, is no value to give).
func (p *SimProbe) Check() error {
	if p.Ctl == nil || p.Map == nil {
		return usagef("probe sim measures the simulated controller: run `citune --sim probe sim`")
	}
	if p.Size <= 0 || (p.Xfer != 0 && p.Xfer < simPacket) {
		return usagef("probe sim: --size must be positive and --xfer at least 512 bytes")
	}
	if p.BusLoad < 0 || p.BusLoad > 0.95 {
		return usagef("probe sim: --bus-load %g: give a share from 0 to 0.95", p.BusLoad)
	}
	if p.Qmult < 1 || p.Qmult > 100 {
		return usagef("probe sim: --qmult %d: give 1 to 100", p.Qmult)
	}
	if p.Buffers < 2 || p.Buffers > 32 {
		return usagef("probe sim: --num-buffers %d: f_mass_storage takes 2 to 32", p.Buffers)
	}
	if p.Noise > 0.2 {
		return usagef("probe sim: --noise %g: give at most 0.2 (20 %% spread; wider noise would hide the model)", p.Noise)
	}
	return nil
}
