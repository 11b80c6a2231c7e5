package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// co config is honest about a value a project file may not set: the row
// shows the value and source in effect, and says the project file's value
// was ignored; the warning says so on stderr, naming where to set it.
func TestConfigShowsIgnoredProjectValues(t *testing.T) {
	isolatedHome(t)
	t.Setenv("SLACK_BOT_TOKEN", "")
	t.Setenv("CO_CLI_SANDBOX_MEM_LIMIT", "")
	t.Setenv("CO_CLI_THEME", "")
	wd, _ := os.Getwd()
	project := filepath.Join(wd, ".co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(project), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(project, []byte(`{"slack_bot_token": "xoxb-attacker-0123456789", "sandbox_mem_limit": "64g", "theme": "dark"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "v", "config")
	if code != exitOK {
		t.Fatalf("co config = %d: %s", code, errOut)
	}
	row := func(key string) string {
		if r := configRow(out, key); r != "" {
			return r
		}
		t.Fatalf("no row for %s:\n%s", key, out)
		return ""
	}
	ignored := "[ignored: " + project + " sets it, but a project file may not]"
	for key, want := range map[string][]string{
		"slack_bot_token":   {"(default;", "(not set)", ignored},
		"sandbox_mem_limit": {"(default;", "1g[ignored", ignored},
	} {
		r := row(key)
		for _, w := range want {
			if !strings.Contains(r, squash(w)) {
				t.Errorf("%s row lacks %q:\n%s", key, w, r)
			}
		}
	}
	if r := row("theme"); !strings.Contains(r, squash(project)) || !strings.Contains(r, "dark") || strings.Contains(r, "ignored") {
		t.Errorf("theme row (a project file may set it):\n%s", r)
	}
	if strings.Contains(out+errOut, "attacker") {
		t.Errorf("the project file's token is shown:\n%s\n%s", out, errOut)
	}
	for _, want := range []string{
		`co: warning: ignored "slack_bot_token" in ` + project + ": a project file may not set it (a secret",
		"set it in " + filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "co-cli", "settings.json") + " or $SLACK_BOT_TOKEN instead",
		`co: warning: ignored "sandbox_mem_limit" in ` + project,
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}

// The documented example (docs/configuration.md), `co config set context_files CLAUDE.md,GEMINI.md`,
// was "unknown command". It writes the user file, mode 0600, and co config
// then shows the value from that file; co config unset takes it out again.
func TestConfigSetAndUnset(t *testing.T) {
	isolatedHome(t)
	t.Setenv("CO_CLI_CONTEXT_FILES", "")
	t.Setenv("GEMINI_API_KEY", "")
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(user), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(user, []byte("{\n  \"theme\": \"dark\"\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, "v", "config", "set", "context_files", "CLAUDE.md,GEMINI.md")
	if code != exitOK || out != `set context_files = ["CLAUDE.md","GEMINI.md"] in `+user+"\n" {
		t.Fatalf("co config set = %d, %q, %q", code, out, errOut)
	}
	data, _ := os.ReadFile(user)
	const want = "{\n  \"theme\": \"dark\",\n  \"context_files\": [\n    \"CLAUDE.md\",\n    \"GEMINI.md\"\n  ]\n}\n"
	if string(data) != want {
		t.Errorf("file =\n%s\nwant\n%s", data, want)
	}
	if fi, err := os.Stat(user); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode = %v, %v; want 0600", fi.Mode().Perm(), err)
	}
	_, out, _ = run(t, "v", "config")
	if row := configRow(out, "context_files"); row != squash(`context_files ["CLAUDE.md","GEMINI.md"] (from `+user+`; env CO_CLI_CONTEXT_FILES)`) {
		t.Errorf("co config does not show the value from the user file: %q", row)
	}

	// A negative number is a value, not a flag.
	if code, out, errOut := run(t, "v", "config", "set", "llm_temperature", "-1"); code != exitOK || !strings.HasPrefix(out, "set llm_temperature = -1 in ") {
		t.Errorf("co config set llm_temperature -1 = %d, %q, %q", code, out, errOut)
	}
	if code, _, _ := run(t, "v", "config", "unset", "llm_temperature"); code != exitOK {
		t.Errorf("unset llm_temperature = %d", code)
	}

	code, out, errOut = run(t, "v", "config", "unset", "context_files")
	if code != exitOK || out != "unset context_files in "+user+"\n" {
		t.Fatalf("co config unset = %d, %q, %q", code, out, errOut)
	}
	if data, _ := os.ReadFile(user); string(data) != "{\n  \"theme\": \"dark\"\n}\n" {
		t.Errorf("after unset the file is\n%s", data)
	}
}

// A secret read from standard input (no value on the command line, so none
// in the shell's history) is saved and never echoed back.
func TestConfigSetSecretFromStdin(t *testing.T) {
	isolatedHome(t)
	t.Setenv("GEMINI_API_KEY", "")
	var o, e bytes.Buffer
	code := Run([]string{"config", "set", "gemini_api_key"}, Streams{In: strings.NewReader("AIzaSy-very-secret-0123\n"), Out: &o, Err: &e}, "v")
	if code != exitOK {
		t.Fatalf("co config set = %d: %s", code, e.String())
	}
	if strings.Contains(o.String()+e.String(), "very-secret") {
		t.Errorf("the key was shown: %q %q", o.String(), e.String())
	}
	if !strings.Contains(o.String(), "set gemini_api_key = (hidden, ends …0123) in ") {
		t.Errorf("output %q", o.String())
	}
	data, _ := os.ReadFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "co-cli", "settings.json"))
	if !strings.Contains(string(data), `"gemini_api_key": "AIzaSy-very-secret-0123"`) {
		t.Errorf("file = %s", data)
	}
}

// Mistakes are usage errors (exit 2) that say what was wrong and how to
// fix it; nothing is written. An environment variable that still overrides
// the new value is pointed out.
func TestConfigSetMistakes(t *testing.T) {
	isolatedHome(t)
	t.Setenv("CO_CLI_THEME", "")
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "co-cli", "settings.json")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "set", "context_file", "CLAUDE.md"}, `unknown setting "context_file" (did you mean "context_files"?)`},
		{[]string{"config", "set", "tool_retries", "three"}, `"tool_retries" must be an integer, got "three"`},
		{[]string{"config", "set", "theme", "blue"}, `"theme" must be "auto", "light" or "dark", got "blue"`},
		{[]string{"config", "unset", "them"}, `unknown setting "them" (did you mean "theme"?)`},
		{[]string{"config", "sett", "theme", "dark"}, `unknown command "sett" for "co config"`},
		// No --project: the flag is named, and where a project setting goes.
		{[]string{"config", "set", "sandbox_network", "bridge", "--project"}, "unknown flag --project after sandbox_network bridge: co config set has no flags; it writes only your user settings file (a project's ./.co-cli/settings.json is edited by hand)"},
		{[]string{"config", "set", "context_files", "A.md", "B.md"}, `"B.md" after context_files A.md is one word too many`},
	} {
		code, _, errOut := run(t, "v", tc.args...)
		if code != exitUsage || !strings.Contains(errOut, tc.want) {
			t.Errorf("co %v = %d, %q; want exit 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if _, err := os.Stat(user); !os.IsNotExist(err) {
		t.Errorf("a mistake wrote the user file: %v", err)
	}

	t.Setenv("CO_CLI_THEME", "light")
	code, out, errOut := run(t, "v", "config", "set", "theme", "dark")
	if code != exitOK || !strings.Contains(errOut, "co: note: $CO_CLI_THEME still overrides it") {
		t.Errorf("co config set under an env override = %d, %q", code, errOut)
	}
	// One shape whatever overrides it: the value written, not dropped.
	if out != "set theme = dark in "+user+"\n" {
		t.Errorf("co config set under an env override says %q", out)
	}
}

// co config set says "set KEY = VALUE in FILE" for every key: overridden by
// the environment or not, a short secret and a long one masked.
func TestConfigSetSaysOneShape(t *testing.T) {
	isolatedHome(t)
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "co-cli", "settings.json")
	t.Setenv("LLM_PROVIDER", "gemini")
	t.Setenv("OPENAI_API_KEY", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "set", "llm_provider", "ollama"}, "set llm_provider = ollama in " + user + "\n"},
		{[]string{"config", "set", "openai_api_key", "short"}, "set openai_api_key = (hidden) in " + user + "\n"},
		{[]string{"config", "set", "openai_api_key", "sk-a-long-secret-9876"}, "set openai_api_key = (hidden, ends …9876) in " + user + "\n"},
	} {
		code, out, errOut := run(t, "v", tc.args...)
		if code != exitOK || out != tc.want || strings.Contains(out+errOut, "long-secret") {
			t.Errorf("co %v = %d, %q (%q); want %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

// configRow is key's row of co config's table, its wrapped lines joined,
// with no spaces at all: a row wraps where the width says, even inside a
// long path, so a test compares it with squash(want).
func configRow(out, key string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, key+" "):
			in = true
		case in && strings.HasPrefix(line, " ") && strings.TrimSpace(line) != "":
		default:
			in = false
		}
		if in {
			b.WriteString(line)
		}
	}
	return squash(b.String())
}

// squash is s without spaces.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// co config fits 80 columns when its output is not a terminal: a row
// wider than that continues under the value; the table was 150 wide.
func TestConfigFitsEightyColumns(t *testing.T) {
	isolatedHome(t)
	wd := t.TempDir()
	t.Chdir(wd)
	t.Setenv("CO_CLI_NOTIFY", "bell")
	code, out, errOut := run(t, "v", "config")
	if code != exitOK {
		t.Fatalf("co config = %d: %s", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if w := runewidth.StringWidth(line); w > 80 && !strings.HasPrefix(line, "user file:") && !strings.HasPrefix(line, "project file:") && !strings.HasPrefix(line, "data dir:") {
			t.Errorf("a line of %d columns:\n%s", w, line)
		}
	}
	for key, want := range map[string]string{
		"notify":          "bell  (from $CO_CLI_NOTIFY)",
		"theme":           "auto  (default; env CO_CLI_THEME)",
		"gemini_base_url": "https://generativelanguage.googleapis.com/v1beta/openai/  (default; env GEMINI_BASE_URL)",
		"schedules":       "{}  (default; user file only)",
	} {
		if got := configRow(out, key); got != squash(key+want) {
			t.Errorf("%s row = %q, want %q", key, got, squash(key+want))
		}
	}
}
