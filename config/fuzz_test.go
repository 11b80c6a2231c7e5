package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes as the project file. Load must not panic,
// and must return either a *config.Error (alone or joined) or settings that
// validate.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		``,
		`{}`,
		`null`,
		`[]`,
		`{"theme": "dark", "tool_retries": 5}`,
		`{"tool_retries": "three"}`,
		`{"tool_retries": 1e400}`,
		`{"sandbox_cpus": -0}`,
		`{"sandbox_mem_limit": "1.5g"}`,
		`{"shell_safe_commands": ["ls", null]}`,
		`{"shell_policy": [{"match": "git push", "decision": "ask", "reason": null}]}`,
		`{"shell_policy": [{}]}`,
		`{"obsidian_vault_path": "~/x", "tool_retires": 1}`,
		"{\n  \"theme\": \"dark\",\n}",
		"\ufeff{\"theme\": \"dark\"}",
		`{"theme": "dark"} trailing`,
	} {
		f.Add([]byte(seed))
	}
	root := f.TempDir()
	home := filepath.Join(root, "home")
	work := filepath.Join(root, "work")
	project := filepath.Join(work, ".co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		f.Fatal(err)
	}
	opts := LoadOptions{Getenv: func(string) (string, bool) { return "", false }, WorkDir: work, HomeDir: home}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(project, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := Load(opts)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is %T, not a *config.Error", err, err)
			}
			if l != nil {
				t.Fatal("Load returned both settings and an error")
			}
			return
		}
		if err := l.Settings.Validate(); err != nil {
			t.Fatalf("Load accepted invalid settings: %v\ninput: %q", err, data)
		}
	})
}
