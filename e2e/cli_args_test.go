package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// chatRequests are the chat requests srv received (not the model list
// co asks for).
func chatRequests(srv *llmtest.Server) []llmtest.Request {
	var out []llmtest.Request
	for _, r := range srv.Requests() {
		if strings.HasSuffix(r.Path, "/chat/completions") {
			out = append(out, r)
		}
	}
	return out
}

// Arguments that name no command are the chat's first message, sent at
// once (co "what is 2+2" used to say "unknown command"), whether quoted or
// not, and after -- even when they name one.
func TestPromptArgumentsStartTheChatWithThemSent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		sent string
	}{
		{[]string{"--plain", "what is 2+2"}, "what is 2+2"},
		{[]string{"--plain", "what", "is", "2+2"}, "what is 2+2"},
		{[]string{"what is 2+2", "--plain"}, "what is 2+2"},
		{[]string{"--plain", "hello"}, "hello"}, // two slips from help: a greeting, not a typo
		{[]string{"--plain", "--", "status"}, "status"},
		{[]string{"chat", "--plain", "what is 2+2"}, "what is 2+2"},
	} {
		srv := llmtest.NewServer()
		srv.Script(llmtest.Reply{Text: "the answer is 4"})
		out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", tc.args...)
		reqs := chatRequests(srv)
		srv.Close()
		if code != 0 || !strings.Contains(out, "co> "+tc.sent+"\nthe answer is 4") {
			t.Errorf("co %q: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, out, errOut)
			continue
		}
		if len(reqs) != 1 || reqs[0].LastUserMessage() != tc.sent {
			t.Errorf("co %q: %d chat requests, want one with %q", tc.args, len(reqs), tc.sent)
		}
	}
}

// After the first message the chat goes on with what the input holds.
func TestPromptArgumentThenTheInput(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "and then?\n", "--plain", "first question")
	if code != 0 || !strings.Contains(out, "co> first question\none") || !strings.Contains(out, "co> and then?\ntwo") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// One bare word close to a command's name is a typo of it: a usage error
// naming the command (cobra's "Did you mean this?"), and nothing is sent.
func TestTypoOfACommandSaysWhichOneWasMeant(t *testing.T) {
	for word, meant := range map[string]string{"stauts": "status", "sesions": "sessions", "chta": "chat", "memroy": "memory", "sta": "status", "confg": "config"} {
		srv := llmtest.NewServer()
		_, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", word)
		n := len(chatRequests(srv))
		srv.Close()
		want := "co: unknown command \"" + word + "\" for \"co\"\n\nDid you mean this?\n\t" + meant + "\n"
		if code != 2 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "co -- "+word) || n != 0 {
			t.Errorf("co %s: exit %d, %d chat requests, stderr:\n%s\nwant exit 2, none sent and %q", word, code, n, errOut, want)
		}
	}
}

// A chat whose input is a script (not a terminal) stops at the first
// failed turn and exits 1, saying why on stderr: no provider, or the
// provider refusing the key (HTTP 401). It used to go on and exit 0.
func TestPlainScriptExitsNonZeroWhenATurnFails(t *testing.T) {
	t.Run("no provider", func(t *testing.T) {
		out, errOut, code := runCo(t, t.TempDir(), env(t, nil), "hi\nsecond\n", "--plain")
		if code != 1 || !strings.Contains(out, "error: no LLM provider is configured") || !strings.Contains(errOut, "co: the turn failed: no LLM provider is configured") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if strings.Contains(out, "co> second") {
			t.Errorf("the chat went on after the failed turn:\n%s", out)
		}
	})
	t.Run("401", func(t *testing.T) {
		srv := llmtest.NewServer()
		defer srv.Close()
		srv.Script(llmtest.Reply{Status: 401, ErrorMessage: "bad key"}, llmtest.Reply{Text: "never asked"})
		out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "hi\nsecond\n", "--plain")
		if code != 1 || !strings.Contains(errOut, "co: the turn failed: ") || !strings.Contains(errOut, "OPENAI_API_KEY") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
		if n := len(chatRequests(srv)); n != 1 || strings.Contains(out, "never asked") {
			t.Errorf("%d chat requests, want 1: the chat went on after the failed turn\n%s", n, out)
		}
	})
	t.Run("first message", func(t *testing.T) {
		_, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", "--plain", "what is 2+2")
		if code != 1 || !strings.Contains(errOut, "co: the turn failed: no LLM provider") {
			t.Fatalf("exit %d, stderr:\n%s", code, errOut)
		}
	})
	t.Run("success", func(t *testing.T) {
		srv := llmtest.NewServer()
		defer srv.Close()
		srv.Script(llmtest.Reply{Text: "fine"})
		out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "hi\n", "--plain")
		if code != 0 || !strings.Contains(out, "fine") {
			t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	})
}

// The full-screen chat sends the arguments as its first message once it is
// up, and keeps them in the input history (Up brings them back).
func TestTUIPromptArgumentIsSentFirst(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "The answer is four."})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv), 100, 30, "what is 2+2")
	scr := s.waitFor(tuiWait, "The answer is four.")
	if !strings.Contains(scr, "❯ what is 2+2") {
		t.Errorf("the first message is not in the transcript:\n%s", scr)
	}
	if got := srv.WaitRequests(1, 10*time.Second); len(got) == 0 || got[0].LastUserMessage() != "what is 2+2" {
		t.Fatalf("the model did not get the first message: %d requests", len(got))
	}
	before := strings.Count(s.screen(), "what is 2+2")
	s.keys("Up")
	deadline := time.Now().Add(tuiWait)
	for strings.Count(s.screen(), "what is 2+2") <= before {
		if time.Now().After(deadline) {
			t.Fatalf("Up did not bring the first message back into the prompt:\n%s", s.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The first message is shown as it was sent, but what it holds cannot
// drive the terminal (co "$(cat FILE)").
func TestPromptArgumentIsShownSafely(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "ok"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "--plain", "look \x1b]0;owned\x07\x1b[2Jhere")
	if code != 0 || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "co> look ") {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
}
