package soc

import "testing"

// The locator's indexed paths and their fallback to the enclosing table.
func TestLocator(t *testing.T) {
	src := `name = "x"           # 1
[[controller]]               # 2
label = "a"                  # 3
[[controller]]               # 4
label = "b"                  # 5
roles = [                    # 6
  "host",                    # 7
  "device",                  # 8
]                            # 9
[[register]]                 # 10
name = "R"                   # 11
field = [{ name = "F", values = [{ value = 1 },   # 12
   { value = 2 }] }]         # 13
[reset]                      # 14
"odd.name" = 1               # 15
[[knob]]                     # 16
field = "A"                  # 17
desc = """                   # 18
[[knob]]
field = "C"
"""                          # 21
[[knob]]                     # 22
field = "B"                  # 23
`
	l := newLocator("t.toml", []byte(src), nil)
	tests := []struct {
		path string
		line int
	}{
		{"name", 1},
		{"controller[0].label", 3},
		{"controller[1]", 4},
		{"controller[1].roles[1]", 8},
		{"controller[1].base", 4}, // missing: the table header
		{"register[0].field[0].values[1].value", 13},
		{"register[0].field[0].bits", 12},
		{`reset."odd.name"`, 15},
		{`reset."nope"`, 14},
		{"nothing.at.all", 1},
		// A multi-line string that looks like tables.
		{"knob[0].desc", 18},
		{"knob[1]", 22},
		{"knob[1].field", 23},
	}
	for _, tt := range tests {
		if got := l.line(l.at(tt.path)); got != tt.line {
			t.Errorf("at(%s) = %d, want %d", tt.path, got, tt.line)
		}
	}
}
