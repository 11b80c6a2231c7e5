package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// The container's creation is a sandbox_start span in the store.
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
	var found map[string]any
	for _, r := range spanRows(t, storeFile(e)) {
		if r["name"] == "sandbox_start" {
			found = r
		}
	}
	if found == nil {
		t.Fatal("no sandbox_start span")
	}
	attrs, _ := found["attributes"].(map[string]any)
	if d, _ := found["duration_ms"].(float64); d <= 0 || attrs["co.sandbox.image"] != "co-cli-sandbox" {
		t.Errorf("sandbox_start span = %v", found)
	}
}
