package soc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/citune/citune/profiles"
	"github.com/citune/citune/regs"
)

// The embedded profiles must all load strictly, and each profile's name
// must match its file name.
func TestEmbeddedProfilesLoad(t *testing.T) {
	ps, err := LoadAll(profiles.FS)
	if err != nil {
		t.Fatalf("LoadAll(profiles.FS): %v", err)
	}
	got := map[string]*Profile{}
	for _, p := range ps {
		got[p.Name] = p
	}
	for _, want := range []string{"imx6q", "imx6sl", "imx6sx", "imx6ul", "vf610", "qemu-sabrelite"} {
		if got[want] == nil {
			t.Errorf("profile %s is not embedded", want)
		}
	}
	for _, p := range ps {
		t.Run(p.Name, func(t *testing.T) {
			if p.File != p.Name+".toml" {
				t.Errorf("file %s holds profile %q", p.File, p.Name)
			}
			if err := p.Map.Validate(); err != nil {
				t.Errorf("map: %v", err)
			}
			if len(p.Sources) == 0 {
				t.Error("no sources")
			}
			for _, c := range p.Controllers {
				if want := fmt.Sprintf("%x.usb", c.Base); c.IRQ != want {
					t.Errorf("controller %s: irq %q, /proc/interrupts names it %q", c.Label, c.IRQ, want)
				}
				if want := fmt.Sprintf("usb@%x", c.Base); c.Node != want {
					t.Errorf("controller %s: node %q, want %q", c.Label, c.Node, want)
				}
			}
			if !hasCheck(p, "CAPLENGTH", 0xffff00ff, 0x01000040) {
				t.Error("no CAPLENGTH/HCIVERSION identity check")
			}
			if !p.Emulated && !hasCheck(p, "ID", 0x3f3f, 0x3a05) {
				t.Error("silicon profile without the ChipIdea ID/NID identity check")
			}
			if got, want := strings.Join(p.Reload.Modules, " "), "usb_storage ci_hdrc_imx ci_hdrc ehci_hcd"; got != want {
				t.Errorf("reload modules %q, want %q", got, want)
			}
			for _, k := range p.Knobs {
				if k.Driver == "" {
					t.Errorf("knob %s: no driver text", k.Field)
				}
			}
		})
	}
}

func hasCheck(p *Profile, reg string, mask, value uint32) bool {
	for _, c := range p.Identity {
		if c.Register == reg && c.Mask == mask && c.Value == value {
			return true
		}
	}
	return false
}

// The four profiles written from chipidea.md section 4.
func TestProfileFacts(t *testing.T) {
	type ctl struct {
		label string
		base  uint64
		size  uint32
		roles string
		dr    string
	}
	otg := func(l string, b uint64) ctl { return ctl{l, b, 0x200, "host device", "otg"} }
	tests := []struct {
		name       string
		compatible string
		ctls       []ctl
		sdis       []string // phrases the USBMODE.SDIS knob must contain
		allUnknown bool     // every reset value unknown (Vybrid)
	}{
		{
			name: "imx6sl", compatible: "fsl,imx6sl",
			ctls: []ctl{otg("usbotg1", 0x02184000), otg("usbotg2", 0x02184200), {"usbh", 0x02184400, 0x200, "host", "host"}},
			sdis: []string{"CI_HDRC_DISABLE_HOST_STREAMING", "host role only"},
		},
		{
			name: "imx6sx", compatible: "fsl,imx6sx",
			ctls: []ctl{otg("usbotg1", 0x02184000), otg("usbotg2", 0x02184200), {"usbh", 0x02184400, 0x200, "host", "host"}},
			sdis: []string{"CI_HDRC_DISABLE_HOST_STREAMING", "host role only"},
		},
		{
			name: "imx6ul", compatible: "fsl,imx6ull",
			ctls: []ctl{otg("usbotg1", 0x02184000), otg("usbotg2", 0x02184200)},
			sdis: []string{"c7721e15f434", "CI_HDRC_DISABLE_DEVICE_STREAMING", "v5.10", "kernel version"},
		},
		{
			name: "vf610", compatible: "fsl,vf610",
			ctls:       []ctl{{"usbdev0", 0x40034000, 0x800, "device", "peripheral"}, {"usbh1", 0x400b4000, 0x800, "host", "host"}},
			sdis:       []string{"fsl,imx27-usb", "CI_HDRC_DISABLE_STREAMING", "both roles"},
			allUnknown: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := LoadFS(profiles.FS, tt.name+".toml")
			if err != nil {
				t.Fatal(err)
			}
			if !contains(p.Compatible, tt.compatible) {
				t.Errorf("compatible %v lacks %s", p.Compatible, tt.compatible)
			}
			if len(p.Controllers) != len(tt.ctls) {
				t.Fatalf("%d controllers, want %d", len(p.Controllers), len(tt.ctls))
			}
			for i, w := range tt.ctls {
				c := p.Controllers[i]
				got := ctl{c.Label, c.Base, c.Size, JoinRoles(c.Roles, " "), c.DRMode}
				if got != w {
					t.Errorf("controller %d = %+v, want %+v", i, got, w)
				}
			}
			k := p.Knob(mustRef(t, p.Map, "USBMODE.SDIS"))
			if k == nil {
				t.Fatal("no USBMODE.SDIS knob")
			}
			for _, phrase := range tt.sdis {
				if !strings.Contains(k.None+" "+k.Driver, phrase) {
					t.Errorf("SDIS knob does not say %q:\n%s\n%s", phrase, k.None, k.Driver)
				}
			}
			for _, r := range p.Map.Registers {
				switch {
				case tt.allUnknown && r.ResetKnown:
					t.Errorf("register %s: reset %#x known; no Vybrid reset value is", r.Name, r.Reset)
				case !tt.allUnknown && r.Name == "TTCTRL" && (!r.ResetKnown || r.Reset != 0):
					t.Errorf("TTCTRL reset %#x known %v; chipidea,usb2-common.yaml gives TTHA's default 0", r.Reset, r.ResetKnown)
				case !tt.allUnknown && r.Name == "USBCMD" && (!r.ResetKnown || r.Reset != 0x00080000):
					t.Errorf("USBCMD reset %#x known=%v, want the SDK's 0x00080000", r.Reset, r.ResetKnown)
				}
			}
			if tt.allUnknown && !strings.Contains(p.Notes, "reset values are known") {
				t.Errorf("notes do not say that no reset values are known: %s", p.Notes)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func mustRef(t *testing.T, m *regs.Map, name string) regs.Ref {
	t.Helper()
	ref, err := m.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// Each bad fixture holds exactly one mistake. The error must name the file,
// the line of the mistake and the key. line is checked twice: against the
// error, and against the fixture itself (mark must be on that line), so a
// wrong number in this table cannot make a wrong loader pass.
func TestBadProfiles(t *testing.T) {
	tests := []struct {
		name string
		file string
		line int
		mark string // text on that line of the fixture
		key  string // text the error must contain
	}{
		{"unknown key in a controller", "bad-unknown-key.toml", 25, "basse = 0x02184200", `"controller.basse" (did you mean "base"?)`},
		{"unknown key in an inline table", "bad-inline-key.toml", 31, `nmae = "SLOW"`, `"register.field.values.nmae"`},
		{"key with the wrong case", "bad-key-case.toml", 23, `Label = "usbh1"`, `"controller.Label" (did you mean "label"?)`},
		{"field outside 32 bits", "bad-bits-outside.toml", 28, `bits = "32:30"`, "register.field.bits"},
		{"overlapping fields", "bad-overlap.toml", 32, `bits = "7:3"`, "LEVEL: bits 7:3 overlap field MODE"},
		{"enum value that does not fit", "bad-enum-fit.toml", 32, `value = 4, name = "TURBO"`, "TURBO = 4 does not fit in 2 bit(s)"},
		{"misaligned register offset", "bad-misaligned.toml", 28, "offset = 0x142", "offset 0x142 is not 32-bit aligned"},
		{"duplicate offset", "bad-dup-offset.toml", 24, "offset = 0x160", "offset 0x160 is already used by register BURSTSIZE"},
		{"duplicate controller label", "bad-dup-label.toml", 32, `label = "usbh1"`, "controller usbh1: duplicate label"},
		{"identity with mask 0", "bad-identity-mask.toml", 15, "mask = 0", "mask is 0"},
		{"knob naming a missing field", "bad-knob-field.toml", 30, `field = "USBCMD.ITCC"`, `knob field "USBCMD.ITCC"`},
		{"TOML syntax error", "bad-syntax.toml", 20, "dr_mode = otg", "TOML syntax error"},
		{"wrong type in the first of two controllers", "bad-type.toml", 17, `size = "0x200"`, "controller.size: incompatible types"},
		{"[reset] of a missing register", "bad-reset-register.toml", 31, "PORTSC2 = 0x10000000", "reset.PORTSC2: no such register"},
		{"controller without base", "bad-missing-base.toml", 22, "[[controller]]", `controller usbh1: missing key "base"`},
		{"requires with a reserved value", "bad-requires.toml", 33, `requires = "SBUSCFG.AHBBRST=4"`, "requires \"SBUSCFG.AHBBRST=4\""},
		{"register outside the window", "bad-outside-window.toml", 33, "offset = 0x400", "FAR_AWAY at 0x400 lies outside"},
		{"reset known and unknown", "bad-reset-both.toml", 6, "reset_unknown = ", "TXFILLTUNING also has a value in [reset]"},
	}
	dir := filepath.Join("testdata", "profiles")
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.name, func(t *testing.T) {
			if got := fixtureLine(t, filepath.Join(dir, tt.file), tt.line); !strings.Contains(got, tt.mark) {
				t.Fatalf("test table: line %d of %s is %q, not the line with %q", tt.line, tt.file, got, tt.mark)
			}
			p, err := LoadFS(os.DirFS(dir), tt.file)
			if err == nil {
				t.Fatalf("loaded %s without error", tt.file)
			}
			if p != nil {
				t.Error("a profile was returned with the error")
			}
			if !errors.Is(err, ErrProfile) {
				t.Errorf("error does not wrap ErrProfile: %v", err)
			}
			msgs := strings.Split(err.Error(), "\n")
			if len(msgs) != 1 {
				t.Errorf("want exactly one error, got %d:\n%v", len(msgs), err)
			}
			prefix := fmt.Sprintf("%s:%d: ", tt.file, tt.line)
			if !strings.HasPrefix(msgs[0], prefix) {
				t.Errorf("error %q does not start with %q", msgs[0], prefix)
			}
			if !strings.Contains(msgs[0], tt.key) {
				t.Errorf("error %q does not name %q", msgs[0], tt.key)
			}
			// The same line with CRLF line ends and with a byte order mark.
			data, err := os.ReadFile(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			for variant, d := range map[string][]byte{
				"CRLF": bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")),
				"BOM":  append([]byte("\xef\xbb\xbf"), data...),
			} {
				_, err := Parse(tt.file, d)
				if err == nil || !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("%s: error %v does not start with %q", variant, err, prefix)
				}
			}
		})
	}
	// Every bad fixture is in the table.
	files, _ := filepath.Glob(filepath.Join(dir, "bad-*.toml"))
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("fixture %s is not tested", f)
		}
	}
}

func fixtureLine(t *testing.T, file string, n int) string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	return ""
}

// A profile with several mistakes reports all of them, in line order.
// A controller window larger than 0x1000 and identity checks that do not
// pin a ChipIdea core are refused too (see TestUnpinnedIdentity).
func TestErrorsInLineOrder(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `label = "usbh1"`, `label = "usbotg"`, 1)            // duplicate label
	bad = strings.Replace(bad, "offset = 0x1E0", "offset = 0x1E2", 1)                         // misaligned
	bad = strings.Replace(bad, "mask = 0x00003f3f", "mask = 0", 1)                            // identity mask 0
	bad = strings.Replace(bad, `field = "VENDOR_CTRL.MODE"`, `field = "VENDOR_CTRL.MOOD"`, 1) // no such field
	_, err = Parse("multi.toml", []byte(bad))
	if err == nil {
		t.Fatal("no error")
	}
	re := regexp.MustCompile(`^multi\.toml:(\d+): invalid profile: `)
	msgs := strings.Split(err.Error(), "\n")
	// The four mistakes, and the identity left unpinned by the mask-0 one.
	if len(msgs) != 5 || !strings.Contains(err.Error(), "do not pin the controller") {
		t.Fatalf("want 5 errors, got %d:\n%v", len(msgs), err)
	}
	prev := 0
	for _, m := range msgs {
		g := re.FindStringSubmatch(m)
		if g == nil {
			t.Fatalf("error %q is not FILE:LINE: invalid profile: ...", m)
		}
		n, _ := strconv.Atoi(g[1])
		if n < prev {
			t.Errorf("errors not in line order:\n%v", err)
		}
		prev = n
	}
}

// The valid fixture exercises adding and overriding registers.
func TestRegisterOverride(t *testing.T) {
	p, err := LoadFS(os.DirFS(filepath.Join("testdata", "profiles")), "good-board.toml")
	if err != nil {
		t.Fatal(err)
	}
	base := regs.ChipIdea().Register("BURSTSIZE")
	bs := p.Map.Register("BURSTSIZE")
	if bs.Offset != base.Offset || bs.Reset != base.Reset || bs.ResetKnown != base.ResetKnown || bs.Note != base.Note || bs.Desc != base.Desc {
		t.Errorf("override lost built-in values the profile left out: %+v", bs)
	}
	if f := bs.Field("TXPBURST"); f == nil || f.Width != 9 || f.Lsb != 8 || !f.Knob {
		t.Errorf("TXPBURST not replaced by the 16:8 field: %+v", f)
	}
	vc := p.Map.Register("VENDOR_CTRL")
	if vc == nil || vc.Offset != 0x1E0 || !vc.ResetKnown || vc.Reset != 5 || len(vc.Fields) != 2 {
		t.Fatalf("added register: %+v", vc)
	}
	if e := vc.Field("MODE").Enum(1); e == nil || e.Name != "SLOW" {
		t.Errorf("MODE value 1: %+v", e)
	}
	if r := p.Map.Register("TTCTRL"); !r.ResetKnown || r.Reset != 0 {
		t.Errorf("[reset] TTCTRL = 0 not applied: %+v", r)
	}
	for _, spec := range p.Registers {
		if want := spec.Name == "BURSTSIZE"; spec.IsReplace != want {
			t.Errorf("register %s: IsReplace = %v", spec.Name, spec.IsReplace)
		}
	}
	if p.Knob(mustRef(t, p.Map, "VENDOR_CTRL.MODE")) == nil {
		t.Error("knob on the added register not found")
	}
	// The built-in map is not modified by a profile.
	if f := regs.ChipIdea().Register("BURSTSIZE").Field("TXPBURST"); f.Width != 8 {
		t.Error("profile changed the built-in map")
	}
}

// The example in profiles/README.md is a complete, valid profile.
func TestREADMEExample(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "profiles", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	start := bytes.Index(doc, []byte("```toml\n"))
	if start < 0 {
		t.Fatal("README.md has no ```toml block")
	}
	rest := doc[start+len("```toml\n"):]
	end := bytes.Index(rest, []byte("```"))
	if end < 0 {
		t.Fatal("unterminated ```toml block")
	}
	p, err := Parse("README.md example", rest[:end])
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Controllers) == 0 || len(p.Knobs) == 0 || len(p.Registers) == 0 {
		t.Error("the example should show controllers, knobs and registers")
	}
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		in     string
		lo, hi uint32
		ok     bool
	}{
		{"0x000-0x0FF", 0, 0xff, true},
		{"0x1A4-0x1DF", 0x1a4, 0x1df, true},
		{"16-16", 16, 16, true},
		{"0x10-0x0F", 0, 0, false},
		{"0x10", 0, 0, false},
		{"a-b", 0, 0, false},
	}
	for _, tt := range tests {
		lo, hi, err := ParseRange(tt.in)
		if (err == nil) != tt.ok || tt.ok && (lo != tt.lo || hi != tt.hi) {
			t.Errorf("ParseRange(%q) = %#x, %#x, %v", tt.in, lo, hi, err)
		}
	}
}

func TestBitsText(t *testing.T) {
	tests := []struct {
		in       string
		msb, lsb uint
		ok       bool
	}{
		{"23:16", 23, 16, true},
		{"5", 5, 5, true},
		{" 31 : 0 ", 31, 0, true},
		{"0x1f:0x10", 31, 16, true},
		{"32:30", 0, 0, false},
		{"3:4", 0, 0, false},
		{"x", 0, 0, false},
	}
	for _, tt := range tests {
		var b Bits
		err := b.UnmarshalText([]byte(tt.in))
		if (err == nil) != tt.ok || tt.ok && (b.Msb != tt.msb || b.Lsb != tt.lsb) {
			t.Errorf("Bits(%q) = %+v, %v", tt.in, b, err)
		}
		if tt.ok {
			out, _ := b.MarshalText()
			var b2 Bits
			if err := b2.UnmarshalText(out); err != nil || b2 != b {
				t.Errorf("Bits %q does not round-trip: %q", tt.in, out)
			}
		}
	}
}

func TestUnpinnedIdentityAndHugeWindow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	// CAPLENGTH alone would pass any EHCI controller (or an unrelated
	// block that happens to read 0x01000040 there).
	only := regexp.MustCompile(`(?s)\[\[identity\]\]\nregister = "ID".*?why = "[^"]*"\n`).ReplaceAllString(string(data), "")
	if _, err := Parse("capl.toml", []byte(only)); err == nil || !strings.Contains(err.Error(), "do not pin the controller") {
		t.Errorf("CAPLENGTH-only identity accepted: %v", err)
	}
	// The emulated board's way: ID reads zero, CAPLENGTH/HCIVERSION pinned.
	zero := strings.Replace(string(data), "value = 0x00003a05", "value = 0", 1)
	if _, err := Parse("zero.toml", []byte(zero)); err != nil {
		t.Errorf("ID-zero with CAPLENGTH pinned refused: %v", err)
	}
	huge := strings.Replace(string(data), "size = 0x200", "size = 0x2000", 1)
	if _, err := Parse("huge.toml", []byte(huge)); err == nil || !strings.Contains(err.Error(), "larger than a controller window") {
		t.Errorf("0x2000 window accepted: %v", err)
	}
}

// A profile with thousands of errors reports a bounded number of them
// (each costs decodes of the text to place), with a count of the rest.
func TestManyErrorsBounded(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(data)
	for i := range 1000 {
		fmt.Fprintf(&b, "\n[[register]]\nname = \"R%d\"\noffset = %#x\n", i, 0x1001+4*i)
	}
	_, err = Parse("many.toml", []byte(b.String()))
	if err == nil {
		t.Fatal("no error")
	}
	msgs := strings.Split(err.Error(), "\n")
	if len(msgs) != maxProblems+1 || !strings.HasSuffix(msgs[len(msgs)-1], "more problems not shown (fix these first)") {
		t.Fatalf("%d lines, want %d and a count of the rest; last: %q", len(msgs), maxProblems+1, msgs[len(msgs)-1])
	}
	if !strings.HasPrefix(msgs[0], "many.toml:") || !strings.Contains(msgs[0], "R0") {
		t.Errorf("first error %q", msgs[0])
	}
}

// A 100 000-deep nesting (a hostile profile) is refused like any unknown
// key; the locator does not build every prefix of it (that was
// quadratic: over a minute).
func TestDeepNestingRefused(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profiles", "good-board.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const depth = 100_000
	deep := string(data) + "\nx = " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + "\n"
	_, err = Parse("deep.toml", []byte(deep))
	if err == nil || !strings.Contains(err.Error(), `unknown key`) || !strings.HasPrefix(err.Error(), "deep.toml:") {
		t.Fatalf("deep nesting: %v", err)
	}
}
