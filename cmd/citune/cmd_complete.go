package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

func init() {
	register(&command{name: "completion", summary: "print a bash completion script", usage: "completion bash", run: runCompletion,
		noJSON: "it prints a shell script"})
}

// bashCompletion asks the binary itself for candidates, so field names and
// values always match its profiles.
const bashCompletion = `# bash completion for citune: source it, or put it in /etc/bash_completion.d.
# FIELD=VALUE words must stay whole, so '=' is no word break (as npm does).
COMP_WORDBREAKS=${COMP_WORDBREAKS//=/}
_citune() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local IFS=$'\n'
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "$cur"))
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
	return 0
}
complete -o default -F _citune citune
`

func runCompletion(a *app, args []string) error {
	fs := a.flags("completion")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if args = fs.Args(); len(args) != 1 || args[0] != "bash" {
		return usageErr("usage: citune completion bash")
	}
	fmt.Fprint(a.env.stdout, bashCompletion)
	return nil
}

// complete prints completion candidates for the words typed so far (the
// last one is the word being completed). It is the hidden `__complete`
// command the bash script calls; it never touches hardware.
func complete(a *app, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	prev := ""
	if len(words) > 1 {
		prev = words[len(words)-2]
	}
	profile, ctl, cmd := "", "", ""
	for i := 0; i < len(words)-1; i++ {
		w := words[i]
		switch {
		case (w == "--controller" || w == "-controller") && i+1 < len(words)-1:
			ctl = words[i+1]
		case strings.HasPrefix(w, "--controller="):
			ctl = strings.TrimPrefix(w, "--controller=")
		case (w == "--profile" || w == "-profile") && i+1 < len(words)-1:
			profile = words[i+1]
		case strings.HasPrefix(w, "--profile="):
			profile = strings.TrimPrefix(w, "--profile=")
		case cmd == "" && !strings.HasPrefix(w, "-") && !isFlagValue(words, i):
			cmd = w
		}
	}
	switch prev {
	case "--profile", "-profile":
		return profileNames()
	case "--controller", "-controller":
		return controllerLabels(profile)
	}
	if strings.HasPrefix(cur, "-") {
		return globalFlagNames()
	}
	if cmd == "" {
		var names []string
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		return names
	}
	switch cmd {
	case "get", "set", "dump":
		p := completionProfile(profile)
		if p == nil {
			return nil
		}
		// The controller's own map: no device registers on a host-only
		// core, its usbmisc word.
		if c, err := p.Controller(ctl); err == nil {
			p = p.ForController(c)
		} else if c, err := p.Controller("usbh1"); err == nil && ctl == "" {
			p = p.ForController(c)
		} else if ctl == "" {
			p = p.ForController(&p.Controllers[0])
		}
		if cmd == "set" && strings.Contains(cur, "=") {
			return valueCandidates(p.Map, cur)
		}
		return fieldCandidates(p.Map, cmd)
	case "profiles":
		if prev == "show" {
			return profileNames()
		}
		return []string{"show"}
	case "completion":
		return []string{"bash"}
	}
	return nil
}

// isFlagValue reports whether words[i] is the value of a preceding flag
// that takes one.
func isFlagValue(words []string, i int) bool {
	if i == 0 {
		return false
	}
	switch strings.TrimLeft(words[i-1], "-") {
	case "profile", "controller", "mem-file", "journal":
		return true
	}
	return false
}

func globalFlagNames() []string {
	return []string{"--profile", "--controller", "--mem-file", "--sim", "--sim-driver", "--reset-values", "--json", "--journal"}
}

func profileNames() []string {
	ps, _ := builtinProfiles()
	var ns []string
	for _, p := range ps {
		ns = append(ns, p.Name)
		ns = append(ns, p.Aliases...)
	}
	sort.Strings(ns)
	return ns
}

// completionProfile is the profile named on the line, or the default one
// (completion must not detect: that would open /dev/mem).
func completionProfile(spec string) *soc.Profile {
	if spec == "" {
		spec = defaultSimProfile
	}
	p, err := loadProfile(spec)
	if err != nil {
		return nil
	}
	return p
}

func controllerLabels(profile string) []string {
	var ls []string
	if p := completionProfile(profile); p != nil {
		for _, c := range p.Controllers {
			ls = append(ls, c.Label)
		}
	}
	return ls
}

// fieldCandidates lists REG.FIELD names (knobs also as bare FIELD) for get
// and set, register names for dump; set candidates end in '='.
func fieldCandidates(m *regs.Map, cmd string) []string {
	var out []string
	suffix := ""
	if cmd == "set" {
		suffix = "="
	}
	for i := range m.Registers {
		r := &m.Registers[i]
		if cmd == "dump" {
			out = append(out, r.Name)
			continue
		}
		for j := range r.Fields {
			f := &r.Fields[j]
			if cmd == "set" && (r.ReadOnly || f.Access == regs.RO || f.Never) {
				continue
			}
			out = append(out, r.Name+"."+f.Name+suffix)
			if f.Knob {
				if ref, err := m.Lookup(f.Name); err == nil && ref.Field == f {
					out = append(out, f.Name+suffix)
				}
			}
		}
	}
	return out
}

// valueCandidates completes "FIELD=" with the field's named values.
func valueCandidates(m *regs.Map, cur string) []string {
	name, _, _ := strings.Cut(cur, "=")
	ref, err := m.Lookup(name)
	if err != nil || ref.Field == nil {
		return nil
	}
	var out []string
	for _, e := range ref.Field.Values {
		if e.Reserved {
			continue
		}
		v := fmt.Sprint(e.Value)
		if e.Name != "" {
			v = e.Name
		}
		out = append(out, name+"="+v)
	}
	return out
}
