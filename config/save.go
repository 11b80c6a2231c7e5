package config

import (
	"bytes"
	"encoding/json"
	"github.com/co-cli/co/lib/cost"
	"os"
	"path/filepath"
	"reflect"
	"slices"

	"github.com/co-cli/co/hooks"
)

// Save writes the values of s that differ from the defaults to path (the
// user file, normally Paths.UserFile) atomically, with mode 0600, creating
// the directory with mode 0700 if needed. If path is a symbolic link, the
// file it points to is replaced. s is validated first; nothing is written
// when it is not valid. See the package doc for what to pass as s.
func Save(path string, s *Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	data, err := marshal(s)
	if err != nil {
		return &Error{Source: path, Msg: "cannot encode settings: " + err.Error(), Err: err}
	}
	return writeSettings(path, data)
}

// marshal encodes the non-default values of s as an indented JSON object
// (keys sorted, as encoding/json sorts map keys) ending in a newline.
func marshal(s *Settings) ([]byte, error) {
	def := Defaults()
	out := map[string]any{}
	for i := range table {
		f := &table[i]
		v := f.get(s)
		if equalValue(v, f.get(&def)) {
			continue
		}
		out[f.key] = fileValue(v)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// equalValue compares two values of the same field; nil and empty lists
// are equal.
func equalValue(a, b any) bool {
	switch a := a.(type) {
	case []string:
		return slices.Equal(a, b.([]string))
	case []PolicyRule:
		return slices.Equal(a, b.([]PolicyRule))
	case []MCPServer:
		return equalMCP(a, b.([]MCPServer))
	case []Schedule:
		return equalSchedules(a, b.([]Schedule))
	case hooks.Config:
		return equalHooks(a, b.(hooks.Config))
	case cost.Prices:
		return reflect.DeepEqual(cost.Prices(nil).With(a), cost.Prices(nil).With(b.(cost.Prices)))
	}
	return a == b
}

// writeAtomic replaces path with data: a temporary file in the same
// directory, written, fsynced, renamed over path, then the directory
// fsynced. On failure the temporary file is removed and path is untouched.
func writeAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(0o600); err != nil {
		return err
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// Make the rename itself durable. Not every file system can sync a
	// directory; the file is already in place, so that is not a failure.
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
