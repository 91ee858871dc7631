package probe

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(math.Abs(a), math.Abs(b)) }

func TestIperf3Parser(t *testing.T) {
	tests := map[string]struct {
		file          string
		sender        bool
		rate          float64 // bytes per second
		bytes         int64
		send, receive float64
		elapsed       time.Duration
	}{
		"tcp receiver": {file: "iperf3-tcp.json", rate: 115724785.75198917 / 8, bytes: 144834560,
			send: 116285322.49163038 / 8, receive: 115724785.75198917 / 8, elapsed: 10012345 * time.Microsecond},
		"tcp sender": {file: "iperf3-tcp.json", sender: true, rate: 116285322.49163038 / 8, bytes: 145358848,
			send: 116285322.49163038 / 8, receive: 115724785.75198917 / 8, elapsed: 10000151 * time.Microsecond},
		"json-stream": {file: "iperf3-stream.jsonl", rate: 115724785.75198917 / 8, bytes: 144834560,
			send: 116285322.49163038 / 8, receive: 115724785.75198917 / 8, elapsed: 10012345 * time.Microsecond},
		"udp sum only": {file: "iperf3-udp.json", rate: 10485315.42262608 / 8, bytes: 6553600,
			send: 10485315.42262608 / 8, receive: 10485315.42262608 / 8, elapsed: 5000212 * time.Microsecond},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var r Run
			p := &Iperf3Parser{Sender: tc.sender}
			if err := p.Parse(readTestdata(t, tc.file), nil, &r); err != nil {
				t.Fatal(err)
			}
			if !near(r.Rate, tc.rate) || r.Bytes != tc.bytes || !near(r.SenderRate, tc.send) || !near(r.ReceiverRate, tc.receive) {
				t.Errorf("got rate %v bytes %d sender %v receiver %v; want %v %d %v %v", r.Rate, r.Bytes, r.SenderRate, r.ReceiverRate, tc.rate, tc.bytes, tc.send, tc.receive)
			}
			if d := r.Elapsed - tc.elapsed; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("elapsed %v, want %v", r.Elapsed, tc.elapsed)
			}
		})
	}
}

func TestIperf3ParserErrors(t *testing.T) {
	tests := map[string]struct {
		out    string
		want   string
		noRate bool
	}{
		"server refused": {out: string(readTestdata(t, "iperf3-error.json")), want: "iperf3: unable to connect to server"},
		"not json":       {out: "Connecting to host 10.0.0.1, port 5201\n[  5] local 10.0.0.2 port 45678", want: "neither iperf3 -J JSON", noRate: true},
		"empty":          {out: "", want: "did you pass -J", noRate: true},
		"no end":         {out: `{"start":{},"intervals":[]}`, want: `no "end" section`, noRate: true},
		"stream error":   {out: `{"event":"start","data":{}}` + "\n" + `{"event":"error","data":"interrupt - the client has terminated"}`, want: "iperf3: interrupt"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var r Run
			err := (&Iperf3Parser{}).Parse([]byte(tc.out), nil, &r)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if errors.Is(err, ErrNoRate) != tc.noRate {
				t.Errorf("errors.Is(err, ErrNoRate) = %v, want %v", !tc.noRate, tc.noRate)
			}
		})
	}
}

func TestJSONPathParser(t *testing.T) {
	tests := map[string]struct {
		path, unit string
		rate       float64
		unitOut    string
		err        string
	}{
		"fio bw_bytes":       {path: "jobs.0.read.bw_bytes", unit: "B/s", rate: 31784823},
		"fio bw in KiB/s":    {path: "jobs.0.read.bw", unit: "KiB/s", rate: 31040 * 1024},
		"fio iops own unit":  {path: "jobs.0.read.iops", unit: "IOPS", rate: 30.3125, unitOut: "IOPS"},
		"missing key":        {path: "jobs.0.reed.bw_bytes", unit: "B/s", err: `no key "reed" at jobs.0 (keys: ctx, elapsed, error`},
		"index out of range": {path: "jobs.3.read.bw_bytes", unit: "B/s", err: `jobs is a list of 1; "3" is not an index`},
		"not a number":       {path: "jobs.0.jobname", unit: "B/s", err: "holds seqread, not a number"},
	}
	out := readTestdata(t, "fio-read.json")
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			u, err := ParseUnit(tc.unit)
			if err != nil {
				t.Fatal(err)
			}
			var r Run
			err = (&JSONPathParser{Path: tc.path, Unit: u}).Parse(out, nil, &r)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrNoRate) {
					t.Fatalf("error %v, want ErrNoRate containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Rate, tc.rate) || r.Unit != tc.unitOut {
				t.Errorf("rate %v %q, want %v %q", r.Rate, r.Unit, tc.rate, tc.unitOut)
			}
		})
	}
}

func TestRegexParser(t *testing.T) {
	tests := map[string]struct {
		file, re, unit string
		onStderr       bool
		rate           float64
		unitOut        string
	}{
		"hdparm MB/sec (MiB)": {file: "hdparm.txt", re: `= *([0-9.]+) MB/sec`, unit: "MiB/s", rate: 37.75 * (1 << 20)},
		"v4l2-ctl last fps":   {file: "v4l2-ctl.txt", re: `([0-9.]+) fps`, unit: "fps", onStderr: true, rate: 25.01, unitOut: "fps"},
		"whole match":         {file: "hdparm.txt", re: `[0-9.]+(?: MB/sec)`, unit: "MB/s", rate: 0}, // "37.75 MB/sec" is not a number
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			u, _ := ParseUnit(tc.unit)
			p := &RegexParser{Re: regexp.MustCompile(tc.re), Unit: u}
			out := readTestdata(t, tc.file)
			var stdout, stderr []byte
			if tc.onStderr {
				stderr = out
			} else {
				stdout = out
			}
			var r Run
			err := p.Parse(stdout, stderr, &r)
			if tc.rate == 0 {
				if err == nil || !strings.Contains(err.Error(), "not a number") {
					t.Fatalf("error %v, want 'not a number'", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !near(r.Rate, tc.rate) || r.Unit != tc.unitOut {
				t.Errorf("rate %v %q, want %v %q", r.Rate, r.Unit, tc.rate, tc.unitOut)
			}
		})
	}
}

func TestParseUnit(t *testing.T) {
	tests := map[string]float64{"B/s": 1, "MB/s": 1e6, "MiB/s": 1 << 20, "Mbit/s": 1e6 / 8, "Gbps": 1e9 / 8, "kib/s": 1024, "fps": 0}
	for in, want := range tests {
		u, err := ParseUnit(in)
		if err != nil || u.Factor != want {
			t.Errorf("ParseUnit(%q) = %v, %v; want factor %v", in, u, err, want)
		}
	}
	if _, err := ParseUnit(""); !errors.Is(err, ErrUsage) {
		t.Errorf("empty unit: %v, want a usage error", err)
	}
}

// The cmd probe runs real commands: cat replays captured output.
func TestCmdProbe(t *testing.T) {
	ctx := context.Background()
	tcp := filepath.Join("testdata", "iperf3-tcp.json")
	t.Run("iperf3 from cat", func(t *testing.T) {
		p := &CmdProbe{Argv: []string{"cat", tcp}, Parse: &Iperf3Parser{}}
		r, err := p.Run(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Bytes != 144834560 || !near(r.Rate, 115724785.75198917/8) {
			t.Errorf("got %d bytes at %v", r.Bytes, r.Rate)
		}
	})
	t.Run("no rate shows the tail", func(t *testing.T) {
		u, _ := ParseUnit("MB/s")
		p := &CmdProbe{Argv: []string{"sh", "-c", "echo starting; echo line two; echo oops >&2"}, Parse: &RegexParser{Re: regexp.MustCompile(`([0-9.]+) MB/s`), Unit: u}}
		_, err := p.Run(ctx, nil)
		if !errors.Is(err, ErrNoRate) {
			t.Fatalf("error %v, want ErrNoRate", err)
		}
		for _, want := range []string{"matched nothing", "--- stdout (last lines) ---\nstarting\nline two", "--- stderr (last lines) ---\noops"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
	})
	t.Run("exit status with iperf3 error", func(t *testing.T) {
		p := &CmdProbe{Argv: []string{"sh", "-c", "cat " + filepath.Join("testdata", "iperf3-error.json") + "; exit 1"}, Parse: &Iperf3Parser{}}
		_, err := p.Run(ctx, nil)
		if err == nil || !strings.Contains(err.Error(), "exited with exit status 1: iperf3: unable to connect") {
			t.Fatalf("error %v", err)
		}
	})
	t.Run("timeout kills the command", func(t *testing.T) {
		p := &CmdProbe{Argv: []string{"sh", "-c", "echo waiting; sleep 30"}, Timeout: 200 * time.Millisecond, Parse: &Iperf3Parser{}}
		_, err := p.Run(ctx, nil)
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "did not finish within 200ms") || !strings.Contains(err.Error(), "waiting") {
			t.Fatalf("error %v, want a timeout with the output tail", err)
		}
	})
	t.Run("missing command", func(t *testing.T) {
		p := &CmdProbe{Argv: []string{"citune-no-such-tool"}, Parse: &Iperf3Parser{}}
		_, err := p.Run(ctx, nil)
		if err == nil || !strings.Contains(err.Error(), "executable file not found") {
			t.Fatalf("error %v", err)
		}
	})
}

func FuzzParseIperf3(f *testing.F) {
	for _, name := range []string{"iperf3-tcp.json", "iperf3-udp.json", "iperf3-error.json", "iperf3-stream.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"end":{"sum_sent":{"bits_per_second":-1}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		res, err := parseIperf3(b)
		if err == nil && res.sender.BitsPerSecond == 0 && res.receiver.BitsPerSecond == 0 {
			t.Fatalf("no error and no rate")
		}
	})
}

func FuzzJSONPath(f *testing.F) {
	f.Add(readTestdataF(f, "fio-read.json"), "jobs.0.read.bw_bytes")
	f.Add([]byte(`[1,2,{"a":"3"}]`), "2.a")
	f.Fuzz(func(t *testing.T, b []byte, path string) {
		jsonPath(b, path)
	})
}

func readTestdataF(f *testing.F, name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// A command's number is a rate only when it is one: a decimal comma is
// refused rather than read ten times too high, and NaN, infinities and
// negative numbers are refused rather than recorded.
func TestParseNumberRefusesWhatIsNoRate(t *testing.T) {
	for in, want := range map[string]float64{"37.75": 37.75, "1,234.5": 1234.5, "12,345,678": 12345678, "+1,234": 1234, "1,234e3": 1234e3, "1e6": 1e6, " 5 ": 5, "0": 0} {
		if got, err := parseNumber(in); err != nil || got != want {
			t.Errorf("parseNumber(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"12,5", "1,2,3", "1234,567", ",123", "1,23.4", "1.234,5", "12.345,67", "0,500", "1,234,", "1e3,000"} {
		if got, err := parseNumber(in); err == nil || !strings.Contains(err.Error(), "does not separate thousands") {
			t.Errorf("parseNumber(%q) = %v, %v; want the comma refused", in, got, err)
		}
	}
	u, _ := ParseUnit("MB/s")
	for out, want := range map[string]string{
		"rate = 12,5 MB/sec": `matched "12,5": its comma does not separate thousands`,
		"rate = x MB/sec":    `matched "x", which is not a number`,
	} {
		p := &RegexParser{Re: regexp.MustCompile(`= *(\S+) MB/sec`), Unit: u}
		var r Run
		if err := p.Parse([]byte(out), nil, &r); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", out, err, want)
		}
	}
	// Whichever parser read it, a command's number that is no rate is
	// refused where the command runs.
	re := &RegexParser{Re: regexp.MustCompile(`= *(\S+) MB/sec`), Unit: u}
	for _, tc := range []struct {
		parser Parser
		out    string
		want   string
	}{
		{re, "rate = NaN MB/sec", "is NaN, not a rate"},
		{re, "rate = +Inf MB/sec", "is infinite, not a rate"},
		{re, "rate = -5 MB/sec", "is negative, not a rate"},
		{&JSONPathParser{Path: "a.b", Unit: u}, `{"a": {"b": -3}}`, "json a.b MB/s: the number read is negative, not a rate"},
		{&JSONPathParser{Path: "a.b", Unit: u}, `{"a": {"b": 1e400}}`, "the number read is infinite, not a rate"},
		{&JSONPathParser{Path: "a.b", Unit: u}, `{"a": {"b": "12,5"}}`, `json path a.b holds "12,5": its comma does not separate thousands`},
		{&Iperf3Parser{}, `{"end": {"sum_received": {"bits_per_second": -1, "bytes": 1, "seconds": 1}}}`, "iperf3 receiver: the number read is negative, not a rate"},
		{&Iperf3Parser{Sender: true}, `{"end": {"sum_sent": {"bits_per_second": 8, "bytes": 1, "seconds": 1}, "sum_received": {"bits_per_second": -8, "bytes": 1, "seconds": 1}}}`, "the number read is negative, not a rate"},
	} {
		p := &CmdProbe{Argv: []string{"printf", "%s", tc.out}, Parse: tc.parser}
		r, err := p.Run(context.Background(), nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %q: %v, want %q", tc.parser, tc.out, err, tc.want)
		}
		if r.Rate != 0 || r.SenderRate != 0 || r.ReceiverRate != 0 { // a results file cannot hold NaN
			t.Errorf("%s on %q: refused, yet rates %v %v %v kept", tc.parser, tc.out, r.Rate, r.SenderRate, r.ReceiverRate)
		}
	}
}
