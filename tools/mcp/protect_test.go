package mcp

import (
	"encoding/json"
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
