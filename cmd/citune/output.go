package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/report"
	"github.com/citune/citune/soc"
	"github.com/citune/citune/sweep/results"
	"github.com/citune/citune/textwrap"
)

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

type jsonField struct {
	Name    string  `json:"name"`
	Bits    string  `json:"bits"`
	Access  string  `json:"access"`
	Value   uint32  `json:"value"`
	Meaning string  `json:"meaning,omitempty"`
	Knob    bool    `json:"knob,omitempty"`
	Changed bool    `json:"changed,omitempty"`
	Reset   *uint32 `json:"reset,omitempty"`
	Illegal bool    `json:"illegal,omitempty"`
}

type jsonReg struct {
	Name        string      `json:"name"`
	Offset      string      `json:"offset"`
	Raw         string      `json:"raw"`
	Value       uint32      `json:"value"`
	Reset       string      `json:"reset,omitempty"`
	ResetSource string      `json:"reset_source,omitempty"`
	Changed     bool        `json:"changed,omitempty"`
	UnknownBits string      `json:"unknown_bits,omitempty"`
	Note        string      `json:"note,omitempty"`
	Fields      []jsonField `json:"fields,omitempty"`
}

func toJSONReg(d regs.Decoded) jsonReg {
	r := d.Reg
	j := jsonReg{Name: r.Name, Offset: fmt.Sprintf("0x%03x", r.Offset), Raw: regs.Hex(d.Raw), Value: d.Raw, Changed: d.Changed, Note: r.Note, ResetSource: r.Source,
		Reset: resetHex(r)}
	if d.Unknown != 0 {
		j.UnknownBits = regs.Hex(d.Unknown)
	}
	for _, fv := range d.Fields {
		f := fv.Field
		jf := jsonField{Name: f.Name, Bits: f.Bits(), Access: f.Access.String(), Value: fv.Value, Meaning: fv.Meaning, Knob: f.Knob, Changed: fv.Changed, Illegal: fv.Illegal}
		if r.ResetKnown {
			jf.Reset = new(fv.Reset)
		}
		j.Fields = append(j.Fields, jf)
	}
	return j
}

// resetHex is r's reset value in hex, "" when it is unknown.
func resetHex(r *regs.Register) string {
	if !r.ResetKnown {
		return ""
	}
	return regs.Hex(r.Reset)
}

// infoOf is t as every --json's "target" gives it (docs/json.md).
func infoOf(t *soc.Target) report.JSONTarget {
	return report.JSONTarget{Profile: t.Profile.Name, Controller: t.Controller.Label, Node: t.Controller.Node,
		Base: fmt.Sprintf("%#08x", t.Controller.Base), Kind: string(t.Kind), Path: t.Path(), Simulated: t.Kind == soc.KindSim}
}

// header is the first line of human output: what is being looked at.
func header(t *soc.Target) string {
	s := fmt.Sprintf("%s %s (%s @ %#08x)", t.Profile.Name, t.Controller.Label, t.Controller.Node, t.Controller.Base)
	switch t.Kind {
	case soc.KindSim:
		s += " - simulated controller"
	case soc.KindFile:
		s += " - image " + t.Path()
	default:
		s += " - /dev/mem"
	}
	return s
}

// termWidth is the width human output is wrapped to on a terminal whose
// size is unknown: a serial console is 80 columns.
const termWidth = 80

// lineWrapper wraps each complete line longer than width at spaces.
type lineWrapper struct {
	w     io.Writer
	width int
	buf   []byte
}

func (l *lineWrapper) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := strings.IndexByte(string(l.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := textwrap.Line(string(l.buf[:i]), l.width)
		l.buf = l.buf[i+1:]
		if _, err := io.WriteString(l.w, line); err != nil {
			return len(p), err
		}
	}
}

// humanOut wraps w to the terminal's width (80 when unknown) when it is a
// terminal; files and pipes get whole lines.
func humanOut(w io.Writer, tty bool) io.Writer {
	if !tty {
		return w
	}
	width := termWidth
	if f, ok := w.(*os.File); ok {
		if c := terminalCols(f); c > 20 {
			width = c
		}
	}
	return &lineWrapper{w: w, width: width}
}

// existsError is an output file that exists and was not to be replaced:
// fs.ErrExist (the TUI asks before replacing); the CLI's advice names --force.
type existsError struct{ path string }

func (e *existsError) Error() string        { return e.path + " exists" }
func (e *existsError) Is(target error) bool { return target == fs.ErrExist }

// checkOutput says whether path may be written as an output file: never
// through a symbolic link, over a directory or a citune results file
// (--force or not), and over another file only when replace is set.
func checkOutput(path string, replace bool) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link: citune does not write output through one (give the real path)", path)
	case fi.IsDir():
		return fmt.Errorf("%s is a directory: give a file name", path)
	case results.IsFile(path):
		return fmt.Errorf("%s is a citune results file: citune never writes over one (give another file name)", path)
	case !replace:
		return &existsError{path}
	}
	return nil
}

// writeOutput writes an output file after checkOutput, never through a
// symlink (a link planted in a shared directory must not make a root
// process overwrite its target).
func writeOutput(path string, data []byte, replace bool) error {
	if err := checkOutput(path, replace); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_CREATE | oNoFollow
	if replace {
		flags |= os.O_TRUNC
	} else {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ELOOP):
			return fmt.Errorf("%s is a symbolic link: citune does not write output through one (give the real path)", path)
		case errors.Is(err, fs.ErrExist):
			return &existsError{path} // created since the check
		}
		return err
	}
	_, err = f.Write(data)
	return cmp.Or(err, f.Close())
}
