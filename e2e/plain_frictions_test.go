package e2e

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// A command with quotes is shown as it is written, in --plain's call line
// and question: echo 'hi' was shown with \' inside single quotes. What
// came from the model is still sanitised: an escape sequence shows as ␛.
func TestPlainShowsQuotesAsWritten(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "run_shell_command", Args: `{"cmd":"echo 'hi there' \u001b[2J"}`}}},
		llmtest.Reply{Text: "Not run then."},
	)
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "greet\nn\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	want := `run_shell_command(cmd="echo 'hi there' ␛[2J")`
	if !strings.Contains(out, "tool: "+want) || !strings.Contains(out, "Approve "+want+"?") {
		t.Errorf("the call is not shown as written, %s:\n%s", want, out)
	}
	if strings.Contains(out, `\'`) || strings.ContainsRune(out, 0x1b) {
		t.Errorf("an escaped quote or a raw escape is shown:\n%q", out)
	}
}

// runCoOneStream runs co with its standard output and error on one pipe,
// as a terminal (or 2>&1) shows them: what both say is read in order.
func runCoOneStream(t *testing.T, dir string, environ []string, stdin string, args ...string) (out string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, coBin, args...)
	cmd.Env, cmd.Dir, cmd.Stdin = environ, dir, strings.NewReader(stdin)
	var b bytes.Buffer
	cmd.Stdout, cmd.Stderr = &b, &b // one writer: exec gives both the same pipe
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running co: %v", err)
	}
	return b.String(), code
}

// Without a provider, a script's chat says what to set once: the banner
// said it, the failed turn said it, and the exit said it a third time on
// the same screen. The banner now says "provider: none", the turn says
// why, and the exit code says the chat failed.
func TestPlainNoProviderSaysWhatToSetOnce(t *testing.T) {
	out, code := runCoOneStream(t, t.TempDir(), env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), "hello\n", "--plain")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	for _, s := range []string{"no LLM provider is configured", "GEMINI_API_KEY", "ollama serve"} {
		if n := strings.Count(out, s); n != 1 {
			t.Errorf("%q is said %d times:\n%s", s, n, out)
		}
	}
	if !strings.Contains(out, "provider: none — ") || !strings.Contains(out, "error: no LLM provider is configured: set GEMINI_API_KEY") {
		t.Errorf("the banner or the turn's error is missing:\n%s", out)
	}
}

// With its output apart from its errors (co --plain > log), a script's
// failed chat still says why on stderr: the log is not where a person
// looks.
func TestPlainFailureOnStderrWhenOutputIsElsewhere(t *testing.T) {
	_, errOut, code := runCo(t, t.TempDir(), env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), "hello\n", "--plain")
	if code != 1 || !strings.Contains(errOut, "co: the turn failed: no LLM provider is configured") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// An MCP server's notice that arrives once the prompt is shown takes the
// prompt's line, and the prompt comes back below it: in a terminal, the
// prompt stayed above the notice, blank ("co> " twice on the screen).
func TestPlainLateMCPNoticeLeavesNoBlankPrompt(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e := tuiEnv(t, srv)
	// The server answers with junk (and so fails) only when the test says.
	mcpSettings(t, e, `{"late": {"command": "sh", "args": ["-c", "read x < `+fifo+`; echo junk; exec sleep 30"]}}`)
	s := startTUI(t, t.TempDir(), e, 120, 30, "--plain")
	s.waitFor(tuiWait, "Type a message", "co>") // tmux drops the trailing space
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			_, _ = f.WriteString("now\n")
			f.Close()
		}
	}()
	scr := s.waitFor(tuiWait, "warning: MCP server late failed to start")
	var prompts, warning, last int
	for i, l := range strings.Split(strings.TrimRight(scr, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "co>"):
			prompts++
			last = i
		case strings.HasPrefix(l, "warning: MCP server late"):
			warning = i
		}
	}
	if prompts != 1 || last < warning {
		t.Errorf("want one prompt, below the notice; %d prompts:\n%s", prompts, scr)
	}
	// The prompt still takes a line.
	s.send("/history")
	s.waitFor(tuiWait, "0 turns, 0 messages")
}
