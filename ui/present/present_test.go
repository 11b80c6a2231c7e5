package present

import (
	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"

	"strings"
	"testing"
	"time"
)

func TestCall(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"shell", `{"cmd":"ls -la"}`, "run_shell_command(cmd='ls -la')"},
		{"order kept", `{"b":1,"a":"x","c":true}`, "f(b=1, a='x', c=true)"},
		{"nested", `{"items":["a","b"]}`, `f(items=["a","b"])`},
		{"quote", `{"cmd":"echo 'hi'"}`, `run_shell_command(cmd="echo 'hi'")`},
		{"double quote", `{"cmd":"echo \"hi\""}`, `run_shell_command(cmd='echo "hi"')`},
		{"both quotes", `{"cmd":"echo \"it's\" a\\b"}`, `run_shell_command(cmd='echo "it\'s" a\\b')`},
		{"no early end", `{"cmd":"ls', path='/etc"}`, `run_shell_command(cmd="ls', path='/etc")`},
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
			if tc.name == "shell" || strings.Contains(tc.name, "quote") || tc.name == "no early end" || tc.name == "escape neutralised" || tc.name == "bidi revealed" {
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
	result := message.Message{Role: message.RoleTool, Content: `{"status":"denied","denied_by":"nobody","reason":"writes a file"}`}
	f := agent.Outcome(message.ToolCall{ID: "c", Name: "write_file"}, result)
	if got := Outcome(f); got != agent.NeedsApproval {
		t.Errorf("Outcome = %q, want %q", got, agent.NeedsApproval)
	}
}

func TestInPreview(t *testing.T) {
	diff := "--- /dev/null\n+++ b/notes/long-file-name.txt\n@@ -0,0 +1,3 @@\n+hello\n+world\n+the end\n"
	cases := []struct {
		name, args, preview string
		shown, listed       []string
	}{
		{"new file's diff holds path and content", `{"path":"notes/long-file-name.txt","content":"hello\nworld\nthe end\n","mode":420}`, diff,
			[]string{"path", "content"}, []string{"mode"}},
		{"edit: old and new text on their sides", `{"path":"a.go","old_string":"x := 1\ny := 2","new_string":"x := 3\ny := 2"}`,
			"--- a/a.go\n+++ b/a.go\n@@ -1,3 +1,3 @@\n package a\n-x := 1\n+x := 3\n y := 2\n",
			[]string{"path", "old_string", "new_string"}, nil},
		{"a diff cut short does not hold the content", `{"path":"f","content":"a\nb\nc\nd\n"}`,
			"--- /dev/null\n+++ b/f\n@@ -0,0 +1,4 @@\n+a\n+b\n… (2 more lines of diff)\n", []string{"path"}, []string{"content"}},
		{"a summary does not hold the content", `{"path":"big.bin","content":"xyzzy"}`,
			"(new file big.bin, 5 B: binary)", []string{"path"}, []string{"content"}},
		{"memory: trimmed content", `{"content":"  likes tabs \n","tags":["style"]}`,
			"Remember across sessions:\n\nlikes tabs\n\ntags: style", []string{"content", "tags"}, nil},
		{"a list with a string the preview lacks", `{"content":"likes tabs","tags":["style","hidden-tag"]}`,
			"Remember across sessions:\n\nlikes tabs\n\ntags: style", []string{"content"}, []string{"tags"}},
		{"MCP: the whole object indented", `{"message":"hi\nthere","n":{"a":[1,2]}}`,
			"server: everything\ntool: echo\narguments:\n{\n  \"message\": \"hi\\nthere\",\n  \"n\": {\n    \"a\": [\n      1,\n      2\n    ]\n  }\n}",
			[]string{"message", "n"}, nil},
		{"no preview", `{"path":"a"}`, "", nil, []string{"path"}},
		{"not an object", `["a"]`, "a", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := InPreview(tc.args, tc.preview)
			for _, k := range tc.shown {
				if !got[k] {
					t.Errorf("%s: not counted as in the preview", k)
				}
			}
			for _, k := range tc.listed {
				if got[k] {
					t.Errorf("%s: counted as in the preview, which lacks it", k)
				}
			}
		})
	}
}

func TestCallOmitting(t *testing.T) {
	args := `{"path":"notes/a.txt","content":"line one\nline two","mode":420}`
	if got, want := CallOmitting("write_file", args, map[string]bool{"content": true}), "write_file(path='notes/a.txt', content=(shown above), mode=420)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := CallOmitting("write_file", args, nil), Call("write_file", args); got != want {
		t.Errorf("nothing omitted: got %q, want %q", got, want)
	}
}
