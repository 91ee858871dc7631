package soc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func simField(t *testing.T, tg *Target, name string) uint32 {
	t.Helper()
	ref, err := tg.Profile.Map.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	v, err := tg.Read32(ref.Reg.Offset)
	if err != nil {
		t.Fatal(err)
	}
	return ref.Field.Get(v)
}

// The simulated controller starts where Linux leaves a board, per role;
// the reset values are one option away.
func TestSimStartsAtBoardValues(t *testing.T) {
	cases := []struct {
		profile, controller string
		opts                SimOptions
		want                map[string]uint32
		driver              bool
	}{
		{"imx6q", "usbh1", SimOptions{}, map[string]uint32{"AHBBRST": 0, "TXPBURST": 16, "RXPBURST": 16, "ITC": 1, "SDIS": 1, "CM": 3}, true},
		{"imx6q", "usbh1", SimOptions{ResetValues: true}, map[string]uint32{"AHBBRST": 2, "TXPBURST": 0, "ITC": 8, "SDIS": 0, "CM": 0}, false},
		{"imx6q", "usbh1", SimOptions{Driver: SimDriverOff}, map[string]uint32{"ITC": 1}, false},
		{"imx6sx", "usbotg1", SimOptions{}, map[string]uint32{"AHBBRST": 0, "SDIS": 0, "CM": 2, "ITC": 1}, false},
		{"imx6sx", "usbotg1", SimOptions{Role: "host"}, map[string]uint32{"SDIS": 1, "CM": 3}, true},
		{"imx6ul", "usbotg1", SimOptions{}, map[string]uint32{"SDIS": 1, "CM": 2}, false},
		{"vf610", "usbh1", SimOptions{}, map[string]uint32{"AHBBRST": 2, "ITC": 1, "SDIS": 1, "CM": 3}, true},
	}
	for _, c := range cases {
		p := profile(t, c.profile)
		ctl, err := p.Controller(c.controller)
		if err != nil {
			t.Fatal(err)
		}
		tg, err := OpenSim(p, ctl, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		for f, want := range c.want {
			if got := simField(t, tg, f); got != want {
				t.Errorf("%s %s %+v: %s = %d, want %d", c.profile, c.controller, c.opts, f, got, want)
			}
		}
		if tg.simr.DriverModelled() != c.driver {
			t.Errorf("%s %s %+v: driver modelled %v, want %v", c.profile, c.controller, c.opts, tg.simr.DriverModelled(), c.driver)
		}
		if err := tg.Identify(); err != nil {
			t.Errorf("%s %s: %v", c.profile, c.controller, err)
		}
	}
}

// Every board value names its source.
func TestBoardValuesHaveSources(t *testing.T) {
	for _, name := range []string{"imx6q", "imx6sl", "imx6sx", "imx6ul", "vf610", "qemu-sabrelite"} {
		p := profile(t, name)
		if len(p.Board) == 0 {
			t.Errorf("%s declares no board values", name)
		}
		for _, b := range p.Board {
			if len(b.Source) < 20 {
				t.Errorf("%s %s: source %q", name, b.Field, b.Source)
			}
		}
	}
}

func TestBadBoardValues(t *testing.T) {
	base, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for extra, want := range map[string]string{
		"[[board]]\nfield = \"USBCMD.ITCC\"\nvalue = 1\nsource = \"x\"\n":                        `board field "USBCMD.ITCC"`,
		"[[board]]\nfield = \"SBUSCFG.AHBBRST\"\nvalue = 9\nsource = \"a dtsi says so\"\n":       "value 9 does not fit the field's 3 bits",
		"[[board]]\nfield = \"SBUSCFG.AHBBRST\"\nvalue = 0\n":                                    "say where the value comes from",
		"[[board]]\nfield = \"USBMODE.SDIS\"\nvalue = 1\nroles = [\"otg\"]\nsource = \"glue\"\n": `role "otg"`,
		"[[board]]\nvalue = 1\nsource = \"x\"\n":                                                 `missing key "field"`,
		"[[board]]\nfield = \"USBCMD\"\nvalue = 1\nsource = \"x\"\n":                             `board field "USBCMD": names register USBCMD; want REG.FIELD`,
		"[[knob]]\nfield = \"USBCMD\"\nnone = \"x\"\n":                                           `knob field "USBCMD": names register USBCMD; want REG.FIELD`,
		"[[knob]]\nnone = \"x\"\n":                                                               `knob #`,
	} {
		fsys := fstest.MapFS{"good-board.toml": {Data: append(append([]byte{}, base...), "\n"+extra...)}}
		_, err := LoadFS(fsys, "good-board.toml")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", extra, err, want)
		}
	}
}

// TestAssumedValue (issue 27, truth 8): a board value resting on an
// assumption is marked on the simulator and images, never on /dev/mem.
func TestAssumedValue(t *testing.T) {
	p := profile(t, "vf610")
	c, _ := p.Controller("usbh1")
	tg, err := OpenSim(p.ForController(c), c, SimOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	ref, _ := tg.Profile.Map.Lookup("SBUSCFG.AHBBRST")
	if s := tg.AssumedValue(ref, 2); !strings.HasPrefix(s, "assumed") {
		t.Errorf("sim AHBBRST=2: %q, want the assumption", s)
	}
	if s := tg.AssumedValue(ref, 0); s != "" {
		t.Errorf("sim AHBBRST=0 (not the assumed value): %q", s)
	}
	itc, _ := tg.Profile.Map.Lookup("USBCMD.ITC")
	if s := tg.AssumedValue(itc, 1); s != "" {
		t.Errorf("ITC=1 has a source, marked %q", s)
	}
	real := &Target{Profile: tg.Profile, Controller: c, Kind: KindDevMem}
	if s := real.AssumedValue(ref, 2); s != "" {
		t.Errorf("/dev/mem value marked assumed: %q", s)
	}
}
