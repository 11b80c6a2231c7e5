package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, key+" ") {
				return line
			}
		}
		t.Fatalf("no row for %s:\n%s", key, out)
		return ""
	}
	ignored := "[ignored: " + project + " sets it, but a project file may not]"
	for key, want := range map[string][]string{
		"slack_bot_token":   {" default ", "(not set)", ignored},
		"sandbox_mem_limit": {" default ", " 1g ", ignored},
	} {
		r := row(key)
		for _, w := range want {
			if !strings.Contains(r, w) {
				t.Errorf("%s row lacks %q:\n%s", key, w, r)
			}
		}
	}
	if r := row("theme"); !strings.Contains(r, project) || !strings.Contains(r, "dark") || strings.Contains(r, "ignored") {
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
