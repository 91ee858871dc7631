package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"testing"
)

// TestHTML checks that the page is well-formed (the whole page parses as
// XML, and so every inline SVG), self-contained, and has every chart and
// table.
func TestHTML(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  []string // element ids
		not   []string
	}{
		{"grid", []string{"grid"}, []string{"summary", "rates", "heatmap", "scatter", "excluded", "effects", "dts", "header", "registers", "legend"}, nil},
		// Four axes one at a time: no heat map.
		{"ofat", []string{"ofat"}, []string{"summary", "rates", "scatter", "effects", "dts", "header", "registers"}, []string{"heatmap", "excluded"}},
		{"adaptive", []string{"adaptive"}, []string{"summary", "rates", "heatmap", "scatter", "eliminated", "effects", "dts", "header", "registers"}, []string{"excluded"}},
		{"killed", []string{"killed"}, []string{"summary", "rates", "heatmap", "scatter", "effects", "dts", "header", "registers"}, []string{"excluded"}},
		{"compare", []string{"grid", "imx6ul"}, []string{"compare-summary", "compare-chart", "compare-points",
			"summary-1", "rates-1", "heatmap-1", "scatter-1", "excluded-1", "effects-1", "dts-1", "header-1", "registers-1",
			"summary-2", "rates-2", "heatmap-2", "scatter-2", "effects-2", "dts-2", "header-2", "registers-2"}, []string{"excluded-2"}},
		// Three boards of two SoCs: the fleet section, a chart per SoC.
		{"fleet", []string{"fleet-q-a", "fleet-q-b", "fleet-ul"}, []string{"fleet", "fleet-summary",
			"fleet-1-boards", "fleet-1-chart", "fleet-1-points", "fleet-1-verdict",
			"fleet-2-boards", "fleet-2-chart", "fleet-2-points", "fleet-2-verdict",
			"summary-1", "rates-1", "summary-3", "rates-3"}, []string{"compare-chart", "fleet-3-chart"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteHTML(&b, load(t, c.files...), Options{}); err != nil {
				t.Fatal(err)
			}
			page := b.String()
			ids, svgs := parsePage(t, page)
			for _, id := range c.want {
				if !ids[id] {
					t.Errorf("no element with id %q", id)
				}
			}
			for _, id := range c.not {
				if ids[id] {
					t.Errorf("element %q should not be there", id)
				}
			}
			if svgs < 2 {
				t.Errorf("%d svg elements", svgs)
			}
			// Self-contained: no scripts, nothing loaded from elsewhere.
			for _, bad := range []string{"<script", "<link", "<img", "<iframe", "@import", "url(http", "src="} {
				if strings.Contains(page, bad) {
					t.Errorf("page contains %q", bad)
				}
			}
			for _, m := range regexp.MustCompile(`https?://[^"' <]*`).FindAllString(page, -1) {
				if m != "http://www.w3.org/2000/svg" {
					t.Errorf("page refers to %s", m)
				}
			}
			if strings.Contains(c.name, "grid") && !strings.Contains(page, "CORRUPT DATA") {
				t.Error("the corrupt point is not shown prominently")
			}
		})
	}
}

// parsePage parses the page as XML and returns the ids of its elements
// and the number of svg elements, each of which must be well-formed SVG
// (the SVG namespace, a viewBox, numeric sizes).
func parsePage(t *testing.T, page string) (map[string]bool, int) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict = true
	d.Entity = map[string]string{}
	ids := map[string]bool{}
	svgs := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		for _, a := range se.Attr {
			if a.Name.Local == "id" {
				if ids[a.Value] {
					t.Errorf("id %q twice", a.Value)
				}
				ids[a.Value] = true
			}
		}
		if se.Name.Local == "svg" {
			svgs++
			if se.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("svg in namespace %q", se.Name.Space)
			}
			attrs := map[string]string{}
			for _, a := range se.Attr {
				attrs[a.Name.Local] = a.Value
			}
			if !regexp.MustCompile(`^0 0 \d+ \d+$`).MatchString(attrs["viewBox"]) {
				t.Errorf("svg %s: viewBox %q", attrs["id"], attrs["viewBox"])
			}
		}
	}
	// Each svg again on its own, as an SVG file would be read.
	for _, m := range regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1) {
		var v struct {
			XMLName xml.Name
		}
		if err := xml.Unmarshal([]byte(m), &v); err != nil || v.XMLName.Local != "svg" {
			t.Errorf("an svg does not parse on its own: %v", err)
		}
		if strings.Contains(m, "NaN") || strings.Contains(m, "Inf") {
			t.Errorf("an svg has NaN or Inf coordinates")
		}
	}
	return ids, svgs
}
