package soc

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// A profile's text reaches terminals (detect, dump, dts): one that carries
// an escape sequence, written raw or as a TOML escape, is refused at load
// with the key that holds it.
func TestProfileControlText(t *testing.T) {
	data, err := os.ReadFile("../profiles/imx6q.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, title := range []string{`"x\u001b]0;pwned\u0007"`, "\"x\x1b[2J\"", `"\u202eevil"`} {
		bad := strings.Replace(string(data), `title = "NXP i.MX6Q/DL (Quad, Dual, DualLite, Solo)"`, "title = "+title, 1)
		if bad == string(data) {
			t.Fatal("the test's title line is not in imx6q.toml")
		}
		_, err := Parse("bad.toml", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), "title") || !strings.Contains(err.Error(), "control character") {
			t.Errorf("title %s: %v, want a refusal naming the title", title, err)
		}
	}
	if _, err := Parse("imx6q.toml", data); err != nil {
		t.Errorf("the built-in profile: %v", err)
	}
}

// A profile with thousands of entries is refused before the checks that
// compare them with each other (which cost the square of their number).
func TestProfileTooManyEntries(t *testing.T) {
	data, err := os.ReadFile("testdata/profiles/bad-outside-window.toml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.Write(data)
	for k := range 3000 {
		fmt.Fprintf(&b, "\n[[register]]\nname = \"FAR%d\"\noffset = 0x%x\n", k, 0x800+4*k)
	}
	_, err = Parse("big.toml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "a profile has at most 1024") {
		t.Fatalf("3000 registers: %v", err)
	}
}
