package config

import (
	"os"
	"slices"
)

// Saved records in l what was just saved to the user file
// (Paths.UserFile) and this run uses from now on, as the chat's /setup
// does: each key's value and its source, the user file, and the user file
// among Files. The reports of the same run (/status) then say what is in
// force, not what co started with. A value an environment variable or the
// project file will override at the next start is still this run's.
func (l *Loaded) Saved(changes ...Change) error {
	home, _ := os.UserHomeDir()
	for _, c := range changes {
		f := lookupField(c.Key)
		if f == nil {
			return unknownSettingError(c.Key)
		}
		if c.Unset {
			// What applies then may come from any layer below: only a
			// new Load knows.
			return &Error{Key: f.key, Msg: "Saved records values set, not " + quote(f.key) + " unset"}
		}
		v, err := f.parseText(c.Value, l.Paths.UserFile, home)
		if err != nil {
			return err
		}
		f.set(&l.Settings, v)
		if l.Sources == nil {
			l.Sources = make(map[string]Source)
		}
		l.Sources[f.key] = Source{Layer: LayerUser, Name: l.Paths.UserFile}
	}
	if !slices.Contains(l.Files, l.Paths.UserFile) {
		// The user file is read first (Load's order).
		l.Files = append([]string{l.Paths.UserFile}, l.Files...)
	}
	return nil
}
