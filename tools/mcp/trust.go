package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// Trust is the user's consent to project servers, in one JSON file in the
// user's data directory: for each project directory, each server name
// mapped to the SHA-256 of what the user approved (the definition and the
// files it names inside the project, consent). A changed definition or
// file is not trusted until approved again.
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

// MaxConsentFileBytes is how much of each file a project server's
// definition names is read into the consent: a longer file is covered by
// its first MaxConsentFileBytes and its size.
const MaxConsentFileBytes = 1 << 20

// consent is what the user consents to for a project server: its
// definition, and the content of every regular file inside the project
// that its command or arguments name (a changed script asks again as a
// changed definition does). files lists those files, relative to the
// project. Files those load in turn are not covered.
func consent(project string, c ServerConfig, getenv func(string) (string, bool)) (data []byte, files []string) {
	data = append([]byte(nil), c.Definition...)
	for _, f := range consentFiles(project, c, getenv) {
		h := sha256.New()
		size := int64(-1)
		if fh, err := os.Open(filepath.Join(project, f)); err == nil {
			if st, err := fh.Stat(); err == nil {
				size = st.Size()
			}
			_, _ = io.Copy(h, io.LimitReader(fh, MaxConsentFileBytes))
			fh.Close()
		}
		data = fmt.Appendf(data, "\nfile %q %d %x", f, size, h.Sum(nil))
		files = append(files, f)
	}
	return data, files
}

// consentFiles are the regular files inside project that the command or
// an argument names (an argument as a whole, or the value of
// --flag=value), ${VAR} expanded, relative ones taken from the server's
// working directory; sorted, relative to the project, symbolic links
// resolved.
func consentFiles(project string, c ServerConfig, getenv func(string) (string, bool)) []string {
	if project == "" {
		return nil
	}
	root, err := filepath.EvalSymlinks(project)
	if err != nil {
		return nil
	}
	discard := map[string]bool{}
	x := func(v string) string { return expand(v, getenv, discard) }
	base := project
	if c.Cwd != "" {
		base = x(c.Cwd)
		if !filepath.IsAbs(base) {
			base = filepath.Join(project, base)
		}
	}
	var names []string
	for _, v := range append([]string{c.Command}, c.Args...) {
		names = append(names, x(v))
		if _, after, ok := strings.Cut(v, "="); ok && strings.HasPrefix(v, "-") {
			names = append(names, x(after))
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if n == "" || strings.ContainsRune(n, 0) {
			continue
		}
		if !filepath.IsAbs(n) {
			n = filepath.Join(base, n)
		}
		real, err := filepath.EvalSymlinks(n)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(root, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() || seen[rel] {
			continue
		}
		seen[rel] = true
		out = append(out, rel)
	}
	sort.Strings(out)
	return out
}
