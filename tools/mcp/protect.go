package mcp

import (
	"encoding/json"
	"net/url"
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
			if r, ok := inWorkspace(x, roots); ok {
				if root, w, hit := m.opts.Protected.Match(r, protect.File); hit {
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
