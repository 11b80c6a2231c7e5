package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// Issue 40: co status said the sandbox was NOT USABLE and exited 0, so a
// script checking it went on to a co run that refused to start. It exits 4
// when the sandbox the settings ask for is not usable, saying why and the
// fix on stderr: Docker not answering (a dead socket stands in for an
// engine that is down), or its image missing. A provider that cannot
// answer either still exits 3.
func TestStatusExitsNonZeroWhenTheSandboxIsNotUsable(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	dead := "DOCKER_HOST=unix://" + filepath.Join(t.TempDir(), "docker.sock")
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker", dead), "", "status")
	if code != 4 || !strings.Contains(out, "sandbox         NOT USABLE") ||
		!strings.Contains(errOut, "co: not ready: the sandbox is not usable, so co and co run refuse to start: backend is \"docker\" but Docker is not available") ||
		!strings.Contains(errOut, "set CO_CLI_SANDBOX_BACKEND=subprocess") {
		t.Errorf("Docker down: exit %d, want 4\n%s\n%s", code, out, errOut)
	}

	_, errOut, code = runCo(t, t.TempDir(), env(t, nil, "CO_CLI_SANDBOX_BACKEND=docker", dead, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://"+closedPort(t)+"/v1", "OPENAI_MODEL=m", "OPENAI_API_KEY=k"), "", "status")
	if code != 3 || !strings.Contains(errOut, "the sandbox is not usable") {
		t.Errorf("Docker down and the provider too: exit %d, want 3, both said\n%s", code, errOut)
	}

	requireDocker(t)
	_, errOut, code = runCo(t, t.TempDir(), env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker", "CO_CLI_DOCKER_IMAGE=co-no-such-image:0"), "", "status")
	if code != 4 || !strings.Contains(errOut, "has no image co-no-such-image:0") || !strings.Contains(errOut, "docker build -t co-no-such-image:0 sandbox-image") {
		t.Errorf("image missing: exit %d, want 4\n%s", code, errOut)
	}
}

// Issue 40: a command that ran and exited non-zero was "rejected, sent back
// to the model" (status "retry") in co run's events and log: it failed.
func TestRunFailedCommandIsFailed(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "ls /nonexistent")}},
		llmtest.Reply{Text: "It is not there."},
	)
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv, "CO_CLI_YOLO_UNSANDBOXED=true"), "", "run", "--json", "--yes", "list it")
	if code != 0 || !strings.Contains(out, `"status":"failed","type":"tool_result"`) ||
		!strings.Contains(out, `"error":"the command exited with code 2"`) || strings.Contains(out, "rejected") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// Issue 40: --plain's question for a sandboxed command says where it runs
// and what the host path it names is in the sandbox.
func TestPlainQuestionSaysWhereTheCommandRuns(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	dir := t.TempDir()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "touch "+filepath.Join(dir, "new.txt"))}},
		llmtest.Reply{Text: "Not made."},
	)
	p := start(t, dir, env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker"), "--plain")
	p.send("make it")
	p.waitFor("Approve run_shell_command", 2*time.Minute)
	out := p.stdout.String()
	for _, want := range []string{
		"Runs in the Docker sandbox, where the workspace is /workspace (the working directory).",
		filepath.Join(dir, "new.txt") + " is /workspace/new.txt in the sandbox (this machine's path does not exist there).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the question does not say %q:\n%s", want, out)
		}
	}
	p.send("n")
	p.waitFor("Not made.", time.Minute)
}
