package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// `co chat` is the design's name for the chat: it starts it as bare co does.
func TestChatSubcommandStartsTheChat(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "chat reply"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "hi\n", "chat", "--plain")
	if code != 0 || !strings.Contains(out, "chat reply") {
		t.Fatalf("co chat: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// `co completion SHELL` prints a completion script for that shell; another
// shell is a usage error.
func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "complete -o default -F __start_co co", "zsh": "#compdef co", "fish": "complete -c co"} {
		out, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", "completion", shell)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("co completion %s: exit %d, stdout lacks %q\nstderr:\n%s", shell, code, want, errOut)
		}
	}
	if _, _, code := runCo(t, t.TempDir(), env(t, nil), "", "completion", "tcsh"); code != 2 {
		t.Errorf("co completion tcsh: exit %d, want 2", code)
	}
}

// co run says on stderr when shell commands would run unsandboxed; the
// answer on stdout stays clean.
func TestRunWarnsWhenUnsandboxed(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "42"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "run", "what is 6*7")
	if code != 0 || strings.TrimSpace(out) != "42" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errOut)
	}
	if !strings.Contains(errOut, "co: warning: UNSANDBOXED") {
		t.Errorf("stderr lacks the unsandboxed warning:\n%s", errOut)
	}
}

// A usage error of a subcommand points at that subcommand's help.
func TestUsageErrorsPointAtTheSubcommandsHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		hint string
	}{
		{[]string{"version", "extra"}, "Run 'co version --help' for usage."},
		{[]string{"status", "--no-such-flag"}, "Run 'co status --help' for usage."},
		{[]string{"--no-such-flag"}, "Run 'co --help' for usage."},
	} {
		_, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.hint) {
			t.Errorf("co %v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.hint)
		}
	}
}

// The chat ended by SIGTERM exits 143, as the convention says (128+15).
func TestChatExitCodeAfterSIGTERM(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	p := start(t, t.TempDir(), env(t, srv), "--plain")
	p.waitFor("co> ", 10*time.Second)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.wait(15 * time.Second); code != 143 {
		t.Errorf("exit %d after SIGTERM, want 143", code)
	}
}

// co config says which settings files do not exist.
func TestConfigSaysWhichFilesDoNotExist(t *testing.T) {
	out, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", "config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, prefix := range []string{"user file:", "project file:"} {
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, prefix) && !strings.HasSuffix(line, "(does not exist)") {
				t.Errorf("%q does not say the file does not exist", line)
			}
		}
	}
}

// co config shows the safe commands in effect: the built-in list, which
// shell_safe_commands does not replace, and the user's additions apart.
func TestConfigShowsTheEffectiveSafeCommands(t *testing.T) {
	out, errOut, code := runCo(t, t.TempDir(), env(t, nil, "CO_CLI_SHELL_SAFE_COMMANDS=npm test,ls"), "", "config")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	i := strings.Index(out, "safe commands in effect")
	if i < 0 {
		t.Fatalf("no effective safe-command list:\n%s", out)
	}
	list := out[i:]
	for _, want := range []string{"built in (always):", "cat,", "git status,", "added by shell_safe_commands ($CO_CLI_SHELL_SAFE_COMMANDS): npm test\n"} {
		if !strings.Contains(list, want) {
			t.Errorf("effective list lacks %q:\n%s", want, list)
		}
	}
}

// co status reports when no sandbox is usable and sandbox_fallback=error
// (exactly when it is needed): the sandbox line says what is wrong, and the
// exit is 4 (co and co run would refuse to start), the provider answering.
func TestStatusReportsWhenTheSandboxFallbackRefuses(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv,
		"CO_CLI_SANDBOX_BACKEND=auto", "CO_CLI_SANDBOX_FALLBACK=error", "DOCKER_HOST=unix:///nonexistent/docker.sock"), "", "status")
	if code != 4 || !strings.Contains(errOut, "co: not ready: the sandbox is not usable") {
		t.Fatalf("exit %d, want 4 with the reason on stderr:\n%s", code, errOut)
	}
	for _, want := range []string{"provider", "sandbox         NOT USABLE — ", `the fallback policy is "error"`, "telemetry"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
}

// A base URL without its /v1 answers 404 to everything: co status says the
// provider is not reachable there and what to check (any HTTP answer used
// to count as reachable), and exits 3.
func TestStatusWrongBaseURLIsNotReachable(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	root := strings.TrimSuffix(srv.URL, "/v1")
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv, "OPENAI_BASE_URL="+root), "", "status")
	if code != 3 {
		t.Fatalf("exit %d, want 3: %s", code, errOut)
	}
	if !strings.Contains(out, "reachable       NO — HTTP 404 at "+root+"/models") || !strings.Contains(out, "check OPENAI_BASE_URL") {
		t.Errorf("status does not say the address is wrong:\n%s", out)
	}
	out, _, _ = runCo(t, t.TempDir(), env(t, srv), "", "status")
	if !strings.Contains(out, "reachable       yes (") {
		t.Errorf("status of the right address:\n%s", out)
	}
}
