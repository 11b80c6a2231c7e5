package telemetry

import (
	"strings"
	"testing"
)

// A hook's run (execute_hook EVENT) reads as a hook in co tail and co
// traces: its matcher, exit, whether it blocked, and its command and
// output as details, made safe for the terminal.
func TestTailShowsAHooksRun(t *testing.T) {
	s := &Span{Name: "execute_hook PreToolUse", Attributes: map[string]any{
		"gen_ai.operation.name": "execute_hook", "co.hook.event": "PreToolUse", "co.hook.matcher": "run_shell_command",
		"co.hook.command": "~/bin/guard", "co.hook.exit_code": float64(2), "co.hook.blocked": true,
		"co.hook.timed_out": false, "co.hook.stderr": "no force push\x1b[31m", "co.hook.source": "/home/u/.co-cli/settings.json",
	}}
	line := FormatLine(s)
	for _, want := range []string{"HOOK", "matcher=run_shell_command", "exit=2", "blocked", "from=/home/u/.co-cli/settings.json"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "timed-out") {
		t.Errorf("line %q says timed out", line)
	}
	var got []string
	for _, d := range Details(s) {
		got = append(got, d.Label+": "+d.Text)
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "command: ~/bin/guard") || !strings.Contains(all, "stderr: no force push") {
		t.Errorf("details %q", all)
	}
}
