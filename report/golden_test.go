package report

import (
	"bytes"
	"io"
	"testing"
)

func TestGolden(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		opt   Options
		write func(io.Writer, []*Sweep, Options) error
	}{
		{"table-grid.txt", []string{"grid"}, Options{Points: []string{"ITC=8 AHBBRST=7", "ITC=1,AHBBRST=2", "#5"}}, WriteText},
		{"table-ofat.txt", []string{"ofat"}, Options{Top: 3}, WriteText},
		{"table-interrupted.txt", []string{"interrupted"}, Options{}, WriteText},
		{"table-killed.txt", []string{"killed"}, Options{}, WriteText},
		{"table-resumed.txt", []string{"resumed"}, Options{}, WriteText},
		{"table-adaptive.txt", []string{"adaptive"}, Options{}, WriteText},
		{"markdown-adaptive.md", []string{"adaptive"}, Options{}, WriteMarkdown},
		{"table-compare.txt", []string{"grid", "imx6ul"}, Options{Points: []string{"ITC=8 AHBBRST=7"}}, WriteText},
		{"markdown-grid.md", []string{"grid"}, Options{}, WriteMarkdown},
		{"markdown-killed.md", []string{"killed"}, Options{}, WriteMarkdown},
		{"markdown-compare.md", []string{"grid", "imx6ul"}, Options{}, WriteMarkdown},
		{"fleet.txt", []string{"fleet-q-a", "fleet-q-b", "fleet-ul"}, Options{}, WriteText},
		{"fleet.md", []string{"fleet-q-a", "fleet-q-b", "fleet-ul"}, Options{}, WriteMarkdown},
		{"fleet-differs.txt", []string{"fleet-q-a", "fleet-q-b", "fleet-q-c"}, Options{}, WriteText},
		{"fleet-unnamed.txt", []string{"grid", "imx6ul", "ofat"}, Options{Fleet: true}, WriteText},
		{"csv-grid.csv", []string{"grid"}, Options{}, func(w io.Writer, ss []*Sweep, _ Options) error { return WriteCSV(w, ss) }},
		{"csv-compare.csv", []string{"grid", "imx6ul", "ofat"}, Options{}, func(w io.Writer, ss []*Sweep, _ Options) error { return WriteCSV(w, ss) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := c.write(&b, load(t, c.files...), c.opt); err != nil {
				t.Fatal(err)
			}
			golden(t, c.name, b.Bytes())
		})
	}
}
