package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/mattn/go-runewidth"
)

// A count of one reads in the singular: co status against a server that
// lists one model said "yes (1 models listed)".
func TestStatusCountsOneModelInTheSingular(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("test-model")
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !hasRow(out, "reachable", "yes (1 model listed)") {
		t.Errorf("co status does not say one model in the singular:\n%s", out)
	}
}

// A missing or extra argument names the command once: its usage line
// already says which command it is ("co config unset" was named on two
// lines, the error and the hint to run --help).
func TestUsageErrorNamesTheCommandOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "unset"}, "co: missing KEY: co config unset KEY (--help says more)\n"},
		{[]string{"config", "unset", "theme", "dark"}, `co: one argument too many ("dark"): co config unset KEY (--help says more)` + "\n"},
	} {
		_, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", tc.args...)
		if code != 2 || errOut != tc.want {
			t.Errorf("co %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
		if n := strings.Count(errOut, "co config unset"); n != 1 {
			t.Errorf("co %s names the command %d times:\n%s", strings.Join(tc.args, " "), n, errOut)
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

// co config fits 80 columns through a pipe: the table was 150 wide. A
// long value continues under itself, its source after it.
func TestConfigFitsEightyColumnsThroughAPipe(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := runCo(t, dir, env(t, nil, "CO_CLI_NOTIFY=bell"), "", "config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, line := range strings.Split(out, "\n") {
		if w := runewidth.StringWidth(line); w > 80 && !strings.Contains(line, " file: ") && !strings.HasPrefix(line, "data dir:") {
			t.Errorf("a line of %d columns:\n%s", w, line)
		}
	}
	if got, want := configRow(out, "notify"), squash("notify bell (from $CO_CLI_NOTIFY)"); got != want {
		t.Errorf("notify row = %q, want %q", got, want)
	}
	if got := configRow(out, "shell_safe_commands"); !strings.Contains(got, `"ls","cat"`) || !strings.HasSuffix(got, "(default;envCO_CLI_SHELL_SAFE_COMMANDS)") {
		t.Errorf("shell_safe_commands row = %q", got)
	}
}
