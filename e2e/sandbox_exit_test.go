package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/sandbox/sandboxtest"
)

// starting is the notice a command gives while it waits for the sandbox's container.
const starting = "starting the sandbox…"

// waitErr waits until stderr contains s (the deadline only detects a hang).
func (p *proc) waitErr(s string, timeout time.Duration) {
	p.t.Helper()
	deadline := hangDeadline(timeout)
	for !strings.Contains(p.stderr.String(), s) {
		select {
		case <-p.done:
			if strings.Contains(p.stderr.String(), s) {
				return
			}
			p.t.Fatalf("co exited (%v) before printing %q on stderr", p.err, s)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %q on stderr", s)
		}
	}
}

// The first command does not sit silent while the container starts: it says "starting the
// sandbox…". co talks to the engine through a proxy that holds the container's creation until the
// notice has been seen, so the command is waiting for the container for as long as the test needs,
// whatever the machine's speed.
func TestFirstCommandSaysStartingTheSandbox(t *testing.T) {
	requireDocker(t)
	t.Run("co run", func(t *testing.T) {
		hold := sandboxtest.NewCreateHold(t)
		srv := llmtest.NewServer()
		defer srv.Close()
		srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "echo from-the-sandbox")}}, llmtest.Reply{Text: "done"})
		e := env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker", "GORACE=atexit_sleep_ms=0", "DOCKER_HOST="+hold.Host())
		p := start(t, t.TempDir(), e, "run", "--yes", "go")
		p.stdin.Close() // nothing piped: an open pipe would be read as data until it closes
		p.waitErr("note: "+starting, 60*time.Second)
		hold.Release()
		if code := p.wait(3 * time.Minute); code != 0 || strings.TrimSpace(p.stdout.String()) != "done" {
			t.Fatalf("exit %d", code)
		}
		if got := strings.Join(srv.Requests()[1].ToolResults(), "\n"); !strings.Contains(got, "from-the-sandbox") {
			t.Errorf("tool result = %q", got)
		}
	})
	t.Run("plain", func(t *testing.T) {
		hold := sandboxtest.NewCreateHold(t)
		e := env(t, nil, "CO_CLI_SANDBOX_BACKEND=docker", "GORACE=atexit_sleep_ms=0", "DOCKER_HOST="+hold.Host())
		p := start(t, t.TempDir(), e, "--plain")
		p.waitFor("co> ", 30*time.Second)
		p.send("!echo from-the-sandbox")
		p.waitFor("note: "+starting, 60*time.Second)
		hold.Release()
		p.waitFor("result: run_shell_command done", 3*time.Minute)
		p.stdin.Close()
		if code := p.wait(60 * time.Second); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
}

// Exiting never waits for the container's removal (4-14 s with the vfs storage driver, on a
// blank screen): co kills the container and the engine removes it after co is gone. co talks to
// the engine through a proxy that, once the command has run, holds the answer to any container
// removal: co must exit without having asked for one it would wait on, and the container must
// still go away.
func TestExitDoesNotWaitForTheContainersRemoval(t *testing.T) {
	requireDocker(t)
	hold := sandboxtest.NewRemoveHold(t)
	e := env(t, nil, "CO_CLI_SANDBOX_BACKEND=docker", "GORACE=atexit_sleep_ms=0", "DOCKER_HOST="+hold.Host())
	p := start(t, t.TempDir(), e, "--plain")
	p.waitFor("co> ", 30*time.Second)
	p.send("!true")
	p.waitFor("result: run_shell_command done", 3*time.Minute)
	pid := p.cmd.Process.Pid
	hold.Arm()
	p.stdin.Close() // EOF: exit
	code := p.wait(60 * time.Second)
	held := hold.Held()
	hold.Release()
	if code != 0 {
		t.Fatalf("co exited %d", code)
	}
	if held != 0 {
		t.Fatalf("co asked for %d container removal(s) on its way out and waited for the answer", held)
	}
	waitNoContainers(t, "label=co-cli.pid="+itoa(pid), 2*time.Minute)
}

// waitNoContainers waits until no container matches the docker ps filter: the engine removes a
// container co killed after co is gone (the deadline only detects one that is never removed).
func waitNoContainers(t *testing.T, filter string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		out, err := execOut("docker", "ps", "-a", "--filter", filter, "--format", "{{.Names}} {{.Status}}")
		if err != nil {
			t.Fatalf("docker ps: %v", err)
		}
		if strings.TrimSpace(out) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("container still there %s after co exited: %s", within, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Every span of a sandboxed command ends, the Docker client's exec request included: it is in
// the store (which keeps spans as they end) as "docker exec", under the tool call's span. It used
// to stay open for ever ("◌ HTTP POST running" in the side panel) and never reach the store.
func TestSandboxedCommandSpansEnd(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "ls")}}, llmtest.Reply{Text: "done"})
	e := env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker")
	if out, errOut, code := runCo(t, t.TempDir(), e, "", "run", "go"); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, errOut)
	}
	rows := spanRows(t, storeFile(e))
	var tool, exec map[string]any
	for _, r := range rows {
		switch r["name"] {
		case "execute_tool run_shell_command":
			tool = r
		case "docker exec":
			exec = r
		}
	}
	if tool == nil || exec == nil {
		var names []string
		for _, r := range rows {
			names = append(names, r["name"].(string))
		}
		t.Fatalf("no execute_tool or docker exec span in the store: %v", names)
	}
	attrs, _ := exec["attributes"].(map[string]any)
	if exec["parent_id"] != tool["id"] || attrs["co.sandbox.exit_code"] == nil {
		t.Errorf("docker exec span = %v; tool span id %v", exec, tool["id"])
	}
}

// The full-screen chat at 120×40 shows the notice too while its first command waits for the
// container (held by the proxy until the notice is on screen), and Ctrl+D then exits with the
// container killed and, after co, removed.
func TestTUIFirstCommandSaysStartingTheSandbox(t *testing.T) {
	requireDocker(t)
	hold := sandboxtest.NewCreateHold(t)
	e := tuiEnv(t, nil, "LLM_PROVIDER=openai", "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_MODEL=m",
		"CO_CLI_SANDBOX_BACKEND=docker", "GORACE=atexit_sleep_ms=0", "DOCKER_HOST="+hold.Host())
	s := startTUI(t, t.TempDir(), e, 120, 40)
	s.ready()
	pid := s.coPID()
	s.send("!echo from-the-sandbox")
	scr := s.waitFor(60*time.Second, starting)
	// The bar says what the turn waits on, not "Co is thinking…".
	rows := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	if bar := rows[len(rows)-1]; !strings.Contains(bar, starting) || strings.Contains(bar, "thinking") {
		t.Errorf("the status bar while the sandbox starts: %q", bar)
	}
	hold.Release()
	scr = s.waitFor(3*time.Minute, "✓ ! echo from-the-sandbox")
	// The notice is in the command's block, before its output, not below
	// it (which read as if the sandbox had started afterwards).
	note, out := strings.Index(scr, "↳ "+starting), strings.LastIndex(scr, "from-the-sandbox")
	if note < 0 || out < note || strings.Contains(scr[out:], starting) {
		t.Errorf("the notice is not before the command's output:\n%s", scr)
	}
	s.keys("C-d")
	if code := s.exitCode(60 * time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	waitNoContainers(t, "label=co-cli.pid="+itoa(pid), 2*time.Minute)
}
