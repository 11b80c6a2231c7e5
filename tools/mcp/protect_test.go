package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/co-cli/co/lib/protect"
)

func TestProtectedArg(t *testing.T) {
	ws := t.TempDir()
	m := &Manager{opts: Options{Workspace: ws, Protected: protect.New(nil)}}
	for args, want := range map[string]string{
		`{"path":".envrc"}`: ".envrc",
		`{"files":[{"path":"` + filepath.Join(ws, ".git", "config") + `"}]}`:  ".git",
		`{"uri":"file://` + filepath.Join(ws, "AGENTS.md") + `"}`:             "AGENTS.md",
		`{"path":"../elsewhere/.envrc"}`:                                      "",
		`{"path":"/etc/.envrc"}`:                                              "",
		`{"url":"https://github.com/o/r/blob/main/.github/workflows/ci.yml"}`: "",
		`{"text":"add .envrc to the repo"}`:                                   "",
		`{"path":"src/main.go"}`:                                              "",
	} {
		if got, _ := m.protectedArg(json.RawMessage(args)); got != want {
			t.Errorf("protectedArg(%s) = %q, want %q", args, got, want)
		}
	}
}

// A path through a symlink in the workspace names what the link points to
// for the server that opens it: g/hooks/pre-commit, g a link to .git, is
// .git's (a link the model could make with a shell command).
func TestProtectedArgThroughASymlink(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"g": ".git", "notes.md": "AGENTS.md", "docs": ".", "loop": "loop2", "loop2": "loop"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	m := &Manager{opts: Options{Workspace: ws, Protected: protect.New(nil)}}
	for args, want := range map[string]string{
		`{"path":"g/hooks/pre-commit"}`:                       ".git",
		`{"path":"` + filepath.Join(ws, "g", "config") + `"}`: ".git",
		`{"path":"notes.md"}`:                                 "AGENTS.md",
		`{"path":"docs/docs/.envrc"}`:                         "docs/docs/.envrc",
		`{"path":"docs/readme.md"}`:                           "",
		`{"path":"loop/x"}`:                                   "",
		`{"path":"g/../src/x.go"}`:                            "",
		`{"uri":"file://` + filepath.Join(ws, "g", "hooks", "post-merge") + `"}`: ".git",
	} {
		if got, _ := m.protectedArg(json.RawMessage(args)); got != want {
			t.Errorf("protectedArg(%s) = %q, want %q", args, got, want)
		}
	}
}
