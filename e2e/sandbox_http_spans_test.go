package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// dockerHTTPSpan reports whether a stored span is one of the Docker
// client's own HTTP requests to the engine (its otelhttp spans are named
// "METHOD /v1.NN/…" and name the engine's socket).
func dockerHTTPSpan(r map[string]any) bool {
	name, _ := r["name"].(string)
	attrs, _ := r["attributes"].(map[string]any)
	addr, _ := attrs["server.address"].(string)
	return strings.Contains(addr, "docker.sock") || strings.HasPrefix(name, "POST /v1.") || strings.HasPrefix(name, "GET /v1.")
}

// A sandboxed command's spans: the tool call and co's own "docker exec"
// under it, and none of the Docker client's HTTP requests to the engine
// (exec create, exec inspect), which the store kept under the tool span
// with the container's id in their names.
func TestSandboxCommandKeepsNoDockerHTTPSpans(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "later", Delay: 300 * time.Millisecond})
	e := env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker")
	out, _, code := runCo(t, t.TempDir(), e, "!ls\nhello\n", "--plain")
	if code != 0 || !strings.Contains(out, "result: run_shell_command done") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	rows := spanRows(t, storeFile(e))
	tool := ""
	for _, r := range rows {
		if r["name"] == "execute_tool run_shell_command" {
			tool, _ = r["id"].(string)
		}
	}
	execs := 0
	for _, r := range rows {
		if dockerHTTPSpan(r) {
			t.Errorf("a Docker HTTP span is in the store: %v %v", r["name"], r["attributes"])
		}
		if r["name"] == "docker exec" && r["parent_id"] == tool {
			execs++
		}
	}
	if tool == "" || execs != 1 {
		t.Errorf("tool span %q with %d docker exec spans under it, want 1", tool, execs)
	}
}

// The full-screen chat's side panel during a sandboxed command's turn: the
// tool span and its docker exec, no "POST /v1.41/containers/…/exec" or
// "GET /v1.41/exec/…/json" rows.
func TestTUISpansPanelShowsNoDockerHTTP(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "ls")}}, llmtest.Reply{Text: "Listed the workspace."})
	s := startTUI(t, t.TempDir(), tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=docker"), 150, 45)
	s.ready()
	s.send("list it")
	scr := s.waitUntil(tuiWait, "the reply or the approval modal", func(scr string) bool {
		return strings.Contains(scr, "Listed the workspace.") || strings.Contains(scr, "Approve run_shell_command?")
	})
	if strings.Contains(scr, "Approve run_shell_command?") {
		s.waitArmed()
		s.keys("y")
	}
	scr = s.waitFor(tuiWait, "Listed the workspace.", "Spans", "execute_tool", "docker exec")
	for _, noise := range []string{"POST /v", "GET /v", "docker.sock"} {
		if strings.Contains(scr, noise) {
			t.Errorf("the spans panel shows %q:\n%s", noise, scr)
		}
	}
}
