package probe

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// DefaultTimeout bounds a cmd probe's command when no --timeout is given.
const DefaultTimeout = 10 * time.Minute

// maxOutput bounds how much of a command's output is kept.
const maxOutput = 64 << 20

// CmdProbe runs an external workload and takes its rate from the output:
// iperf3's JSON (-J or --json-stream) natively, anything else through a
// regular expression or a JSON path plus a unit.
type CmdProbe struct {
	Argv    []string
	Timeout time.Duration
	Parse   Parser
}

// Parser takes a rate out of a command's output.
type Parser interface {
	// Parse fills the rate fields of r, or returns ErrNoRate.
	Parse(stdout, stderr []byte, r *Run) error
	String() string
}

// ErrNoRate is wrapped when a command's output does not contain a rate.
var ErrNoRate = errors.New("no rate in the output")

// ErrTimeout is wrapped when a command did not finish in time.
var ErrTimeout = errors.New("command timed out")

// Name implements Probe.
func (p *CmdProbe) Name() string {
	return fmt.Sprintf("cmd %s [%s]", strings.Join(p.Argv, " "), p.Parse)
}

// Run implements Probe.
func (p *CmdProbe) Run(ctx context.Context, progress func(done, total int64)) (Run, error) {
	timeout := p.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, p.Argv[0], p.Argv[1:]...)
	ownGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr capBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	r := Run{Elapsed: time.Since(t0)}
	tail := outputTail(stdout.Bytes(), stderr.Bytes())
	if cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return r, fmt.Errorf("%w: %s did not finish within %s and was killed%s", ErrTimeout, p.Argv[0], timeout, tail)
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("%s stopped: %w", p.Argv[0], ctx.Err())
	}
	perr := p.Parse.Parse(stdout.Bytes(), stderr.Bytes(), &r)
	if perr == nil { // whichever parser read them, none is recorded
		if e := cmp.Or(checkRate(r.Rate), checkRate(r.SenderRate), checkRate(r.ReceiverRate)); e != nil {
			perr = fmt.Errorf("%v: %w", p.Parse, e)
			r.Rate, r.SenderRate, r.ReceiverRate = 0, 0, 0
		}
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg := fmt.Sprintf("%s exited with %v", p.Argv[0], ee.ProcessState)
			if perr != nil && !errors.Is(perr, ErrNoRate) {
				msg += ": " + perr.Error()
			}
			return r, fmt.Errorf("%s%s", msg, tail)
		}
		return r, fmt.Errorf("running %s: %w", p.Argv[0], err)
	}
	if perr != nil {
		return r, fmt.Errorf("%w%s", perr, tail)
	}
	if r.Elapsed > 0 && r.Bytes == 0 && r.Unit == "" {
		r.Bytes = int64(r.Rate * r.Elapsed.Seconds()) // for interrupts per MiB
	}
	return r, nil
}

// capBuffer keeps at most maxOutput bytes.
type capBuffer struct{ bytes.Buffer }

func (c *capBuffer) Write(p []byte) (int, error) {
	room := max(maxOutput-c.Len(), 0)
	c.Buffer.Write(p[:min(room, len(p))])
	return len(p), nil
}

// outputTail renders the last lines (12, 1500 characters) of a command's
// output for an error.
func outputTail(stdout, stderr []byte) string {
	var b strings.Builder
	for i, data := range [][]byte{stdout, stderr} {
		s := strings.TrimRight(string(data), "\n\r\t ")
		if s == "" {
			continue
		}
		lines := strings.Split(s, "\n")
		t := strings.Join(lines[max(len(lines)-12, 0):], "\n")
		if len(t) > 1500 {
			t = "..." + t[len(t)-1500:]
		}
		fmt.Fprintf(&b, "\n--- %s (last lines) ---\n%s", []string{"stdout", "stderr"}[i], t)
	}
	if b.Len() == 0 {
		return " (no output)"
	}
	return b.String()
}

// RegexParser takes the last match of Re (its first group, or the whole
// match) in stdout, else in stderr, as a number in Unit.
type RegexParser struct {
	Re   *regexp.Regexp
	Unit Unit
}

func (p *RegexParser) String() string { return fmt.Sprintf("regex %q %s", p.Re, p.Unit) }

// Parse implements Parser.
func (p *RegexParser) Parse(stdout, stderr []byte, r *Run) error {
	for _, out := range [][]byte{stdout, stderr} {
		ms := p.Re.FindAllSubmatch(out, -1)
		if len(ms) == 0 {
			continue
		}
		m := ms[len(ms)-1]
		s := m[min(1, len(m)-1)] // the first group, else the whole match
		v, err := parseNumber(string(s))
		switch {
		case errors.Is(err, errNotNumber):
			return fmt.Errorf("regex %q matched %q, which is not a number", p.Re, s)
		case err != nil:
			return fmt.Errorf("regex %q matched %q: %v", p.Re, s, err)
		}
		p.Unit.set(r, v)
		return nil
	}
	return fmt.Errorf("%w: regex %q matched nothing", ErrNoRate, p.Re)
}

// JSONPathParser takes the number at a dotted path ("jobs.0.read.bw_bytes")
// in the JSON document on stdout, in Unit.
type JSONPathParser struct {
	Path string
	Unit Unit
}

func (p *JSONPathParser) String() string { return fmt.Sprintf("json %s %s", p.Path, p.Unit) }

// Parse implements Parser.
func (p *JSONPathParser) Parse(stdout, stderr []byte, r *Run) error {
	v, err := jsonPath(stdout, p.Path)
	if err != nil {
		return err
	}
	p.Unit.set(r, v)
	return nil
}

// Iperf3Parser reads iperf3's -J (or --json-stream) output. The rate is
// the receiver's unless Sender is set; both are kept.
type Iperf3Parser struct{ Sender bool }

func (p *Iperf3Parser) String() string {
	if p.Sender {
		return "iperf3 sender"
	}
	return "iperf3 receiver"
}

// Parse implements Parser.
func (p *Iperf3Parser) Parse(stdout, stderr []byte, r *Run) error {
	res, err := parseIperf3(stdout)
	if err != nil {
		return err
	}
	r.SenderRate, r.ReceiverRate = res.sender.BitsPerSecond/8, res.receiver.BitsPerSecond/8
	r.Rate, r.Bytes = r.ReceiverRate, res.receiver.Bytes
	secs := res.receiver.Seconds
	if p.Sender || res.receiver.BitsPerSecond == 0 {
		r.Rate, r.Bytes, secs = r.SenderRate, res.sender.Bytes, res.sender.Seconds
	}
	if secs > 0 {
		r.Elapsed = time.Duration(secs * float64(time.Second))
	}
	return nil
}
