package soc

import (
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
