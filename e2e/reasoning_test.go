package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// thinkingReply streams reasoning (reasoning_content deltas, as thinking
// models send it, in 4-rune pieces) before the answer. The escape sequence
// at its end must never reach the terminal.
func thinkingReply() llmtest.Reply {
	return llmtest.Reply{Reasoning: "\nThe user wants a sum.\n\nTwo plus two is four.\x1b[2J", Chunks: []string{"The answer ", "is 4."}}
}

func TestPlainPrintsReasoningPrefixed(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(thinkingReply())
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "add 2 and 2\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	want := "co> add 2 and 2\nthinking: The user wants a sum.\nthinking: Two plus two is four.␛[2J\nThe answer is 4.\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("escape sequences in piped output: %q", out)
	}
	for _, hide := range [][]string{{"--plain", "--no-reasoning"}, {"--plain"}} {
		srv.Script(thinkingReply())
		e := env(t, srv)
		if len(hide) == 1 {
			e = append(e, "CO_CLI_SHOW_REASONING=false")
		}
		out, _, code := runCo(t, t.TempDir(), e, "add 2 and 2\n", hide...)
		if code != 0 || strings.Contains(out, "thinking") || strings.Contains(out, "Two plus two") || !strings.Contains(out, "The answer is 4.") {
			t.Errorf("%v %v: exit %d, reasoning not hidden:\n%s", hide, e[len(e)-1], code, out)
		}
	}
}

// On a terminal (here a tmux pane) the reasoning is dimmed, unless
// NO_COLOR is set.
func TestPlainDimsReasoningOnATerminal(t *testing.T) {
	for _, noColor := range []bool{false, true} {
		t.Run(fmt.Sprintf("NO_COLOR=%v", noColor), func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Script(thinkingReply())
			var extra []string
			if noColor {
				extra = append(extra, "NO_COLOR=1")
			}
			s := startTUI(t, t.TempDir(), tuiEnv(t, srv, extra...), 100, 30, "--plain")
			s.waitFor(tuiWait, "co>") // the pane drops the trailing space
			s.send("add")
			s.waitFor(tuiWait, "The answer is 4.", "thinking: Two plus two is four.")
			out, err := exec.Command("tmux", "-S", s.sock, "capture-pane", "-e", "-p", "-t", "co").CombinedOutput()
			if err != nil {
				t.Fatal(err)
			}
			var line string
			for _, l := range strings.Split(string(out), "\n") {
				if strings.Contains(l, "Two plus two") {
					line = l
				}
			}
			dim := strings.Contains(line, "\x1b[2m")
			if dim == noColor {
				t.Errorf("dimmed = %v with NO_COLOR %v: %q", dim, noColor, line)
			}
			if dim && strings.Index(line, "\x1b[2m") < strings.Index(line, "thinking: ") {
				t.Errorf("the prefix is dimmed too: %q", line)
			}
		})
	}
}

func TestRunJSONReasoningEvents(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(thinkingReply(), thinkingReply(), thinkingReply())
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "--json", "add")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	var types []string
	var reasoning, text strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		types = append(types, m["type"].(string))
		switch m["type"] {
		case "reasoning":
			reasoning.WriteString(m["text"].(string))
		case "text":
			text.WriteString(m["text"].(string))
		}
	}
	if got := strings.Join(dedupe(types), ","); got != "session,reasoning,text,turn_finished" {
		t.Errorf("event types = %s", got)
	}
	if got := reasoning.String(); !strings.Contains(got, "The user wants a sum.\n\nTwo plus two is four.\x1b[2J") {
		t.Errorf("reasoning = %q", got)
	}
	if text.String() != "The answer is 4." {
		t.Errorf("text = %q", text.String())
	}

	// Without --json the reasoning stays off stdout.
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "add")
	if code != 0 || out != "The answer is 4.\n" || !strings.Contains(errOut, "thinking…") || strings.Contains(errOut, "Two plus two") {
		t.Errorf("text mode: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, _, _ = runCo(t, t.TempDir(), env(t, srv), "", "run", "--json", "--no-reasoning", "add")
	if strings.Contains(out, `"reasoning"`) || !strings.Contains(out, `"turn_finished"`) {
		t.Errorf("--no-reasoning still emits reasoning:\n%s", out)
	}
}
