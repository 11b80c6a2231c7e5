package hooks

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

// runs reports whether e runs now: a user's hook always, a project's once
// the user consented.
func (s *Set) runs(e entry) bool { return !e.origin.Project || s.trusted.Load() }

// TrustProject makes the project's hooks run from now on in this run: the
// user consented (record it with Trust.Grant first, so later runs do
// too).
func (s *Set) TrustProject() {
	if s != nil {
		s.trusted.Store(true)
	}
}

// ProjectFiles are the files inside the project whose content the consent
// to its hooks covers (ConsentData), relative to it.
func (s *Set) ProjectFiles() []string {
	if s == nil {
		return nil
	}
	_, files := ConsentData(s.opts.Dir, s.opts.Project)
	return files
}

// Trust is the user's consent to projects' hooks, in one JSON file in the
// user's data directory: for each project directory, the SHA-256 of what
// the user consented to (ConsentData: the hooks and the content of the
// project files their commands name). A changed hook or a changed script
// is not trusted until the user consents again, as with a project's MCP
// servers.
type Trust struct {
	path string
	mu   sync.Mutex
}

// NewTrust returns the consent store kept in path.
func NewTrust(path string) *Trust { return &Trust{path: path} }

type trustFile struct {
	Projects map[string]string `json:"projects"`
}

func (t *Trust) read() (trustFile, error) {
	var f trustFile
	b, err := os.ReadFile(t.path)
	if errors.Is(err, fs.ErrNotExist) {
		return trustFile{Projects: map[string]string{}}, nil
	}
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return f, fmt.Errorf("%s: %v (delete the file to consent again)", t.path, err)
	}
	if f.Projects == nil {
		f.Projects = map[string]string{}
	}
	return f, nil
}

func hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Trusted reports whether the user consented to exactly c, and the
// project files it names as they are now, in project.
func (t *Trust) Trusted(project string, c Config) bool {
	if t == nil || c.Empty() {
		return false
	}
	data, _ := ConsentData(project, c)
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.read()
	return err == nil && f.Projects[project] == hash(data)
}

// Grant records consent to c, and the project files it names as they are
// now, in project.
func (t *Trust) Grant(project string, c Config) error {
	if t == nil {
		return errors.New("no place to record consent (no data directory)")
	}
	data, _ := ConsentData(project, c)
	t.mu.Lock()
	defer t.mu.Unlock()
	f, err := t.read()
	if err != nil {
		return err
	}
	f.Projects[project] = hash(data)
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.path), ".hooks-trust-*.tmp")
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

// MaxConsentFileBytes is how much of each file a project's hook names is
// read into the consent: a longer file is covered by its first
// MaxConsentFileBytes and its size.
const MaxConsentFileBytes = 1 << 20

// ConsentData is what the user consents to for a project's hooks: the
// hooks as decoded (so a changed command, matcher, timeout or on_failure
// asks again, a change of spaces does not), then the content of every
// regular file inside project that a command names (a changed script asks
// again as a changed hook does). files lists those, relative to project.
// Files those load in turn are not covered.
func ConsentData(project string, c Config) (data []byte, files []string) {
	data, _ = json.Marshal(c) // a map: its keys sorted
	for _, f := range namedFiles(project, c) {
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

// namedFiles are the regular files inside project that a command of c
// names: a word of it (or the value of --flag=value), quotes taken off,
// $CO_PROJECT_DIR and $CLAUDE_PROJECT_DIR put in, a relative one taken
// from the project (the hooks' working folder); sorted, relative to the
// project, symbolic links resolved.
func namedFiles(project string, c Config) []string {
	if project == "" {
		return nil
	}
	root, err := filepath.EvalSymlinks(project)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for _, ev := range Events {
		for _, g := range c[ev] {
			for _, h := range g.Hooks {
				for _, w := range commandWords(h.Command, project) {
					if rel, ok := inside(root, project, w); ok && !seen[rel] {
						seen[rel] = true
						out = append(out, rel)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// inside resolves word as a path and reports it relative to root when it
// is a regular file inside it.
func inside(root, project, word string) (string, bool) {
	if word == "" || strings.ContainsRune(word, 0) {
		return "", false
	}
	if !filepath.IsAbs(word) {
		word = filepath.Join(project, word)
	}
	real, err := filepath.EvalSymlinks(word)
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return rel, true
}

// commandWords splits a command into the words that may name a file: at
// blanks and the shell's operators, quotes removed, the project variables
// expanded, and the value of each --flag=value besides.
func commandWords(cmd, project string) []string {
	for _, v := range []string{"CO_PROJECT_DIR", "CLAUDE_PROJECT_DIR"} {
		cmd = strings.ReplaceAll(cmd, "${"+v+"}", project)
		cmd = strings.ReplaceAll(cmd, "$"+v, project)
	}
	words := strings.FieldsFunc(cmd, func(r rune) bool {
		return strings.ContainsRune(" \t\n;|&<>()`", r)
	})
	var out []string
	for _, w := range words {
		w = strings.NewReplacer(`"`, "", `'`, "").Replace(w)
		out = append(out, w)
		if _, after, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			out = append(out, after)
		}
	}
	return out
}
