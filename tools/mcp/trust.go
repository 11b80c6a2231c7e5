package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Trust is the user's consent to project servers, in one JSON file in the
// user's data directory: for each project directory, each server name
// mapped to the SHA-256 of the definition the user approved. A changed
// definition is not trusted until approved again.
type Trust struct {
	path string
	mu   sync.Mutex
}

// NewTrust returns the consent store kept in path.
func NewTrust(path string) *Trust { return &Trust{path: path} }

type trustFile struct {
	Projects map[string]map[string]string `json:"projects"`
}

// DefinitionHash is the hash consent is recorded under.
func DefinitionHash(def []byte) string {
	sum := sha256.Sum256(def)
	return hex.EncodeToString(sum[:])
}

func (t *Trust) read() (trustFile, error) {
	var f trustFile
	b, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return trustFile{Projects: map[string]map[string]string{}}, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, errors.New(t.path + ": " + err.Error() + " (delete the file to consent again)")
	}
	if f.Projects == nil {
		f.Projects = map[string]map[string]string{}
	}
	return f, nil
}

// Trusted reports whether the user consented to server name with exactly
// def in project.
func (t *Trust) Trusted(project, name string, def []byte) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.read()
	return err == nil && f.Projects[project][name] == DefinitionHash(def)
}

// Grant records consent to server name with def in project.
func (t *Trust) Grant(project, name string, def []byte) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.read()
	if err != nil {
		return err
	}
	if f.Projects[project] == nil {
		f.Projects[project] = map[string]string{}
	}
	f.Projects[project][name] = DefinitionHash(def)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), ".mcp-trust-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), t.path)
}
