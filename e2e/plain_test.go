package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

func TestPlainStreamsReplyFromPipedScript(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Hello from the **model**.", ChunkSize: 3})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "hi there\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"co 0.1.0-dev", "provider: openai (test-model)", "co> hi there", "Hello from the **model**.", "/help"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 1 || reqs[0].LastUserMessage() != "hi there" {
		t.Fatalf("requests = %+v", reqs)
	}
}

func TestPlainIsChosenForDumbTerminalsAndPipes(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "plain reply"})
	// No --plain: stdout is a pipe and TERM is dumb, so co must not draw a
	// full-screen UI (no alternate screen, no escape sequences at all).
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "q\n")
	if code != 0 || !strings.Contains(out, "plain reply") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if strings.ContainsRune(out, 0x1b) {
		t.Errorf("output has escape sequences: %q", out)
	}
}

func TestPlainSlashCommands(t *testing.T) {
	script := strings.Join([]string{"/help", "/nope", "/tool", "/tools", "/history", "/yolo", "/clear", "exit", "never read"}, "\n")
	out, _, code := runCo(t, t.TempDir(), env(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m"), script, "--plain")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"Commands:", "/history", "!cmd",
		"error: unknown command /nope — type /help",
		"error: unknown command /tool (did you mean /tools?)",
		"tools:",
		"0 turns, 0 messages",
		"Started a new conversation",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "never read") && !strings.Contains(out, "co> never read") {
		t.Errorf("input after exit was handled")
	}
}

func TestPlainEOFEndsCleanly(t *testing.T) {
	out, _, code := runCo(t, t.TempDir(), env(t, nil), "", "--plain")
	if code != 0 || !strings.Contains(out, "co> ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestPlainWithoutProviderSaysWhatToSet(t *testing.T) {
	// No key, no Ollama, no URL: the chat still starts, slash commands
	// work, and a prompt gets a message that says what to set. The input
	// is a script: the failed turn ends the chat with exit 1.
	out, _, code := runCo(t, t.TempDir(), env(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), "/help\nhello\n", "--plain")
	if code != 1 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"Commands:", "error: no LLM provider is configured", "GEMINI_API_KEY", "ollama serve", "OPENAI_BASE_URL"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPlainNeutralisesEscapeSequences(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	evil := "ok\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\u009b31m\rgone"
	srv.Script(llmtest.Reply{Text: evil})
	out, _, _ := runCo(t, t.TempDir(), env(t, srv), "go\n", "--plain")
	if strings.ContainsAny(out, "\x1b\x07\r") || strings.ContainsRune(out, 0x9b) {
		t.Fatalf("control characters reached the output: %q", out)
	}
	if !strings.Contains(out, "ok␛[2J␛]52;c;ZXZpbA==␇") {
		t.Errorf("escape sequences should be shown, neutralised: %q", out)
	}
}

func TestPlainCtrlC(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{Text: strings.Repeat("slowly ", 400), ChunkSize: 7, ChunkDelay: 10 * time.Millisecond},
		llmtest.Reply{Text: "second answer"},
	)
	p := start(t, t.TempDir(), env(t, srv), "--plain")
	p.waitFor("co> ", 10*time.Second)
	p.send("talk")
	p.waitFor("slowly slowly", 10*time.Second)
	// Ctrl+C during a turn cancels the turn, not co.
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	p.waitFor("Interrupted.", 5*time.Second)
	p.send("again")
	p.waitFor("second answer", 10*time.Second)
	// The second request carries a valid history: the partial reply, marked.
	reqs := srv.WaitRequests(2, 5*time.Second)
	msgs := reqs[1].Body.Messages
	if len(msgs) != 4 || msgs[2].Role != "assistant" || !strings.Contains(msgs[2].Content, "interrupted") {
		t.Fatalf("second request messages: %+v", msgs)
	}
	// At the prompt (the third one: after start, the interrupted turn and
	// the second answer): the first Ctrl+C warns, a second within 2 s exits.
	p.waitCount("co> ", 3, 30*time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	p.waitFor("Press Ctrl+C again to exit.", 5*time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	if code := p.wait(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestPlainCtrlCTwiceSlowlyDoesNotExit(t *testing.T) {
	p := start(t, t.TempDir(), env(t, nil), "--plain")
	p.waitFor("co> ", 10*time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	p.waitFor("Press Ctrl+C again to exit.", 5*time.Second)
	// Sleeping is the behaviour under test here (a press more than 2 s later
	// is a first press again); a sleep can only last longer, never shorter.
	time.Sleep(2200 * time.Millisecond)
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	// A second warning, not an exit: waitCount fails if co exits instead.
	p.waitCount("Press Ctrl+C again to exit.", 2, 30*time.Second)
	p.send("exit")
	if code := p.wait(5 * time.Second); code != 0 {
		t.Fatalf("exit code %d", code)
	}
}

func TestConfigErrorsAreClear(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := "{\n  \"tool_retries\": 3,\n  \"theme\": \"dark\",,\n}\n"
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCo(t, dir, env(t, nil), "", "--plain")
	if code != 1 || !strings.Contains(errOut, filepath.Join(dir, ".co-cli", "settings.json")+":3:") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = runCo(t, t.TempDir(), env(t, nil, "CO_CLI_TOOL_RETRIES=three"), "", "config")
	if code != 1 || !strings.Contains(errOut, "CO_CLI_TOOL_RETRIES") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestPlainCompact(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{Text: "first answer"},
		llmtest.Reply{Text: "second answer"},
		llmtest.Reply{Text: "- we talked twice"},
		llmtest.Reply{Text: "after compact"},
	)
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "one\ntwo\n/compact\n/history\nthree\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{"Summarising the conversation…", "Compacted 4 messages into a summary.", "1 turn, 2 messages", "after compact"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	msgs := srv.Requests()[3].Body.Messages
	if len(msgs) != 4 || !strings.Contains(msgs[1].Content, "we talked twice") || msgs[3].Content != "three" {
		t.Errorf("request after /compact: %+v", msgs)
	}
}
