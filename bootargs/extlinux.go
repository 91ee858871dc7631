package bootargs

import (
	"fmt"
	"os"
	"strings"
)

// extlinux is extlinux.conf (U-Boot's distro boot and syslinux): the
// default entry's (or the first entry's) append and fdtoverlays lines.
// It has no boot counter: a point's arguments stay until the next write.
type extlinux struct{ path string }

func (e *extlinux) Kind() string   { return KindExtlinux }
func (e *extlinux) Config() string { return e.path }
func (e *extlinux) Describe() string {
	return "extlinux.conf (" + e.path + ", the default entry's append line; no boot counter)"
}

// keyword maps the store's variable names to extlinux keywords.
func keyword(name string) string {
	if name == "bootargs" {
		return "append"
	}
	return name
}

// entry finds the default entry's lines [start, end) in lines.
func entry(lines []string) (start, end int, err error) {
	def := ""
	for _, l := range lines {
		if k, v := split(l); k == "default" {
			def = v
		}
	}
	start = -1
	for i, l := range lines {
		k, v := split(l)
		if k != "label" {
			continue
		}
		if start >= 0 {
			return start, i, nil
		}
		if def == "" || v == def {
			start = i
		}
	}
	if start < 0 {
		return 0, 0, fmt.Errorf("no entry (label %q) found", def)
	}
	return start, len(lines), nil
}

func split(l string) (key, val string) {
	f := strings.Fields(l)
	if len(f) == 0 {
		return "", ""
	}
	return strings.ToLower(f[0]), strings.TrimSpace(strings.TrimSpace(l)[len(f[0]):])
}

func (e *extlinux) lines() ([]string, int, int, error) {
	b, err := os.ReadFile(e.path)
	if err != nil {
		return nil, 0, 0, err
	}
	lines := strings.Split(string(b), "\n")
	s, end, err := entry(lines)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", e.path, err)
	}
	return lines, s, end, nil
}

func (e *extlinux) Get(name string) (string, bool, error) {
	lines, s, end, err := e.lines()
	if err != nil {
		return "", false, err
	}
	for _, l := range lines[s+1 : end] {
		if k, v := split(l); k == keyword(name) {
			return v, true, nil
		}
	}
	return "", false, nil
}

func (e *extlinux) Set(vals map[string]*string) error {
	for _, v := range vals {
		if v != nil && strings.ContainsAny(*v, "\n\r") {
			return fmt.Errorf("%s: a value cannot hold a newline", e.path)
		}
	}
	lines, s, end, err := e.lines()
	if err != nil {
		return err
	}
	out := append([]string{}, lines[:s+1]...)
	indent := "\t"
	done := map[string]bool{}
	for _, l := range lines[s+1 : end] {
		k, _ := split(l)
		if t := strings.TrimSpace(l); t != "" {
			indent = l[:strings.Index(l, t)]
		}
		found := false
		for n, v := range vals {
			if k == keyword(n) {
				found, done[n] = true, true
				if v != nil {
					out = append(out, indent+keyword(n)+" "+*v)
				}
			}
		}
		if !found {
			out = append(out, l)
		}
	}
	// New lines go after the entry's last non-blank line.
	at := len(out)
	for at > s+1 && strings.TrimSpace(out[at-1]) == "" {
		at--
	}
	var add []string
	for _, n := range []string{"bootargs", "fdtoverlays"} {
		if v, ok := vals[n]; ok && v != nil && !done[n] {
			add = append(add, indent+keyword(n)+" "+*v)
		}
	}
	out = append(append(append([]string{}, out[:at]...), add...), out[at:]...)
	out = append(out, lines[end:]...)
	return writeAtomic(e.path, []byte(strings.Join(out, "\n")))
}
