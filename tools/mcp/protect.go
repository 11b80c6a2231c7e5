package mcp

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/co-cli/co/lib/protect"
)

// What co cannot see is what a server does with its arguments; what it can
// see is a path among them. A call one of whose string arguments names a
// protected path of the workspace (lib/protect: .envrc, .git/, AGENTS.md,
// …), relative to it, absolute inside it or as a file:// URI, always asks,
// as write_file does: a filesystem server writing .git/hooks/pre-commit
// must not run on "approve": "auto", a grant or --yes.

// maxArgStrings bounds the strings of one call's arguments that are looked at.
const maxArgStrings = 1000

// protectedArg names the first protected path args names and why it is
// protected, or "", "".
func (m *Manager) protectedArg(args json.RawMessage) (rel, why string) {
	ws := m.opts.Workspace
	if ws == "" {
		return "", ""
	}
	var v any
	if json.Unmarshal(args, &v) != nil {
		return "", ""
	}
	roots := []string{filepath.Clean(ws)}
	if r, err := filepath.EvalSymlinks(ws); err == nil && r != roots[0] {
		roots = append(roots, r)
	}
	n := 0
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			if n++; n > maxArgStrings {
				return true
			}
			r, ok := inWorkspace(x, roots)
			if !ok {
				return false
			}
			if root, w, hit := m.opts.Protected.Match(r, protect.File); hit {
				rel, why = root, w
				return true
			}
			// Through a symlink (g/hooks/x, g a link to .git): what the
			// server opens is where it leads.
			if real, ok := realRel(r, roots); ok && real != r {
				if root, w, hit := m.opts.Protected.Match(real, protect.File); hit {
					rel, why = root, w
					return true
				}
			}
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		}
		return false
	}
	walk(v)
	return rel, why
}

// inWorkspace reads s as a path in the workspace (one of roots: its path
// and its real path): relative, absolute or a file:// URI. It returns the
// path relative to the workspace, slash-separated, when s is one.
func inWorkspace(s string, roots []string) (string, bool) {
	if s == "" || len(s) > 4096 || strings.ContainsAny(s, "\n\x00") {
		return "", false
	}
	if strings.HasPrefix(strings.ToLower(s), "file:") {
		u, err := url.Parse(s)
		if err != nil || u.Path == "" {
			return "", false
		}
		s = u.Path
	} else if strings.Contains(s, "://") {
		return "", false // a URL (https://github.com/…/.github/workflows/x.yml) is no path here
	}
	p := filepath.Clean(s)
	if filepath.IsAbs(p) {
		for _, root := range roots {
			if r, err := filepath.Rel(root, p); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(r), true
			}
		}
		return "", false
	}
	if p == ".." || strings.HasPrefix(p, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(p), true
}

// realRel is the workspace path rel (slash-separated, from inWorkspace)
// with its symlinks resolved (a dangling one too: writing through it
// creates its target), relative to the workspace's real path; ok is false
// when it leads out of the workspace.
func realRel(rel string, roots []string) (string, bool) {
	return inWorkspace(realPath(filepath.Join(roots[0], filepath.FromSlash(rel))), roots[len(roots)-1:])
}

// realPath resolves the symlinks of p's existing part, following at most
// maxHops links that lead nowhere yet.
func realPath(p string) string {
	const maxHops = 40
	for range maxHops {
		next := ""
		for dir := p; next == ""; dir = filepath.Dir(dir) {
			rest, _ := filepath.Rel(dir, p)
			if r, err := filepath.EvalSymlinks(dir); err == nil {
				return filepath.Join(r, rest)
			}
			if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
				t, err := os.Readlink(dir)
				if err != nil {
					return p
				}
				if !filepath.IsAbs(t) {
					t = filepath.Join(filepath.Dir(dir), t)
				}
				next = filepath.Join(t, rest)
			} else if dir == filepath.Dir(dir) {
				return p
			}
		}
		p = next
	}
	return p
}
