package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/citune/citune/soc"
)

// An image's sidecar (IMAGE.citune.json, written by mkimage) names the
// profile and controller the image was made for. It only supplies labels:
// the journal keys the image by its device and inode (undo.File), so a
// renamed or copied sidecar cannot make restore write another file.

const sidecarKind = "citune-image"

type sidecar struct {
	Kind        string `json:"kind"`
	Profile     string `json:"profile"`
	ProfileFile string `json:"profile_file,omitempty"`
	Controller  string `json:"controller"`
	Values      string `json:"values"` // "board" or "reset"
}

func sidecarPath(image string) string { return image + ".citune.json" }

// readSidecar reads an image's sidecar; ok is false when there is none.
func readSidecar(image string) (sidecar, bool, error) {
	var s sidecar
	b, err := os.ReadFile(sidecarPath(image))
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	s, err = parseSidecar(b)
	if err != nil {
		return s, false, fmt.Errorf("%s %w", sidecarPath(image), err)
	}
	return s, true, nil
}

func parseSidecar(b []byte) (sidecar, error) {
	var s sidecar
	if err := json.Unmarshal(b, &s); err != nil || s.Kind != sidecarKind {
		return sidecar{}, errors.New("is not a citune image description")
	}
	return s, nil
}

// applySidecar fills --profile and --controller from the image's sidecar.
// Flags that contradict it win, with a note (the identity check before
// any write is the arbiter; a foreign profile is how it is tested).
func (a *app) applySidecar() error {
	if a.g.memFile == "" || a.sidecarDone {
		return nil
	}
	a.sidecarDone = true
	if err := checkImage(a.g.memFile); err != nil {
		return err
	}
	s, ok, err := readSidecar(a.g.memFile)
	if err != nil || !ok {
		return err
	}
	spec := cmp.Or(s.ProfileFile, s.Profile)
	if a.g.profile == "" {
		a.g.profile = spec
		a.profileFrom = "the image's " + sidecarPath(a.g.memFile)
	} else if p, err := loadProfile(a.g.profile); err == nil && p.Name != s.Profile {
		// Another SoC's profile: the sidecar's controller label means
		// nothing there.
		fmt.Fprintf(a.env.stderr, "citune: note: --profile %s, but the image %s was made for %s (see %s)\n", a.g.profile, a.g.memFile, s.Profile, sidecarPath(a.g.memFile))
		return nil
	}
	if a.g.controller == "" {
		a.g.controller = s.Controller
		a.controllerFrom = "the image's " + sidecarPath(a.g.memFile)
	} else if p, err := loadProfile(a.g.profile); err == nil {
		if c, err := p.Controller(a.g.controller); err == nil && c.Label != s.Controller {
			fmt.Fprintf(a.env.stderr, "citune: note: --controller %s, but the image %s holds %s's registers (see %s)\n", a.g.controller, a.g.memFile, s.Controller, sidecarPath(a.g.memFile))
		}
	}
	return nil
}

// checkImage says what is wrong with a --mem-file image, before anything
// else is blamed.
func checkImage(path string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErr("register image %s does not exist (citune mkimage writes one)", path)
	case err != nil:
		return fmt.Errorf("register image %s: %w", path, err)
	case fi.IsDir():
		return usageErr("register image %s is a directory: give the image file", path)
	}
	// A FIFO, socket or device is refused before it is opened (opening a
	// FIFO blocks until someone writes to it).
	if err := soc.CheckImage(path); err != nil {
		return usageErr("%v", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("register image %s cannot be read: %w", path, err)
	}
	return f.Close()
}

// valuesName is a sidecar's "values".
func valuesName(reset bool) string {
	if reset {
		return "reset"
	}
	return "board"
}

// writeSidecar records what mkimage wrote.
func writeSidecar(image, profileSpec, profileName, controller string, reset bool, force bool) error {
	s := sidecar{Kind: sidecarKind, Profile: profileName, Controller: controller, Values: valuesName(reset)}
	if strings.ContainsRune(profileSpec, os.PathSeparator) || strings.HasSuffix(profileSpec, ".toml") {
		if abs, err := filepath.Abs(profileSpec); err == nil {
			s.ProfileFile = abs
		}
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeOutput(sidecarPath(image), append(b, '\n'), force)
}
