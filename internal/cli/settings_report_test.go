package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/config"
)

// loadBroken loads, partially, a user settings file holding body.
func loadBroken(t *testing.T, body string) (*config.Loaded, string) {
	t.Helper()
	home, work := t.TempDir(), t.TempDir()
	file := filepath.Join(home, ".config", "co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := config.Load(config.LoadOptions{Partial: true, HomeDir: home, WorkDir: work, Getenv: func(string) (string, bool) { return "", false }})
	if l == nil || err == nil {
		t.Fatalf("Load = %v, %v; want the settings and an error", l, err)
	}
	return l, file
}

// The line of a syntax error is shown with a caret under the column; on a
// long line, the part around the column.
func TestSettingsProblemsShowTheLineAndColumn(t *testing.T) {
	l, file := loadBroken(t, `{"context_files": ["`+strings.Repeat("a", 100)+`"], "theme": "dark",, "x": 1}`)
	got := strings.Join(settingsProblems(l), "\n")
	want := "ERROR: " + file + ":1:141: invalid character ','"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("got\n%s\nwant it to start %q", got, want)
	}
	lines := strings.Split(got, "\n")
	if len(lines) < 3 {
		t.Fatalf("no excerpt:\n%s", got)
	}
	code, caret := lines[1], lines[2]
	at := strings.Index(caret, "^")
	if at < 0 || code[at] != ',' || code[at-1] != ',' {
		t.Errorf("the caret is not under the second comma:\n%s\n%s", code, caret)
	}
	if n := len([]rune(strings.TrimPrefix(code, "  1 | "))); n > 60 {
		t.Errorf("the excerpt of a long line is %d runes, want 60 at most:\n%s", n, code)
	}
}

// What the file holds never reaches the terminal raw: an escape sequence on
// the bad line is shown as text, and the caret then left out.
func TestSettingsProblemsAreSanitised(t *testing.T) {
	l, _ := loadBroken(t, "{\"theme\": \"\x1b]0;owned\x07\x1b[31m\"}")
	got := strings.Join(settingsProblems(l), "\n")
	if strings.ContainsAny(got, "\x1b\x07") {
		t.Fatalf("raw control characters in %q", got)
	}
	if !strings.Contains(got, "1 | ") {
		t.Errorf("no excerpt: %q", got)
	}
}
