package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EditFile changes only what it is asked to: the other keys keep their
// order, their formatting and their values, keys this co does not know
// included.
func TestEditFileKeepsTheRest(t *testing.T) {
	tests := []struct {
		name    string
		before  string
		changes []Change
		after   string
	}{
		{
			name:    "no file: a new one",
			before:  "",
			changes: []Change{{Key: "context_files", Value: "CLAUDE.md,GEMINI.md"}},
			after:   "{\n  \"context_files\": [\n    \"CLAUDE.md\",\n    \"GEMINI.md\"\n  ]\n}\n",
		},
		{
			name: "replace in place, order and an unknown key kept",
			before: `{
    "zeta_from_a_newer_co": {"x": 1},
    "tool_retries": 9,
    "theme":   "dark"
}
`,
			changes: []Change{{Key: "tool_retries", Value: "4"}},
			after: `{
    "zeta_from_a_newer_co": {"x": 1},
    "tool_retries": 4,
    "theme":   "dark"
}
`,
		},
		{
			name:    "add after the last key, with the file's indent",
			before:  "{\n\t\"theme\": \"dark\"\n}\n",
			changes: []Change{{Key: "shell_safe_commands", Value: "ls,git status"}},
			after:   "{\n\t\"theme\": \"dark\",\n\t\"shell_safe_commands\": [\n\t  \"ls\",\n\t  \"git status\"\n\t]\n}\n",
		},
		{
			name:    "a one-line file stays on one line",
			before:  `{"theme": "dark"}`,
			changes: []Change{{Key: "context_files", Value: "CLAUDE.md"}, {Key: "auto_confirm", Value: "yes"}},
			after:   `{"theme": "dark", "context_files": ["CLAUDE.md"], "auto_confirm": true}`,
		},
		{
			name:    "unset the first",
			before:  "{\n  \"theme\": \"dark\",\n  \"tool_retries\": 2\n}\n",
			changes: []Change{{Key: "theme", Unset: true}},
			after:   "{\n  \"tool_retries\": 2\n}\n",
		},
		{
			name:    "unset the last",
			before:  "{\n  \"theme\": \"dark\",\n  \"tool_retries\": 2\n}\n",
			changes: []Change{{Key: "tool_retries", Unset: true}},
			after:   "{\n  \"theme\": \"dark\"\n}\n",
		},
		{
			name:    "unset the only one",
			before:  "{\n  \"theme\": \"dark\"\n}\n",
			changes: []Change{{Key: "theme", Unset: true}},
			after:   "{}\n",
		},
		{
			name:    "a key given twice keeps its last place only",
			before:  `{"theme": "light", "tool_retries": 2, "theme": "dark"}`,
			changes: []Change{{Key: "theme", Value: "auto"}},
			after:   `{"tool_retries": 2, "theme": "auto"}`,
		},
		{
			name:    "a string with quotes, a path with ~ as written",
			before:  `{}`,
			changes: []Change{{Key: "openai_model", Value: `my "model" <x>`}, {Key: "obsidian_vault_path", Value: "~/vault"}},
			after:   "{\n  \"openai_model\": \"my \\\"model\\\" <x>\",\n  \"obsidian_vault_path\": \"~/vault\"\n}",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			if tc.before != "" {
				writeFile(t, f.userFile(), tc.before)
			}
			if err := EditFile(f.userFile(), tc.changes...); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(f.userFile())
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.after {
				t.Errorf("file =\n%s\nwant\n%s", data, tc.after)
			}
			fi, err := os.Stat(f.userFile())
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode = %v, want 0600", fi.Mode().Perm())
			}
			noTempFiles(t, filepath.Dir(f.userFile()))
			f.load(t) // what was written loads
		})
	}
}

// The values EditFile writes are what the loader then reads.
func TestEditFileLoadsBack(t *testing.T) {
	f := newFixture(t)
	err := EditFile(f.userFile(),
		Change{Key: "context_files", Value: "CLAUDE.md,GEMINI.md"},
		Change{Key: "sandbox_cpus", Value: "1.5"},
		Change{Key: "shell_policy", Value: `[{"match": "git push", "decision": "deny"}]`},
		Change{Key: "mcp_servers", Value: `{"everything": {"command": "npx", "args": ["-y", "x"]}}`},
		Change{Key: "gemini_api_key", Value: "AIza-secret"},
		Change{Key: "obsidian_vault_path", Value: "~/vault"},
	)
	if err != nil {
		t.Fatal(err)
	}
	l := f.load(t)
	wantValue(t, strings.Join(l.Settings.ContextFiles, ","), "CLAUDE.md,GEMINI.md")
	wantValue(t, l.Settings.SandboxCPUs, 1.5)
	wantValue(t, l.Settings.ShellPolicy[0].Decision, "deny")
	wantValue(t, l.Settings.MCPServers[0].Name, "everything")
	wantValue(t, l.Settings.GeminiAPIKey, "AIza-secret")
	wantValue(t, l.Settings.ObsidianVaultPath, filepath.Join(f.home, "vault"))
	wantValue(t, l.Sources["context_files"].Layer, LayerUser)
}

// A bad value is refused with the loader's message, and nothing is
// written: not this change, not the ones before it in the same call.
func TestEditFileRefusesWhatTheLoaderRefuses(t *testing.T) {
	tests := []struct {
		change Change
		want   string
	}{
		{Change{Key: "tool_retries", Value: "three"}, `"tool_retries" must be an integer, got "three"`},
		{Change{Key: "tool_retries", Value: "-1"}, `"tool_retries" must be an integer >= 0, got -1`},
		{Change{Key: "theme", Value: "blue"}, `"theme" must be "auto", "light" or "dark", got "blue"`},
		{Change{Key: "context_files", Value: "../.env"}, `"context_files"[0] must be a plain file name`},
		{Change{Key: "gemini_base_url", Value: "ftp://x"}, `"gemini_base_url" must be an http or https URL, got "ftp://x"`},
		{Change{Key: "auto_confirm", Value: "maybe"}, `"auto_confirm" must be a boolean (true/false, 1/0, yes/no, on/off), got "maybe"`},
		{Change{Key: "context_file", Value: "CLAUDE.md"}, `unknown setting "context_file" (did you mean "context_files"?)`},
		{Change{Key: "CO_CLI_THEME", Value: "dark"}, `unknown setting "CO_CLI_THEME" (did you mean "theme"?)`},
		{Change{Key: "theme", Value: " "}, `"theme" needs a value; to go back to the default, unset it`},
	}
	for _, tc := range tests {
		t.Run(tc.change.Key+"="+tc.change.Value, func(t *testing.T) {
			f := newFixture(t)
			const before = "{\n  \"theme\": \"dark\"\n}\n"
			writeFile(t, f.userFile(), before)
			err := EditFile(f.userFile(), Change{Key: "tool_retries", Value: "5"}, tc.change)
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("EditFile error = %v, want a *config.Error with %q", err, tc.want)
			}
			if data, _ := os.ReadFile(f.userFile()); string(data) != before {
				t.Errorf("file changed to %q", data)
			}
		})
	}
}

// The loader's own message for the same bad value is the one EditFile
// gives: one validation, not two that drift apart.
func TestEditFileSameWordsAsTheLoader(t *testing.T) {
	f := newFixture(t)
	f.env["CO_CLI_TOOL_RETRIES"] = "three"
	_, loadErr := Load(f.opts())
	editErr := EditFile(f.userFile(), Change{Key: "tool_retries", Value: "three"})
	if loadErr == nil || editErr == nil {
		t.Fatalf("Load = %v, EditFile = %v; want both to refuse", loadErr, editErr)
	}
	var le, ee *Error
	if !errors.As(loadErr, &le) || !errors.As(editErr, &ee) || le.Msg != ee.Msg {
		t.Errorf("Load says %q, EditFile says %q", loadErr, editErr)
	}
}

// A file the loader refuses is not edited: the user learns where it is
// broken, and it is not overwritten.
func TestEditFileLeavesABrokenFile(t *testing.T) {
	f := newFixture(t)
	const before = "{\n  \"theme\": \"dark\",\n}\n"
	writeFile(t, f.userFile(), before)
	err := EditFile(f.userFile(), Change{Key: "theme", Value: "light"})
	var ce *Error
	if !errors.As(err, &ce) || ce.Source != f.userFile() || ce.Line != 3 {
		t.Fatalf("EditFile error = %#v, want the syntax error at line 3 of %s", err, f.userFile())
	}
	if data, _ := os.ReadFile(f.userFile()); string(data) != before {
		t.Errorf("file changed to %q", data)
	}
}

// Unsetting what the file does not have writes nothing (not even a new
// file).
func TestEditFileUnsetNothing(t *testing.T) {
	f := newFixture(t)
	if err := EditFile(f.userFile(), Change{Key: "theme", Unset: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f.userFile()); !os.IsNotExist(err) {
		t.Errorf("a file was created: %v", err)
	}
}

// CheckValue says what EditFile would say, and writes nothing.
func TestCheckValue(t *testing.T) {
	if err := CheckValue("openai_base_url", "api.example"); err == nil || err.Error() != `"openai_base_url" must be an http or https URL, got "api.example"` {
		t.Errorf("CheckValue = %v", err)
	}
	if err := CheckValue("openai_base_url", "http://localhost:8080/v1"); err != nil {
		t.Errorf("CheckValue = %v", err)
	}
	if err := CheckValue("ollama_hots", "x"); err == nil || !strings.Contains(err.Error(), `did you mean "ollama_host"`) {
		t.Errorf("CheckValue = %v", err)
	}
}
