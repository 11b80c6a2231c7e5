package present

import (
	"github.com/co-cli/co/agent"

	"testing"
	"time"
)

func TestCall(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"shell", `{"cmd":"ls -la"}`, "run_shell_command(cmd='ls -la')"},
		{"order kept", `{"b":1,"a":"x","c":true}`, "f(b=1, a='x', c=true)"},
		{"nested", `{"items":["a","b"]}`, `f(items=["a","b"])`},
		{"quote", `{"cmd":"echo 'hi'"}`, `run_shell_command(cmd='echo \'hi\'')`},
		{"escape neutralised", `{"cmd":"echo \u001b[2J"}`, "run_shell_command(cmd='echo ␛[2J')"},
		{"bidi revealed", `{"cmd":"ls \u202e"}`, "run_shell_command(cmd='ls <U+202E>')"},
		{"invalid json", `{"cmd": "unterminated`, `f({"cmd": "unterminated)`},
		{"empty", `{}`, "f()"},
		{"newline shown", `{"path":"a.md","content":"# Hello\nworld"}`, `f(path='a.md', content='# Hello⏎world')`},
		{"tab shown", `{"cmd":"a\tb\r\nc"}`, `f(cmd='a\tb⏎c')`},
		{"raw newline", "not json\nsecond", `f(not json⏎second)`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			name := "f"
			if tc.name == "shell" || tc.name == "quote" || tc.name == "escape neutralised" || tc.name == "bidi revealed" {
				name = "run_shell_command"
			}
			if got := Call(name, tc.args); got != tc.want {
				t.Errorf("Call = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{85 * time.Millisecond: "85ms", 1200 * time.Millisecond: "1.2s", 123 * time.Second: "2m03s"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%s) = %q, want %q", d, got, want)
		}
	}
}

// A call nobody was asked about (co run without --yes), read back in a
// resumed session, is not "denied by the user".
func TestOutcomeOfAnUnattendedCall(t *testing.T) {
	result := agent.Message{Role: agent.RoleTool, Content: `{"status":"denied","denied_by":"nobody","reason":"writes a file"}`}
	f := agent.Outcome(agent.ToolCall{ID: "c", Name: "write_file"}, result)
	if got := Outcome(f); got != agent.NeedsApproval {
		t.Errorf("Outcome = %q, want %q", got, agent.NeedsApproval)
	}
}
