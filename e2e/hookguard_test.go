package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// A PreToolUse guard in the user's settings blocks the command it guards,
// in co run and in the chat (--plain): the command does not run, nobody is
// asked, the user sees the hook's reason and so does the model (issue 42).
func TestAUserGuardHookBlocksTheCommandInRunAndTheChat(t *testing.T) {
	guard := filepath.Join(t.TempDir(), "guard.sh")
	if err := os.WriteFile(guard, []byte("#!/bin/bash\ncase \"$(cat)\" in *pushed.txt*) echo 'no pushing from here' >&2; exit 2;; esac\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{
		"matcher": "run_shell_command", "hooks": []any{map[string]any{"type": "command", "command": guard}}}}}})
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"co run", "", []string{"run", "push it"}},
		{"plain", "push it\n", []string{"--plain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Script(
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "run_shell_command", Args: `{"cmd":"echo pushed > pushed.txt"}`}}},
				llmtest.Reply{Text: "Blocked, then."},
			)
			e := env(t, srv)
			file := filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, settings, 0o600); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			out, errOut, _ := runCo(t, dir, e, tc.stdin, tc.args...)
			if _, err := os.Stat(filepath.Join(dir, "pushed.txt")); err == nil {
				t.Fatalf("the guarded command ran:\n%s\n%s", out, errOut)
			}
			if !strings.Contains(out+errOut, "no pushing from here") {
				t.Fatalf("the hook's reason is not shown:\n%s\n%s", out, errOut)
			}
			if strings.Contains(out+errOut, "Approve ") {
				t.Fatalf("the user was asked about a call the hook blocked:\n%s", out)
			}
			reqs := srv.Requests()
			if len(reqs) < 2 {
				t.Fatalf("%d requests:\n%s\n%s", len(reqs), out, errOut)
			}
			if res := reqs[1].ToolResults(); len(res) != 1 || !strings.Contains(res[0], "no pushing from here") {
				t.Fatalf("the model got %q", res)
			}
		})
	}
}
