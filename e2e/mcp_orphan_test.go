package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// procGroupAlive reports whether a process of group pgid is alive (not a
// zombie), from /proc.
func procGroupAlive(pgid int) bool {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// co mcp list with a server that never finishes starting and ignores
// SIGTERM: co gives up after timeout_seconds and leaves no process behind.
func TestMCPListTimeoutLeavesNoProcess(t *testing.T) {
	e := env(t, nil)
	pidFile := filepath.Join(t.TempDir(), "pid")
	mcpSettings(t, e, `{"stuck": {"command": "sh", "args": ["-c", "echo $$ > \"$0\"; trap '' TERM; while :; do sleep 1; done", "`+pidFile+`"], "timeout_seconds": 2}}`)
	start := time.Now()
	out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "stuck (local): failed: did not finish starting within 2s") {
		t.Fatalf("exit %d:\n%s%s", code, out, errOut)
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("co mcp list took %s", d)
	}
	b, err := os.ReadFile(pidFile)
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pgid <= 0 {
		t.Fatalf("the server did not start: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }) // when this test fails
	deadline := time.Now().Add(2 * time.Second)
	for procGroupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's process group %d outlived co", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
