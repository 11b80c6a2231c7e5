package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/sessions"
)

func isolatedHome(t *testing.T) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", home+"/.config")
	t.Setenv("XDG_DATA_HOME", home+"/.local/share")
	t.Setenv("XDG_STATE_HOME", home+"/.local/state")
	t.Chdir(home)
}

// co policy check's reason quotes the command as the policy read it; a
// ${IFS} in it became a raw NUL byte on the terminal.
func TestPolicyCheckOutputIsSanitised(t *testing.T) {
	isolatedHome(t)
	code, out, errOut := run(t, "v", "policy", "check", "cat${IFS}~/.ssh/id_rsa\u202e")
	if code != 3 && code != 4 { // ask or deny: the command reads a private key
		t.Fatalf("co policy check = %d, %q", code, errOut)
	}
	if strings.ContainsAny(out, "\x00\u202e") {
		t.Fatalf("raw control in output: %q", out)
	}
	if !strings.Contains(out, "cat␀~/.ssh/id_rsa") {
		t.Fatalf("the reason does not show the NUL as ␀: %q", out)
	}
}

// Session titles come from prompts: tables keep them safe and on one line.
func TestSessionTableCellsAreSanitised(t *testing.T) {
	got := sessionTable([]sessions.Info{{ID: "abc", Title: "fix\u202eit\nnow\x1b[2J", Updated: time.Unix(0, 0)}}, false, "")
	if strings.ContainsAny(got, "\x1b\u202e") || strings.Count(got, "\n") != 1 {
		t.Fatalf("table = %q", got)
	}
	if !strings.Contains(got, "fix<U+202E>it⏎now␛[2J") {
		t.Fatalf("title not shown safely: %q", got)
	}
}
