package config

import (
	"errors"
	"os"
	"path/filepath"
)

// appName is the directory co uses under the XDG base directories.
const appName = "co-cli"

// Paths are where co keeps its files.
type Paths struct {
	ConfigDir   string // $XDG_CONFIG_HOME/co-cli or ~/.config/co-cli
	UserFile    string // ConfigDir/settings.json
	ProjectFile string // <work dir>/.co-cli/settings.json
	DataDir     string // $XDG_DATA_HOME/co-cli or ~/.local/share/co-cli
}

// ResolvePaths works out the Paths for opts (see LoadOptions for the
// defaults). XDG_CONFIG_HOME and XDG_DATA_HOME count only when they are
// absolute paths, as the XDG Base Directory spec says.
func ResolvePaths(opts LoadOptions) (Paths, error) {
	p, _, err := resolvePaths(opts.withDefaults())
	return p, err
}

// resolvePaths also returns warnings for XDG variables it ignored. opts must
// have its defaults filled in.
func resolvePaths(opts LoadOptions) (Paths, []Warning, error) {
	var warns []Warning
	xdg := func(name, fallback string) (string, error) {
		v, ok := opts.Getenv(name)
		if ok && v != "" {
			if filepath.IsAbs(v) {
				return filepath.Join(filepath.Clean(v), appName), nil
			}
			warns = append(warns, Warning{Source: "$" + name,
				Msg: "$" + name + " is not an absolute path (" + quote(v) + "); ignored, as the XDG spec says"})
		}
		home, err := opts.home()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, fallback, appName), nil
	}
	var p Paths
	var err error
	if p.ConfigDir, err = xdg("XDG_CONFIG_HOME", ".config"); err != nil {
		return Paths{}, warns, err
	}
	if p.DataDir, err = xdg("XDG_DATA_HOME", filepath.Join(".local", "share")); err != nil {
		return Paths{}, warns, err
	}
	p.UserFile = filepath.Join(p.ConfigDir, "settings.json")
	wd := opts.WorkDir
	if wd == "" {
		if wd, err = os.Getwd(); err != nil {
			return Paths{}, warns, &Error{Msg: "cannot find the working directory: " + err.Error(), Err: err}
		}
	}
	if wd, err = filepath.Abs(wd); err != nil {
		return Paths{}, warns, &Error{Msg: "cannot find the working directory: " + err.Error(), Err: err}
	}
	p.ProjectFile = filepath.Join(wd, ".co-cli", "settings.json")
	return p, warns, nil
}

// home returns opts.HomeDir or the user's home directory.
func (opts LoadOptions) home() (string, error) {
	if opts.HomeDir != "" {
		return opts.HomeDir, nil
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		if err == nil {
			err = errors.New("$HOME is not set")
		}
		return "", &Error{Msg: "cannot find the home directory (set HOME, or XDG_CONFIG_HOME and XDG_DATA_HOME): " + err.Error(), Err: err}
	}
	return h, nil
}
