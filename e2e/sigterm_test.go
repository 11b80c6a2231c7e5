package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// The session's container is created in the background after the first frame and,
// once running, killed before co exits, also on SIGTERM; the engine then removes it.
func TestSandboxContainerIsRemovedOnSIGTERM(t *testing.T) {
	requireDocker(t)
	p := start(t, t.TempDir(), env(t, nil, "CO_CLI_SANDBOX_BACKEND=docker"), "--plain")
	p.waitFor("co> ", 10*time.Second)
	// The prompt does not wait for the container; it appears soon after.
	deadline := time.Now().Add(60 * time.Second)
	pid := p.cmd.Process.Pid
	var mine string
	for time.Now().Before(deadline) && mine == "" {
		// Running: a container still being created is removed in the background instead
		// (TestExitWhileContainerIsCreatedIsImmediate).
		out, _ := execOut("docker", "ps", "--filter", "label=co-cli.pid="+itoa(pid), "--filter", "status=running", "--format", "{{.Names}}")
		mine = strings.TrimSpace(out)
		time.Sleep(200 * time.Millisecond)
	}
	if !strings.HasPrefix(mine, "co-runner-") {
		t.Fatalf("no sandbox container for co (pid %d) within 60 s: %q", pid, mine)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	p.wait(30 * time.Second)
	// co killed it; the engine removes it after co is gone.
	waitNoContainers(t, "label=co-cli.pid="+itoa(pid), 2*time.Minute)
}
