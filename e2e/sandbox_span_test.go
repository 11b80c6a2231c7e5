package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// The container's creation is a sandbox_start span in the store. Its
// co.session.id is the saved session's id, as on the turn's spans (it was
// the run's id, which names the container: issue 28); the run's id is its
// co.run.id.
func TestSandboxStartIsASpan(t *testing.T) {
	requireDocker(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "later", Delay: 300 * time.Millisecond})
	e := env(t, srv, "CO_CLI_SANDBOX_BACKEND=docker")
	out, _, code := runCo(t, t.TempDir(), e, "!ls\nhello\n", "--plain")
	if code != 0 || !strings.Contains(out, "result: run_shell_command done") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	var found, turn map[string]any
	for _, r := range spanRows(t, storeFile(e)) {
		switch r["name"] {
		case "sandbox_start":
			found = r
		case "invoke_agent":
			turn = r
		}
	}
	if found == nil || turn == nil {
		t.Fatalf("no sandbox_start span (%v) or no turn span (%v)", found, turn)
	}
	attrs, _ := found["attributes"].(map[string]any)
	if d, _ := found["duration_ms"].(float64); d <= 0 || attrs["co.sandbox.image"] != "co-cli-sandbox" {
		t.Errorf("sandbox_start span = %v", found)
	}
	turnAttrs, _ := turn["attributes"].(map[string]any)
	session, _ := turnAttrs["co.session.id"].(string)
	if session == "" || attrs["co.session.id"] != session {
		t.Errorf("sandbox_start's co.session.id = %v, want the saved session's id %q (the turn's)", attrs["co.session.id"], session)
	}
	run, _ := attrs["co.run.id"].(string)
	if run == "" || run == session {
		t.Errorf("sandbox_start's co.run.id = %q, want the run's own id (not the session's %q)", run, session)
	}
}
