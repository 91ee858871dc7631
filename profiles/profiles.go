// Package profiles holds citune's per-SoC profiles. The format is
// described in README.md beside this file; package soc loads and
// validates them.
//
// The *.toml files here are the sources. The binary loads their
// pre-parsed form (packed.go: Packed), which starts a command without
// TOML (bench/startup.sh); `go test ./profiles -update` writes it from
// the sources and TestPackedFresh checks it against them. FS holds the
// sources' text for tests and tools: nothing in the binary refers to it,
// so the linker leaves it out.
package profiles

import "embed"

// FS holds the *.toml profiles, read-only.
//
//go:embed *.toml
var FS embed.FS
