package config

import "testing"

func TestEntries(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"slack_bot_token": "xoxb-short", "shell_policy": [{"match": "rm", "decision": "deny"}]}`)
	f.env["GEMINI_API_KEY"] = "AIzaSyD-example-key-9f3k"
	f.env["CO_CLI_SHELL_SAFE_COMMANDS"] = "ls,git status"
	l := f.load(t)
	entries := l.Entries()
	if len(entries) != len(table) {
		t.Fatalf("%d entries, want %d", len(entries), len(table))
	}
	byKey := map[string]Entry{}
	for _, e := range entries {
		byKey[e.Key] = e
		if e.Description == "" || (e.Env == "") != (e.Key == "schedules" || e.Key == "hooks") { // schedules, hooks: files only
			t.Errorf("%s: missing description or env: %+v", e.Key, e)
		}
	}
	tests := []struct {
		key, value, source string
		secret             bool
	}{
		{"gemini_api_key", "set (…9f3k)", "$GEMINI_API_KEY", true},
		{"slack_bot_token", "set", f.userFile(), true},
		{"openai_api_key", "(not set)", "default", true},
		{"obsidian_vault_path", "(not set)", "default", false},
		{"llm_provider", "gemini", "default", false},
		{"tool_retries", "3", "default", false},
		{"sandbox_cpus", "1", "default", false},
		{"auto_confirm", "false", "default", false},
		{"shell_safe_commands", `["ls","git status"]`, "$CO_CLI_SHELL_SAFE_COMMANDS", false},
		{"shell_policy", `[{"match":"rm","decision":"deny"}]`, f.userFile(), false},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			e := byKey[tc.key]
			if e.Value != tc.value || e.Source.String() != tc.source || e.Secret != tc.secret {
				t.Errorf("Entry = {Value: %q, Source: %q, Secret: %v}, want {%q, %q, %v}",
					e.Value, e.Source, e.Secret, tc.value, tc.source, tc.secret)
			}
		})
	}
	// An empty policy shows as [], not null.
	if e := (&Loaded{Settings: Defaults()}).Entries(); e[len(e)-1].Key != "brave_search_base_url" {
		t.Errorf("entries are not in table order")
	}
	for _, e := range (&Loaded{Settings: Defaults()}).Entries() {
		if e.Key == "shell_policy" && e.Value != "[]" {
			t.Errorf("empty shell_policy shows as %q", e.Value)
		}
	}
}

func TestMaskSecret(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "(not set)"},
		{"short", "set"},
		{"elevenchars", "set"},
		{"twelve-chars", "set (…hars)"},
		{"ключ-ключ-ключ", "set (…ключ)"},
	} {
		if got := MaskSecret(tc.in); got != tc.want {
			t.Errorf("MaskSecret(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
