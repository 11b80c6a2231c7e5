package skills_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/extensions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/skills"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadSkill(t *testing.T) {
	ws := t.TempDir()
	dir := filepath.Join(ws, ".co-cli", "skills", "deploy")
	write(t, filepath.Join(dir, "SKILL.md"), "---\nname: deploy\ndescription: Deploy the app.\n---\n# Deploy\nRun make deploy, then check references/after.md.\n")
	write(t, filepath.Join(dir, "references", "after.md"), "Check the dashboard.\n")
	write(t, filepath.Join(ws, "secret.txt"), "TOKEN")
	tool := skills.New(extensions.Start(extensions.Options{Workspace: ws}))
	if tool.Class() != tools.ReadOnly {
		t.Fatal("read_skill must be read-only")
	}
	var schema struct {
		Properties struct {
			Name struct {
				Enum []string `json:"enum"`
			} `json:"name"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(tool.Schema(), &schema); err != nil || strings.Join(schema.Properties.Name.Enum, ",") != "deploy" {
		t.Fatalf("schema %s: %v", tool.Schema(), err)
	}
	run := func(args string) (string, error) {
		r, err := tool.Run(context.Background(), json.RawMessage(args))
		return r.Display, err
	}
	out, err := run(`{"name":"deploy"}`)
	if err != nil || !strings.Contains(out, "Run make deploy") || !strings.Contains(out, "<file>references/after.md</file>") || strings.Contains(out, "description:") {
		t.Fatalf("read_skill deploy = %q, %v", out, err)
	}
	out, err = run(`{"name":"deploy","file":"references/after.md"}`)
	if err != nil || !strings.Contains(out, "Check the dashboard.") {
		t.Fatalf("read_skill file = %q, %v", out, err)
	}
	for _, bad := range []string{`{"name":"deploy","file":"../../../secret.txt"}`, `{"name":"deploy","file":"` + filepath.Join(ws, "secret.txt") + `"}`} {
		out, err = run(bad)
		if err == nil || !tools.IsRetry(err) || strings.Contains(out, "TOKEN") {
			t.Errorf("%s: %q, %v: want a refusal", bad, out, err)
		}
	}
	if err := os.Symlink(filepath.Join(ws, "secret.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if out, err = run(`{"name":"deploy","file":"link.txt"}`); err == nil || strings.Contains(out, "TOKEN") {
		t.Errorf("a symlink out of the skill's folder was read: %q", out)
	}
	if _, err = run(`{"name":"nope"}`); err == nil || !strings.Contains(err.Error(), "the skills are: deploy") {
		t.Errorf("unknown skill: %v", err)
	}
}
