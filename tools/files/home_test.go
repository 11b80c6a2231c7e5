package files

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/lib/protect"
	"github.com/co-cli/co/tools"
)

// The workspace is the home folder: its start-up, access and credential files always ask, and
// co's own folders are refused whatever the approval, with the folder named.
func TestHomeFolderAsWorkspace(t *testing.T) {
	w, dir := ws(t, map[string]string{
		".bashrc": "x", ".local/share/co-cli/memory.db": "memories", ".config/co-cli/settings.json": "{}", "notes.txt": "x",
	})
	w.SetInstructionFiles(nil)
	w.SetPlaces(protect.Places{Homes: []string{dir}, ConfigDir: filepath.Join(dir, ".config", "co-cli"), DataDir: filepath.Join(dir, ".local", "share", "co-cli")})
	for _, p := range []string{".bashrc", ".zshrc", ".ssh/authorized_keys", ".gitconfig", ".config/git/config", ".config/autostart/x.desktop",
		".local/bin/ls", ".npmrc", ".docker/config.json", ".aws/credentials", ".kube/config", ".git-credentials", ".config/gh/hosts.yml"} {
		c := tools.Decide(context.Background(), tool(t, w, "write_file"), js(t, map[string]any{"path": p, "content": "x"}))
		if c.Decision != tools.Ask || !c.AlwaysAsk || c.Outbound == nil {
			t.Errorf("write_file(%s): %+v, want an always-ask question", p, c)
		}
	}
	if c := tools.Decide(context.Background(), tool(t, w, "write_file"), js(t, map[string]any{"path": "src/.bashrc", "content": "x"})); c.AlwaysAsk {
		t.Error("a .bashrc in a project folder always asks")
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"write_file", map[string]any{"path": ".local/share/co-cli/memory.db", "content": "pinned"}},
		{"write_file", map[string]any{"path": ".local/share/co-cli/mcp-trust.json", "content": "{}"}},
		{"write_file", map[string]any{"path": ".Local/Share/co-cli/sessions.db", "content": "x", "create_dirs": true}},
		{"write_file", map[string]any{"path": ".config/co-cli/skills/x/SKILL.md", "content": "x", "create_dirs": true}},
		{"edit_file", map[string]any{"path": ".local/share/co-cli/memory.db", "old": "memories", "new": "pinned"}},
		{"edit_file", map[string]any{"path": ".config/co-cli/settings.json", "old": "{}", "new": `{"auto_confirm":true}`}},
	} {
		c := tools.Decide(context.Background(), tool(t, w, tc.tool), js(t, tc.args))
		if c.Retry == "" || !strings.Contains(c.Retry, "co's") || !strings.Contains(c.Retry, "never write") {
			t.Errorf("%s(%v) check: %+v, want refused", tc.tool, tc.args, c)
		}
		_, err := call(t, w, tc.tool, tc.args) // approved anyway: still refused
		wantRetry(t, err, "co-cli", "never write")
	}
	if got := read(t, dir, ".local/share/co-cli/memory.db"); got != "memories" {
		t.Errorf("memory.db = %q", got)
	}
	if got := read(t, dir, ".config/co-cli/settings.json"); got != "{}" {
		t.Errorf("settings.json = %q", got)
	}
	for _, p := range []string{".local/share/co-cli/mcp-trust.json", ".Local", ".config/co-cli/skills"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was made", p)
		}
	}
	mustRun(t, w, "write_file", map[string]any{"path": "notes.txt", "content": "y"})
}

// co's data folder as the workspace itself (co started in ~/.local/share/co-cli): nothing in it is
// written.
func TestDataFolderAsWorkspace(t *testing.T) {
	w, dir := ws(t, map[string]string{"memory.db": "memories"})
	w.SetPlaces(protect.Places{DataDir: dir})
	_, err := call(t, w, "write_file", map[string]any{"path": "memory.db", "content": "pinned"})
	wantRetry(t, err, "co's data folder")
	if got := read(t, dir, "memory.db"); got != "memories" {
		t.Errorf("memory.db = %q", got)
	}
}
