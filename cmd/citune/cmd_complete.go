package main

import (
	"cmp"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/citune/citune/regs"
	"github.com/citune/citune/soc"
)

func init() {
	register(&command{name: "completion", summary: "print a bash completion script", usage: "completion bash", run: runCompletion,
		noJSON: "it prints a shell script"})
}

// bashCompletion asks the binary itself for candidates, so they match its
// profiles. It leaves COMP_WORDBREAKS alone (changing it breaks other
// commands' completion, `dd if=<Tab>`): it splits the line up to the
// cursor itself, so FIELD=VALUE stays one word, and drops from each reply
// what readline, splitting at '=' and ':', keeps before the completed text.
const bashCompletion = `# bash completion for citune: source it, or put it in /etc/bash_completion.d.
_citune() {
	local line=${COMP_LINE:0:COMP_POINT} IFS=$' \t\n'
	local -a words
	read -r -a words <<<"$line"
	[[ -z $line || $line == *[[:space:]] ]] && words+=("")
	local cur=${words[${#words[@]}-1]}
	# readline completes the text after the last word-break character:
	# replies lose what comes before it.
	local wb= pre=
	[[ $COMP_WORDBREAKS == *=* ]] && wb+="="
	[[ $COMP_WORDBREAKS == *:* ]] && wb+=":"
	[[ -n $wb ]] && pre=${cur%"${cur##*[$wb]}"}
	IFS=$'\n'
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete "${words[@]:1}" 2>/dev/null)" -- "$cur"))
	[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *[=:,] ]] && compopt -o nospace 2>/dev/null
	if [[ -n $pre ]]; then
		local i
		for i in "${!COMPREPLY[@]}"; do COMPREPLY[i]=${COMPREPLY[i]#"$pre"}; done
	fi
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

// complete is the hidden `__complete` command: the candidates for the last
// of the words typed so far. It never touches hardware.
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
		if p := completionProfile(profile); p != nil {
			return labelsOf(p)
		}
		return nil
	case "--axis", "-axis":
		p := completionMap(profile, ctl)
		if p == nil {
			return nil
		}
		if strings.Contains(cur, "=") {
			return axisValueCandidates(p, cur)
		}
		c := append(fieldCandidates(p.Map, "set"), "sysfs:", "modparam:", "cmdline:")
		for _, k := range p.Knobs {
			if k.DT != "" {
				c = append(c, "dt:"+k.DT+"=")
			}
		}
		return c
	}
	if strings.HasPrefix(cur, "-") {
		var out []string
		for _, f := range globalFlags() {
			out = append(out, "--"+f.Name)
		}
		return out
	}
	if prev == "--" && (cmd == "sweep" || cmd == "tui") {
		return probeKinds()
	}
	if cmd == "" || cmd == "help" && prev == "help" {
		return commandNames()
	}
	switch cmd {
	case "probe":
		if prev == "probe" {
			return probeKinds()
		}
	case "get", "set", "dump":
		p := completionMap(profile, ctl)
		if p == nil {
			return nil
		}
		if cmd == "set" && strings.Contains(cur, "=") {
			return axisValueCandidates(p, cur)
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

// isFlagValue reports whether words[i] is the value of a global flag
// before it (--profile NAME, not --sim).
func isFlagValue(words []string, i int) bool {
	return i > 0 && slices.ContainsFunc(globalFlags(), func(f *flag.Flag) bool {
		b, isBool := f.Value.(interface{ IsBoolFlag() bool })
		return !(isBool && b.IsBoolFlag()) && f.Name == strings.TrimLeft(words[i-1], "-")
	})
}

// globalFlags are the global flags as registered, in name order.
func globalFlags() []*flag.Flag {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	var g globals
	g.register(fs)
	var out []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) { out = append(out, f) })
	return out
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
	p, err := loadProfile(cmp.Or(spec, defaultSimProfile))
	if err != nil {
		return nil
	}
	return p
}

// completionMap is the profile as the named (or default) controller sees it.
func completionMap(profile, ctl string) *soc.Profile {
	p := completionProfile(profile)
	if p == nil {
		return nil
	}
	if c, err := pickController(p, ctl); err == nil {
		return p.ForController(c)
	}
	return p
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
			// set is not offered what it refuses or what would stop
			// transfers: read-only, never-set, live state (list
			// addresses, run/stop, port control) and write-1-to-clear
			// status bits.
			if cmd == "set" && (r.ReadOnly || f.Access == regs.RO || f.Never || f.Access == regs.W1C || regs.ClassOf(r, f) == regs.ClassLive) {
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

// axisValueCandidates completes "FIELD=V1,V2,..." value by value.
func axisValueCandidates(p *soc.Profile, cur string) []string {
	name, vals, _ := strings.Cut(cur, "=")
	i := strings.LastIndexByte(vals, ',')
	prefix := name + "=" + vals[:i+1] // the values before the last comma
	// Values already in the list are not offered again, whatever form
	// they were given in (8, UF8, 0x8).
	given := map[uint32]bool{}
	ref, err := p.Map.Lookup(name)
	if err == nil && ref.Field != nil && i >= 0 {
		for _, v := range strings.Split(vals[:i], ",") {
			if n, err := regs.ParseValue(ref.Field, v); err == nil {
				given[n] = true
			}
		}
	}
	var out []string
	for _, v := range fieldValues(p, name) {
		if n, err := regs.ParseValue(ref.Field, v); err == nil && given[n] {
			continue
		}
		out = append(out, prefix+v)
	}
	return out
}

// fieldValues are a field's named values (not reserved), else its legal
// range capped at the DT binding's limit: every value when there are few,
// else the ends and the powers of two between them.
func fieldValues(p *soc.Profile, name string) []string {
	ref, err := p.Map.Lookup(name)
	if err != nil || ref.Field == nil {
		return nil
	}
	f := ref.Field
	var nums []uint32
	var names []string
	for _, e := range f.Values {
		if e.Reserved {
			continue
		}
		nums = append(nums, e.Value)
		if e.Name != "" {
			names = append(names, e.Name)
		}
	}
	var out []string
	if f.Strict || len(nums) > 0 {
		slices.Sort(nums)
		for _, v := range nums {
			out = append(out, fmt.Sprint(v))
		}
		return append(out, names...)
	}
	lo, hi := uint32(0), f.WidthMax()
	if f.HasRange {
		lo, hi = f.Min, f.Max
	}
	if k := p.Knob(ref); k != nil && k.DTMax != nil && *k.DTMax < hi {
		hi = *k.DTMax
	}
	if hi < lo {
		return nil
	}
	if hi-lo < 16 {
		for v := lo; v <= hi; v++ {
			out = append(out, fmt.Sprint(v))
		}
		return out
	}
	out = append(out, fmt.Sprint(lo))
	for v := uint32(1); v < hi && v != 0; v <<= 1 {
		if v > lo {
			out = append(out, fmt.Sprint(v))
		}
	}
	return append(out, fmt.Sprint(hi))
}
