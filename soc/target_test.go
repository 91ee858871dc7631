package soc

import (
	"io/fs"

	"errors"
	"github.com/BurntSushi/toml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
)

func profile(t testing.TB, name string) *Profile {
	t.Helper()
	p, err := LoadFS(profiles.FS, name+".toml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// imageOf writes the simulated reset state of p's controller to a file.
func imageOf(t testing.TB, p *Profile, c *Controller) string {
	t.Helper()
	st, err := OpenSim(p, c, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, c.Span())
	for off := uint32(0); off < c.Span(); off += 4 {
		v, _ := st.Read32(off)
		b[off], b[off+1], b[off+2], b[off+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	path := filepath.Join(t.TempDir(), p.Name+".bin")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestIdentity(t *testing.T) {
	imx, qemu := profile(t, "imx6q"), profile(t, "qemu-sabrelite")
	for _, tc := range []struct {
		name    string
		image   *Profile
		checked *Profile
		ok      bool
	}{
		{"silicon image, silicon profile", imx, imx, true},
		{"qemu image, qemu profile", qemu, qemu, true},
		{"qemu image, silicon profile", qemu, imx, false},
		{"silicon image, qemu profile", imx, qemu, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := tc.checked.Controller("usbh1")
			tg, err := OpenFile(tc.checked, c, imageOf(t, tc.image, c), false)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			err = tg.Identify()
			if tc.ok != (err == nil) {
				t.Fatalf("Identify() = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && (!errors.Is(err, ErrIdentity) || !strings.Contains(err.Error(), "reads 0x")) {
				t.Errorf("error does not say what was read: %v", err)
			}
		})
	}
}

func TestSnapshotCoversMap(t *testing.T) {
	p := profile(t, "imx6q")
	c, _ := p.Controller("usbotg")
	tg, err := OpenSim(p, c, SimOptions{ResetValues: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Take(p.Map, tg)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Registers) != len(p.Map.Registers) {
		t.Fatalf("snapshot has %d registers, map %d", len(s.Registers), len(p.Map.Registers))
	}
	if v, ok := s.Value("usbcmd"); !ok || v != 0x00080000 {
		t.Errorf("USBCMD = %#x, %v", v, ok)
	}
}

// BenchmarkSetRoundTrip is a `citune set ITC=0 AHBBRST=0 TXPBURST=16`
// round trip (prepare: read; commit: write and read back) through a
// --mem-file window.
func BenchmarkSetRoundTrip(b *testing.B) {
	p := profile(b, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, err := OpenFile(p, c, imageOf(b, p, c), true)
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	var cs []regs.Change
	for _, s := range []string{"ITC=0", "AHBBRST=0", "TXPBURST=16"} {
		ch, err := p.Map.ParseChange(s)
		if err != nil {
			b.Fatal(err)
		}
		cs = append(cs, ch)
	}
	for b.Loop() {
		ws, err := regs.Prepare(tg, cs)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := regs.Commit(tg, ws); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDumpController reads and decodes every register through a
// --mem-file window.
func BenchmarkDumpController(b *testing.B) {
	p := profile(b, "imx6q")
	c, _ := p.Controller("usbh1")
	tg, err := OpenFile(p, c, imageOf(b, p, c), false)
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	for b.Loop() {
		for i := range p.Map.Registers {
			r := &p.Map.Registers[i]
			v, _ := tg.Read32(r.Offset)
			_ = r.Decode(v)
		}
	}
}

// TestSimulatorAnswersIdentity: every profile's simulated controllers pass
// their own identity checks, even where no reset values are known.
func TestSimulatorAnswersIdentity(t *testing.T) {
	ps, err := LoadAll(profiles.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		for i := range p.Controllers {
			c := &p.Controllers[i]
			tg, err := OpenSim(p, c, SimOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tg.Identify(); err != nil {
				t.Errorf("%s %s: %v", p.Name, c.Label, err)
			}
		}
	}
}

func TestRole(t *testing.T) {
	imx, qemu := profile(t, "imx6q"), profile(t, "qemu-sabrelite")
	at := func(p *Profile, label string, usbmode uint32) regs.Role {
		c, _ := p.Controller(label)
		tg := &Target{Profile: p, Controller: c}
		return tg.Role(Snapshot{Registers: []RegValue{{Name: "USBMODE", Offset: 0x1a8, Value: usbmode}}})
	}
	for _, tc := range []struct {
		name string
		got  regs.Role
		want regs.Role
	}{
		{"OTG running as host", at(imx, "usbotg", 3), "host"},
		{"OTG running as device", at(imx, "usbotg", 2), "device"},
		{"OTG idle: unknown", at(imx, "usbotg", 0), ""},
		{"host-only core, CM unread", at(imx, "usbh1", 0), "host"},
		{"QEMU reads CM as 0", at(qemu, "usbh1", 0), "host"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

// TestEmbeddedProfilesDeclareCores: every controller of every embedded
// profile says which core it is (core is optional only for older user
// profiles), and the host-only ones are the ones the SDK names UHx.
func TestEmbeddedProfilesDeclareCores(t *testing.T) {
	hostOnly := map[string]bool{"imx6q/usbh1": true, "imx6q/usbh2": true, "imx6q/usbh3": true,
		"imx6sl/usbh": true, "imx6sx/usbh": true, "imx7d/usbh": true}
	names, _ := fs.Glob(profiles.FS, "*.toml")
	for _, n := range names {
		data, _ := fs.ReadFile(profiles.FS, n)
		var raw struct {
			Controller []map[string]any `toml:"controller"`
		}
		if _, err := toml.Decode(string(data), &raw); err != nil {
			t.Fatal(err)
		}
		p := profile(t, strings.TrimSuffix(n, ".toml"))
		for i, c := range raw.Controller {
			if _, ok := c["core"]; !ok {
				t.Errorf("%s: controller %v has no core key", n, c["label"])
			}
			pc := &p.Controllers[i]
			want := regs.CoreOTG
			if hostOnly[p.Name+"/"+pc.Label] {
				want = regs.CoreHostOnly
			}
			if pc.Core != want {
				t.Errorf("%s %s: core %q, want %q", p.Name, pc.Label, pc.Core, want)
			}
			if (pc.Map.Register("OTGSC") == nil) != (want == regs.CoreHostOnly) {
				t.Errorf("%s %s: OTGSC presence does not match core %s", p.Name, pc.Label, want)
			}
			if pc.Map.Register("DCCPARAMS") == nil {
				t.Errorf("%s %s: no DCCPARAMS (Linux needs its HC bit on every core)", p.Name, pc.Label)
			}
		}
	}
}

// TestTargetsRefuseAbsentRegisters: simulator and image targets of a
// host-only controller have only its registers and refuse the others.
func TestTargetsRefuseAbsentRegisters(t *testing.T) {
	p := profile(t, "imx6q")
	c, _ := p.Controller("usbh1")
	img := imageOf(t, p, c)
	for _, open := range []func() (*Target, error){
		func() (*Target, error) { return OpenSim(p, c, SimOptions{}) },
		func() (*Target, error) { return OpenFile(p, c, img, true) },
	} {
		tg, err := open()
		if err != nil {
			t.Fatal(err)
		}
		if tg.Profile.Map.Register("OTGSC") != nil || tg.Profile.Map.Register("PERIODICLISTBASE") == nil {
			t.Errorf("%s: map is not the host-only one", tg)
		}
		if _, err := tg.Read32(0x120); !errors.Is(err, regs.ErrAbsent) || !strings.Contains(err.Error(), "DCIVERSION") {
			t.Errorf("%s: read of DCIVERSION = %v", tg, err)
		}
		// DCCPARAMS is there, HC=1 DC=0, in the simulator and the image.
		if v, err := tg.Read32(0x124); err != nil || v != 0x100 {
			t.Errorf("%s: host-only DCCPARAMS = %#x, %v; want 0x100", tg, v, err)
		}
		if err := tg.Write32(0x1A4, 0); !errors.Is(err, regs.ErrAbsent) {
			t.Errorf("%s: write of OTGSC = %v", tg, err)
		}
		if _, err := Take(tg.Profile.Map, tg); err != nil {
			t.Errorf("%s: snapshot: %v", tg, err)
		}
		tg.Close()
	}
	// The OTG controller keeps its device registers.
	o, _ := p.Controller("usbotg")
	tg, err := OpenSim(p, o, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := tg.Read32(0x124); err != nil || v != 0x188 {
		t.Errorf("usbotg DCCPARAMS = %#x, %v", v, err)
	}
}

// ReadsAsZero follows the emulated profile's read_as_zero ranges, edges
// included, and is false on a real SoC's profile.
func TestReadsAsZero(t *testing.T) {
	q := profile(t, "qemu-sabrelite")
	for off, want := range map[uint32]bool{0x000: true, 0x0FC: true, 0x100: false, 0x1A0: false, 0x1A4: true, 0x1DC: true, 0x1E0: false} {
		if got := q.ReadsAsZero(off); got != want {
			t.Errorf("qemu-sabrelite: ReadsAsZero(%#x) = %v", off, got)
		}
	}
	if profile(t, "imx6q").ReadsAsZero(0) {
		t.Error("imx6q: ReadsAsZero(0)")
	}
}
