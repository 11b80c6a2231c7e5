package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/tools"
)

// Every tool co registers has a schema the validator accepts (it rejects
// keywords it does not implement, so no schema goes unchecked).
func TestEveryToolSchemaCompiles(t *testing.T) {
	a := allTools(t)
	v := tools.NewValidator()
	for _, tool := range a.Tools.All() {
		err := v.Validate(tool, json.RawMessage(`{}`))
		if err != nil && !tools.IsRetry(err) {
			t.Errorf("%s: %v", tool.Name(), err)
		}
	}
	if n := a.Tools.Len(); n != 34 { // 29 (read_email_attachment), the 3 memory tools, create_calendar_event and write_note
		t.Errorf("%d tools registered, want 34", n)
	}
}

// allTools builds a report-only App with every tool family configured.
func allTools(t *testing.T) *App {
	t.Helper()
	home, vault := t.TempDir(), t.TempDir()
	creds := filepath.Join(home, "token.json")
	// A user skill: read_skill is registered only when a skills folder exists.
	skill := filepath.Join(home, ".config", "co-cli", "skills", "demo", "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, []byte("---\nname: demo\ndescription: A demo skill.\n---\nDo the demo.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, []byte(`{"type":"authorized_user","client_id":"id","client_secret":"s","refresh_token":"r"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"SLACK_BOT_TOKEN": "xoxb-test", "BRAVE_SEARCH_API_KEY": "k", "CO_CLI_SANDBOX_BACKEND": "subprocess",
		"OBSIDIAN_VAULT_PATH": vault, "GOOGLE_CREDENTIALS_PATH": creds,
	}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, WorkDir: t.TempDir(), HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), l, Options{ReportOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	if len(a.Unconfigured) != 0 {
		t.Fatalf("every family should be configured here: %v", a.Unconfigured)
	}
	return a
}

// read_skill is registered only where a skills folder exists, so the
// model is never offered a tool with nothing behind it.
func TestReadSkillOnlyWithSkills(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"CO_CLI_SANDBOX_BACKEND": "subprocess", "XDG_CONFIG_HOME": filepath.Join(home, "cfg")}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, WorkDir: t.TempDir(), HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), l, Options{ReportOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, ok := a.Tools.Get("read_skill"); ok {
		t.Fatal("read_skill registered without any skills folder")
	}
}
