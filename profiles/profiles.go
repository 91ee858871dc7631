// Package profiles holds citune's per-SoC profiles as TOML files embedded
// in the binary. The format is described in README.md beside this file;
// package soc loads and validates them.
package profiles

import "embed"

// FS holds the *.toml profiles.
//
//go:embed *.toml
var FS embed.FS
