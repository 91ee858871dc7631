package main

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/citune/citune/profiles"
)

func init() {
	register(&command{name: "version", summary: "version, VCS revision and time, Go, profiles: for bug reports", usage: "version", run: runVersion})
}

// versionInfo is what a bug report from a board needs.
type versionInfo struct {
	Module   string   `json:"module"`
	Version  string   `json:"version"`
	Revision string   `json:"revision,omitempty"`
	Time     string   `json:"time,omitempty"`
	Modified bool     `json:"modified,omitempty"`
	Go       string   `json:"go"`
	Platform string   `json:"platform"`
	Profiles []string `json:"profiles"`
}

// versionFrom reads a build's information (nil: none, "(devel)").
func versionFrom(bi *debug.BuildInfo) versionInfo {
	v := versionInfo{Module: "github.com/citune/citune", Version: "(devel)", Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		v.Module, v.Version, v.Go = cmp.Or(bi.Main.Path, v.Module), cmp.Or(bi.Main.Version, v.Version), cmp.Or(bi.GoVersion, v.Go)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	names, _ := profiles.PackedNames()
	for _, n := range names {
		v.Profiles = append(v.Profiles, strings.TrimSuffix(n, ".toml"))
	}
	return v
}

// revision is the revision line's text: the commit, or why there is
// none. Go records no -buildvcs setting, so a checkout built with
// -buildvcs=false (or GOFLAGS holding it) cannot be told from a tarball.
func (v versionInfo) revision() string {
	switch {
	case v.Revision == "":
		return "no VCS stamp (built outside a git checkout, or with -buildvcs=false)"
	case v.Modified:
		return v.Revision + " (with uncommitted changes)"
	}
	return v.Revision
}

func runVersion(a *app, args []string) error {
	fs := a.flags("version")
	if err := a.parse(fs, args); err != nil {
		return err
	}
	if len(fs.Args()) > 0 {
		return usageErr("usage: citune version")
	}
	bi, _ := debug.ReadBuildInfo()
	v := versionFrom(bi)
	if a.g.json {
		return writeJSON(a.env.stdout, v)
	}
	w := a.env.stdout
	fmt.Fprintf(w, "citune %s (%s)\n", v.Version, v.Module)
	fmt.Fprintf(w, "revision: %s\n", v.revision())
	if v.Time != "" {
		fmt.Fprintf(w, "commit time: %s\n", v.Time)
	}
	fmt.Fprintf(w, "go: %s %s\n", v.Go, v.Platform)
	fmt.Fprintf(w, "profiles: %s\n", strings.Join(v.Profiles, ", "))
	return nil
}
