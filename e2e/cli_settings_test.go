package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// A malformed settings file (user or project) does not stop co status and
// co config: they say what is wrong (file, line, column, the line itself
// with a caret), show what they can without it, and exit 1. The chat
// still refuses to start, naming the same place.
func TestMalformedSettingsStillReported(t *testing.T) {
	for _, which := range []string{"user", "project"} {
		t.Run(which, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			e := env(t, srv)
			dir := t.TempDir()
			file := filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")
			if which == "project" {
				file = filepath.Join(dir, ".co-cli", "settings.json")
			}
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte("{\n  \"theme\": \"dark\",\n  \"tool_retries\": 5,,\n}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			where := file + ":3:21: invalid character ','"
			excerpt := "3 |   \"tool_retries\": 5,,\n"

			out, errOut, code := runCo(t, dir, e, "", "status")
			if code != 1 || !strings.Contains(errOut, "co: "+where) {
				t.Errorf("co status: exit %d, stderr %q; want 1 and the error", code, errOut)
			}
			for _, want := range []string{"ERROR: " + where, excerpt, "|                     ^\n", "the whole file is left out here"} {
				if !strings.Contains(out, want) {
					t.Errorf("co status lacks %q:\n%s", want, out)
				}
			}
			// The rest of the report is there.
			for _, row := range [][2]string{{"provider", "openai"}, {"reachable", "yes"}, {"sandbox", "subprocess"}, {"telemetry", envValue(e, "XDG_DATA_HOME")}} {
				if !hasRow(out, row[0], row[1]) {
					t.Errorf("co status lacks the %s row (%s):\n%s", row[0], row[1], out)
				}
			}

			out, errOut, code = runCo(t, dir, e, "", "config")
			if code != 1 || !strings.Contains(errOut, "co: "+where) {
				t.Errorf("co config: exit %d, stderr %q; want 1 and the error", code, errOut)
			}
			for _, want := range []string{"ERROR: " + where, excerpt, "(LEFT OUT: see ERROR above)", "openai_base_url", "$OPENAI_BASE_URL", "safe commands in effect"} {
				if !strings.Contains(out, want) {
					t.Errorf("co config lacks %q:\n%s", want, out)
				}
			}
			// The malformed file's theme is not in effect.
			if row := configRow(out, "theme"); !strings.HasPrefix(row, squash("theme auto (default;")) {
				t.Errorf("theme row %q: the malformed file's value is shown in effect", row)
			}

			_, errOut, code = runCo(t, dir, e, "hi\n", "--plain")
			if code != 1 || !strings.Contains(errOut, where) {
				t.Errorf("the chat: exit %d, stderr %q; want it to refuse, naming the place", code, errOut)
			}
		})
	}
}

// A wrong value is left out alone: the file's other values stay in
// effect, and the row of the value left out says so.
func TestWrongSettingValueStillReported(t *testing.T) {
	e := env(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, ".co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"theme": "light", "tool_retries": "three"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCo(t, dir, e, "", "config")
	if code != 1 || !strings.Contains(errOut, `"tool_retries" must be an integer, got "three"`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	theme, retries := configRow(out, "theme"), configRow(out, "tool_retries")
	if theme != squash("theme light (from "+file+"; env CO_CLI_THEME)") {
		t.Errorf("theme row %q: the file's good value is not in effect", theme)
	}
	if !strings.Contains(retries, "(default;") || !strings.Contains(retries, squash("[left out, see ERROR above: "+file+"]")) {
		t.Errorf("tool_retries row %q does not say the file's value was left out", retries)
	}
}

// hasRow reports whether the report out has a row key whose value starts
// with value.
func hasRow(out, key, value string) bool {
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, key+" "); ok && strings.HasPrefix(strings.TrimSpace(rest), value) {
			return true
		}
	}
	return false
}
