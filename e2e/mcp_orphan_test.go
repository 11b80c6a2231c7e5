package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/tools/mcp/mcptest"
)

// co mcp list with a server that never finishes starting and ignores
// SIGTERM: co gives up after timeout_seconds and leaves no process behind.
func TestMCPListTimeoutLeavesNoProcess(t *testing.T) {
	e := env(t, nil)
	pidFile := filepath.Join(t.TempDir(), "pid")
	mcpSettings(t, e, `{"stuck": {"command": "sh", "args": ["-c", "echo $$ > \"$0\"; trap '' TERM; while :; do sleep 1; done", "`+pidFile+`"], "timeout_seconds": 2}}`)
	// runCo's deadline bounds a hang; the message says co gave up on its own bound.
	out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "list")
	// Its only server failed: co mcp list exits 1.
	if code != 1 || !strings.Contains(out, "stuck (local): failed: did not finish starting within 2s") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	b, err := os.ReadFile(pidFile)
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pgid <= 0 {
		t.Fatalf("the server did not start: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }) // when this test fails
	deadline := time.Now().Add(60 * time.Second)                   // a hang detector, not a measure
	for mcptest.GroupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's process group %d outlived co", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
