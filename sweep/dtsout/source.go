package dtsout

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Source is what a device-tree fragment or overlay asks of one node
// (citune's or a hand-written one): the node's label or path, its
// single-cell and boolean properties, and the kernel parameters its
// comments give (module.param=value).
type Source struct {
	Label, Path string
	Props       map[string]uint32
	Params      []string
}

// The expressions are compiled on first use (compileSource), not at
// start-up: every command links this package, few read a .dts, and a
// package without init code costs a register command nothing
// (bench/startup.sh).
var (
	srcOnce                                       sync.Once
	srcProp, srcBool, srcLabel, srcPath, srcParam *regexp.Regexp
)

func compileSource() {
	srcOnce.Do(func() {
		srcProp = regexp.MustCompile(`^([a-z0-9,#_-]+)\s*=\s*<\s*(0x[0-9a-fA-F]+|[0-9]+)\s*>\s*;$`)
		srcBool = regexp.MustCompile(`^([a-z0-9,_-]+)\s*;$`)
		srcLabel = regexp.MustCompile(`^&([A-Za-z_][A-Za-z0-9_]*)\s*\{|^target\s*=\s*<\s*&([A-Za-z_][A-Za-z0-9_]*)\s*>\s*;`)
		srcPath = regexp.MustCompile(`^target-path\s*=\s*"([^"]+)"\s*;|^&\{([^}]+)\}\s*\{`)
		srcParam = regexp.MustCompile(`^\*?\s*([a-z0-9_-]+\.[a-z0-9_-]+=[^\s*]+)`)
	})
}

// boolProp says whether a DT property is a boolean, and the value the
// field takes when it is present (a switch, not a map: no init code).
func boolProp(name string) (uint32, bool) {
	switch name {
	case "non-zero-ttctrl-ttha":
		return 0x7f, true
	}
	return 0, false
}

// ParseSource reads the text of a .dts fragment or .dtso overlay. Only
// lines that hold one property each are read (as citune writes them);
// kernel parameters are taken from comment lines that start with one,
// and from a bootargs text (the FILE.bootargs beside an overlay), one
// per parameter.
func ParseSource(text, bootargs string) Source {
	compileSource()
	s := Source{Props: map[string]uint32{}}
	inComment := false
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if inComment {
			end := strings.Index(l, "*/")
			if m := srcParam.FindStringSubmatch(l); m != nil && (end < 0 || end > len(m[0])) {
				s.Params = append(s.Params, m[1])
			}
			if end < 0 {
				continue
			}
			inComment, l = false, strings.TrimSpace(l[end+2:])
		}
		l = strings.TrimSpace(stripInline(l))
		if i := strings.Index(l, "/*"); i >= 0 {
			inComment, l = true, strings.TrimSpace(l[:i])
		}
		if m := srcLabel.FindStringSubmatch(l); m != nil {
			s.Label = m[1] + m[2]
		} else if m := srcPath.FindStringSubmatch(l); m != nil {
			s.Path = m[1] + m[2]
		} else if m := srcProp.FindStringSubmatch(l); m != nil {
			if v, err := strconv.ParseUint(m[2], 0, 32); err == nil {
				s.Props[m[1]] = uint32(v)
			}
		} else if m := srcBool.FindStringSubmatch(l); m != nil {
			if v, ok := boolProp(m[1]); ok {
				s.Props[m[1]] = v
			}
		}
	}
	for _, f := range strings.Fields(bootargs) {
		if m := srcParam.FindStringSubmatch(f); m != nil {
			s.Params = append(s.Params, m[1])
		}
	}
	// One per parameter, at its first place: the last value, as the
	// kernel takes it (the bootargs file after the comments).
	var out []string
	at := map[string]int{}
	for _, p := range s.Params {
		n, _, _ := strings.Cut(p, "=")
		if i, ok := at[n]; ok {
			out[i] = p
			continue
		}
		at[n] = len(out)
		out = append(out, p)
	}
	s.Params = out
	return s
}

// stripInline removes every comment that opens and closes on line l.
func stripInline(l string) string {
	for {
		before, rest, opens := strings.Cut(l, "/*")
		_, after, closes := strings.Cut(rest, "*/")
		if !opens || !closes {
			return l
		}
		l = before + after
	}
}
