package regs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/citune/citune/regs"
)

func TestReadbackMismatch(t *testing.T) {
	m := regs.ChipIdea()
	b := newChipIdeaBus(t)
	b.stuck[0x15C] = true // TTCTRL: writes do not stick
	b.stuck[0x080] = true // GPTIMER0LD
	b.mem[0x15C] = 0
	rs := apply(t, b, mustChanges(t, m, "TTHA=0x7f", "GPTIMER0LD=0x1234", "ITC=UF1"))
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3", len(rs))
	}
	want := map[string]string{
		"GPTIMER0LD": "GPTIMER0LD: wrote 0x00001234, reads 0x00000000",
		"USBCMD":     "",
		"TTCTRL":     "TTCTRL.TTHA: wrote 127, reads 0",
	}
	for _, r := range rs {
		var got []string
		for _, mm := range r.Mismatches {
			got = append(got, mm.String())
		}
		if g := strings.Join(got, "; "); g != want[r.Reg.Name] {
			t.Errorf("%s: mismatches %q, want %q", r.Reg.Name, g, want[r.Reg.Name])
		}
		if r.Held() != (want[r.Reg.Name] == "") {
			t.Errorf("%s: Held() = %v", r.Reg.Name, r.Held())
		}
	}
}

func TestCheck(t *testing.T) {
	m := regs.ChipIdea()
	ref := func(name string) regs.Ref { return lookup(t, m, name) }
	tests := []struct {
		name     string
		changes  []regs.Change
		readback uint32
		want     int
	}{
		{"field held", []regs.Change{{Ref: ref("ITC"), Value: 1}}, 0x00010001, 0},
		{"field lost", []regs.Change{{Ref: ref("ITC"), Value: 1}}, 0x00080001, 1},
		{"two fields, one lost", []regs.Change{{Ref: ref("ITC"), Value: 1}, {Ref: ref("ASPE"), Value: 1}}, 0x00010000, 1},
		{"self-clearing field not compared", []regs.Change{{Ref: ref("USBCMD.IAA"), Value: 1}}, 0, 0},
		{"W1C field not compared", []regs.Change{{Ref: ref("PORTSC1.CSC"), Value: 1}}, 0, 0},
		{"whole register compares RW bits only", []regs.Change{{Ref: ref("PORTSC1"), Value: 0x1000_002B}}, 0x1000_0001, 0},
		{"whole register RW bit lost", []regs.Change{{Ref: ref("PORTSC1"), Value: 0x1100_0000}}, 0x1000_0000, 1},
		{"whole W1C register never mismatches", []regs.Change{{Ref: ref("USBSTS"), Value: 0xFF}}, 0xFF, 0},
		{"register without fields compares all bits", []regs.Change{{Ref: ref("ASYNCLISTADDR"), Value: 0x1000}}, 0x1001, 1},
		{"same field twice: the last counts", []regs.Change{{Ref: ref("ITC"), Value: 2}, {Ref: ref("ITC"), Value: 4}}, 0x00040000, 0},
		{"same field twice: the last is lost", []regs.Change{{Ref: ref("ITC"), Value: 2}, {Ref: ref("ITC"), Value: 4}}, 0x00020000, 1},
		{"field then whole register: the whole counts", []regs.Change{{Ref: ref("ITC"), Value: 2}, {Ref: ref("USBCMD"), Value: 0x00010000}}, 0x00010000, 0},
		{"whole register then field", []regs.Change{{Ref: ref("USBCMD"), Value: 0x00010001}, {Ref: ref("ITC"), Value: 8}}, 0x00080001, 0},
		{"whole register then field, other bit lost", []regs.Change{{Ref: ref("USBCMD"), Value: 0x00010001}, {Ref: ref("ITC"), Value: 8}}, 0x00080000, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms := regs.Check(tt.changes[0].Ref.Reg, tt.changes, tt.readback)
			if len(ms) != tt.want {
				t.Errorf("Check = %v, want %d mismatches", ms, tt.want)
			}
		})
	}
}

var errBus = errors.New("bus fault")

func TestAccessErrors(t *testing.T) {
	m := regs.ChipIdea()
	tests := []struct {
		name    string
		setup   func(b *fakeBus)
		phase   string // "prepare" or "commit"
		msg     []string
		results int    // results returned with a commit error
		log     string // accesses, in order
	}{
		{
			name:  "read before write fails",
			setup: func(b *fakeBus) { b.readErr[0x160] = errBus },
			phase: "prepare", msg: []string{"reading BURSTSIZE", "0x160"},
			log: "R0x90 R0x140 R0x160",
		},
		{
			name:  "second write fails after the first held",
			setup: func(b *fakeBus) { b.writeErr[0x140] = errBus },
			phase: "commit", msg: []string{"writing USBCMD=0x00010000", "0x140"}, results: 1,
			log: "R0x90 R0x140 R0x160 W0x90=0x00000000 R0x90 W0x140=0x00010000",
		},
		{
			name: "read-back fails",
			setup: func(b *fakeBus) {
				b.readErr[0x90] = nil
				b.writeErr[0x90] = nil
			},
			phase: "none",
			log:   "R0x90 R0x140 R0x160 W0x90=0x00000000 R0x90 W0x140=0x00010000 R0x140 W0x160=0x00001000 R0x160",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newChipIdeaBus(t)
			tt.setup(b)
			ws, err := regs.Prepare(b, mustChanges(t, m, "TXPBURST=16", "ITC=1", "AHBBRST=0"))
			if tt.phase == "prepare" {
				checkErr(t, err, tt.msg)
				if ws != nil {
					t.Errorf("Prepare returned writes with an error: %v", ws)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				rs, err := regs.Commit(b, ws)
				if tt.phase == "commit" {
					checkErr(t, err, tt.msg)
					if len(rs) != tt.results {
						t.Errorf("%d results with the error, want %d", len(rs), tt.results)
					}
				} else if err != nil {
					t.Fatal(err)
				}
			}
			if got := b.log(); got != tt.log {
				t.Errorf("accesses\n got %s\nwant %s", got, tt.log)
			}
		})
	}
	t.Run("read-back error", func(t *testing.T) {
		b := newChipIdeaBus(t)
		ws, err := regs.Prepare(b, mustChanges(t, m, "ITC=1"))
		if err != nil {
			t.Fatal(err)
		}
		b.readErr[0x140] = errBus
		rs, err := regs.Commit(b, ws)
		checkErr(t, err, []string{"reading back USBCMD", "0x140"})
		if len(rs) != 0 {
			t.Errorf("results %v with a read-back error", rs)
		}
		if got := b.log(); got != "R0x140 W0x140=0x00010000 R0x140" {
			t.Errorf("accesses %s", got)
		}
	})
}

func checkErr(t *testing.T, err error, msg []string) {
	t.Helper()
	if !errors.Is(err, errBus) {
		t.Fatalf("error %v does not wrap the bus error", err)
	}
	for _, s := range msg {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q lacks %q", err, s)
		}
	}
}
