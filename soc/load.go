package soc

// The binary loads the pre-parsed built-in profiles (soc/packed.go) or
// one file a user names (Parse): LoadFS and LoadAll serve the tests of
// several packages and the profiles generator (`go test ./profiles
// -update`), so they stay exported here.

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
)

// LoadFS loads the profile file name from fsys.
func LoadFS(fsys fs.FS, name string) (*Profile, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return Parse(name, data)
}

// Lookup returns the profile of ps named name or having it as an alias.
func Lookup(ps []*Profile, name string) *Profile {
	for _, p := range ps {
		if strings.EqualFold(p.Name, name) {
			return p
		}
	}
	for _, p := range ps {
		if slices.ContainsFunc(p.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
			return p
		}
	}
	return nil
}

// LoadAll loads every *.toml profile in fsys, sorted by name.
func LoadAll(fsys fs.FS) ([]*Profile, error) {
	names, err := fs.Glob(fsys, "*.toml")
	if err != nil {
		return nil, err
	}
	var ps []*Profile
	var errs []error
	for _, n := range names {
		p, err := LoadFS(fsys, n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if path.Base(n) != p.Name+".toml" {
			errs = append(errs, fmt.Errorf("%s:%d: %w: name %q does not match the file name (want name = %q)", n, newLocator(n, p.src, nil).line(pos{path: "name"}), ErrProfile, p.Name, strings.TrimSuffix(path.Base(n), ".toml")))
			continue
		}
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	// A name or alias must lead to one profile.
	owner := map[string]string{}
	for _, p := range ps {
		owner[p.Name] = p.Name
	}
	for _, p := range ps {
		for _, a := range p.Aliases {
			if o, dup := owner[a]; dup && o != p.Name {
				errs = append(errs, fmt.Errorf("%s: %w: alias %q is already the name or an alias of profile %s", p.File, ErrProfile, a, o))
				continue
			}
			owner[a] = p.Name
		}
	}
	return ps, errors.Join(errs...)
}
