package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/citune/citune/sweep/rank"
	"github.com/citune/citune/sweep/results"
)

// payload is the markup appended to the string number k of a results
// file: a script element, an attribute break-out with an event handler
// and an svg, the end of the style element, a javascript: URL, an
// element and an attribute of a name no page has (xinj), an unclosed
// comment and a CDATA end. "alert(k)" marks where each string lands.
func payload(k int) string {
	return fmt.Sprintf(`<script>alert(%d)</script>"><svg onload=alert(%d)><xinj xinj='1'></style><a href="javascript:alert(%d)">x</a>' onmouseover='alert(%d)<!--]]>`, k, k, k, k)
}

// injector appends a payload to every string of a results file, map
// keys included (the same string always gets the same payload, so the
// settings of a point still name the plan's axes), and remembers which
// JSON path each payload went to.
type injector struct {
	n     map[string]int   // string -> its payload number
	paths map[int][]string // payload number -> JSON paths
	skip  map[string]bool  // JSON keys whose values are not free text
}

func newInjector() *injector {
	// Only the fields the reader checks against a fixed set (record
	// types, formats, statuses, plan modes, axis kinds, event kinds) and
	// times keep their value: anything else would not be read at all.
	skip := map[string]bool{"type": true, "format": true, "status": true, "mode": true, "kind": true,
		"event": true, "time": true, "started": true, "hash": true, "sample": true}
	return &injector{n: map[string]int{}, paths: map[int][]string{}, skip: skip}
}

func (in *injector) str(s, path string) string {
	k, ok := in.n[s]
	if !ok {
		k = len(in.n) + 1
		in.n[s] = k
	}
	in.paths[k] = append(in.paths[k], path)
	return s + payload(k)
}

func (in *injector) walk(v any, path string) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for key, x := range v {
			switch {
			case in.skip[key]:
				out[key] = x
			case key == "settings" || key == "originals" || key == "live":
				// Keyed by axis name: the keys are free text too.
				m, _ := x.(map[string]any)
				mm := map[string]any{}
				for mk, mx := range m {
					mm[in.str(mk, path+"."+key+"{key}")] = in.walk(mx, path+"."+key+"{}")
				}
				out[key] = mm
			default:
				out[key] = in.walk(x, path+"."+key)
			}
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = in.walk(x, path+"[]")
		}
		return v
	case string:
		return in.str(v, path)
	}
	return v
}

// inject writes a copy of testdata/name.jsonl with a payload in every
// string, a unit of its own in every run (fps: so the unit is shown) and
// an error in the first run of every point that has none, and loads it
// through a file name and a DT generator that carry payloads too.
func (in *injector) inject(t *testing.T, dir, name string, dtsErr bool) *Sweep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, line := range bytes.Split(data, []byte("\n")) {
		var v map[string]any
		if err := json.Unmarshal(line, &v); err != nil {
			out.Write(line) // a cut line stays cut
			continue
		}
		if run, ok := v["run"].(map[string]any); ok {
			run["unit"] = "fps"
			if _, ok := run["detail"]; !ok {
				run["detail"] = "detail"
			}
		}
		if v["type"] == "end" {
			if _, ok := v["error"]; !ok {
				v["error"] = "end error"
			}
		}
		b, err := json.Marshal(in.walk(v, fmt.Sprint(v["type"])))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	// The file name is shown too (a slash cannot be in it).
	path := filepath.Join(dir, name+strings.ReplaceAll(payload(0), "/", "")+".jsonl")
	in.paths[0] = []string{"file"}
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Skipf("the file system takes no such file name: %v", err)
	}
	dts := func(_ string, res *results.Results) (rank.Ranking, string, string, error) {
		rk := res.Rank(rank.Policy{})
		if dtsErr {
			return rk, "", "", errors.New("dts error" + in.str("dts error", "dts.error")[len("dts error"):])
		}
		return rk, in.str("&usbh1 {};", "dts.fragment"), in.str("ehci_hcd.log2_irq_thresh=0", "dts.kernel"), nil
	}
	s, err := Load(path, LoadOptions{Decide: dts})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHTMLInjection feeds markup into every string a results file can
// carry and checks that none of it reaches the page as markup: the page
// parses (as XML with encoding/xml, which needs no new module and is
// stricter than a browser's HTML parser: markup that a browser would take
// as text in a title is an element here), has no element or
// attribute the report does not write, no script, no event handler, no
// URL attribute, its style element is the report's own, and every
// payload that reached the page is there as text.
func TestHTMLInjection(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		o     Options
	}{
		{"grid", []string{"grid"}, Options{}},
		{"adaptive", []string{"adaptive"}, Options{}},
		{"killed", []string{"killed"}, Options{}},
		{"resumed", []string{"resumed"}, Options{}},
		{"interrupted", []string{"interrupted"}, Options{}},
		{"ofat", []string{"ofat"}, Options{}},
		{"compare", []string{"grid", "imx6ul"}, Options{}},
		{"fleet", []string{"fleet-q-a", "fleet-q-b", "fleet-ul"}, Options{}},
		{"fleet-differs", []string{"fleet-q-a", "fleet-q-b", "fleet-q-c"}, Options{}},
		{"fleet-unnamed", []string{"grid", "imx6ul", "ofat"}, Options{Fleet: true}},
	}
	// Where a payload must show up: every kind of string of the results
	// file format the page shows. Point keys and the notes of single
	// points carry payloads too but the page never shows them (points are
	// named by their settings; a point's note only picks the effect
	// method), so they are not looked for.
	want := []string{
		`^header\.profile$`, `^header\.controller$`, `^header\.node$`, `^header\.command\[\]$`,
		`^header\.kernel$`, `^header\.probe$`, `^header\.target$`, `^header\.role$`, `^header\.profile_file$`,
		`^header\.plan\.axes\[\]\.name$`, `^header\.plan\.axes\[\]\.values\[\]$`,
		`^header\.points\[\]\.settings\{\}$`, `^point\.settings\{key\}$`, `^header\.notes\[\]$`, `^header\.originals\{\}$`,
		`^header\.snapshot\.registers\[\]\.name$`,
		`^header\.board\.name$`, `^header\.board\.model$`, `^header\.board\.host$`,
		`^run\.run\.unit$`, `^point\.reason$`, `^point\.changed\[\]$`,
		`^event\.message$`, `^end\.error$`, `^file$`, `^dts\.fragment$`, `^dts\.kernel$`, `^dts\.error$`,
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := newInjector()
			dir := t.TempDir()
			var ss []*Sweep
			for i, f := range c.files {
				ss = append(ss, in.inject(t, dir, f, i == 1))
			}
			var b bytes.Buffer
			if err := WriteHTML(&b, ss, c.o); err != nil {
				t.Fatal(err)
			}
			text := checkPage(t, b.String())
			for k, paths := range in.paths {
				if strings.Contains(text, fmt.Sprintf("<script>alert(%d)<", k)) {
					for _, p := range paths {
						seen[p] = true
					}
				}
			}
		})
	}
	var got []string
	for p := range seen {
		got = append(got, p)
	}
	sort.Strings(got)
	for _, w := range want {
		re := regexp.MustCompile(w)
		found := false
		for _, p := range got {
			found = found || re.MatchString(p)
		}
		if !found {
			t.Errorf("no payload in %s reached the page as text (reached: %s)", w, strings.Join(got, " "))
		}
	}
}

// pageElements are the elements the report writes.
var pageElements = map[string]bool{
	"html": true, "head": true, "meta": true, "title": true, "style": true, "body": true, "main": true,
	"h1": true, "h2": true, "h3": true, "p": true, "span": true, "i": true, "strong": true, "code": true,
	"pre": true, "div": true, "section": true, "table": true, "thead": true, "tbody": true, "tr": true,
	"th": true, "td": true, "figure": true, "figcaption": true,
	"svg": true, "g": true, "text": true, "line": true, "rect": true, "circle": true, "path": true,
	"defs": true, "pattern": true,
}

// checkPage fails t on any markup in page the report does not write and
// returns the page's text (character data).
func checkPage(t *testing.T, page string) string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	d.Entity = map[string]string{}
	var text strings.Builder
	var stack []string
	figures, svgs := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page does not parse: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := tok.Name.Local
			stack = append(stack, n)
			if !pageElements[n] {
				t.Errorf("element <%s> in the page", n)
			}
			if n == "figure" {
				figures++
			}
			if n == "svg" {
				svgs++
				if len(stack) < 2 || stack[len(stack)-2] != "figure" {
					t.Errorf("an svg outside a figure: %v", stack)
				}
			}
			for _, a := range tok.Attr {
				an := strings.ToLower(a.Name.Local)
				switch {
				case strings.HasPrefix(an, "on"), an == "href", an == "src", an == "action", an == "formaction", an == "xinj", an == "srcdoc":
					t.Errorf("attribute %s=%q on <%s>", a.Name.Local, a.Value, n)
				case an == "style" && (strings.Contains(a.Value, "url(") && !strings.HasPrefix(a.Value, "url(#") || strings.Contains(a.Value, "expression") || strings.Contains(a.Value, "javascript")):
					t.Errorf("style %q on <%s>", a.Value, n)
				case (an == "fill" || an == "stroke") && strings.Contains(a.Value, "url(") && !regexp.MustCompile(`^url\(#[a-z0-9-]+\)$`).MatchString(a.Value):
					t.Errorf("%s=%q on <%s>", an, a.Value, n)
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && stack[len(stack)-1] == "style" {
				if strings.TrimSpace(string(tok)) != strings.TrimSpace(css) {
					t.Errorf("the style element holds more than the report's style sheet")
				}
			}
			text.Write(tok)
			text.WriteByte('\n')
		case xml.Comment:
			t.Errorf("a comment in the page: %.60q", tok)
		case xml.ProcInst, xml.Directive:
			if _, ok := tok.(xml.Directive); ok && strings.HasPrefix(string(tok.(xml.Directive)), "DOCTYPE") {
				continue
			}
			t.Errorf("%T in the page", tok)
		}
	}
	if svgs != figures {
		t.Errorf("%d svg elements in %d figures", svgs, figures)
	}
	return text.String()
}
