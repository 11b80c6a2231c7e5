package mcp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/tools/mcp/mcptest"
)

// stubbornServer never answers initialize and ignores SIGTERM; it writes
// its process id (its group's, it leads one) to the file it returns.
func stubbornServer(t *testing.T, name string) (mcp.ServerConfig, string) {
	t.Helper()
	pidFile := filepath.Join(t.TempDir(), "pid")
	return mcp.ServerConfig{Name: name, Command: "sh", Args: []string{"-c", `echo $$ > "$0"; trap "" TERM; while :; do sleep 1; done`, pidFile},
		Timeout: 30 * time.Second}, pidFile
}

func readPid(t *testing.T, pidFile string) int {
	t.Helper()
	var pid int
	waitFor(t, func() bool {
		b, err := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// Closing the manager while a server is still starting ends its process
// group: co exiting leaves no server behind.
func TestCloseWhileStartingEndsTheProcess(t *testing.T) {
	cfg, pidFile := stubbornServer(t, "stuck")
	f := newFixture(t, cfg)
	f.m.Start()
	pgid := readPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }) // when this test fails
	// It has written its pid, so it runs; it never answers initialize and
	// its timeout is 30 s, so it is still starting.
	if st := f.m.Statuses()[0]; st.State != mcp.Starting || !mcptest.GroupAlive(pgid) {
		t.Fatalf("the server should be starting: %+v", st)
	}
	closeWithin(t, f.m)
	waitGroupGone(t, pgid)
}

// closeWithin runs m.Close, failing if it has not returned in 30 s: a hang
// detector, not a speed check (Close's grace periods are ~1.5 s).
func closeWithin(t *testing.T, m *mcp.Manager) {
	t.Helper()
	done := make(chan struct{})
	go func() { m.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("Close did not return within 30 s")
	}
}

// waitGroupGone waits until no process of group pgid is alive (SIGKILL's
// end is asynchronous), failing after a generous 30 s.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for mcptest.GroupAlive(pgid) {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still runs 30 s after Close: an orphan", pgid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A connected server that ignores the end of stdin and SIGTERM does not
// hold co's exit: Close returns and has killed its group (no orphan); a
// well-behaved server still ends on its own, cleanly.
func TestCloseIsBoundedForAStubbornServer(t *testing.T) {
	dir := t.TempDir()
	exited, pidFile := filepath.Join(dir, "exited"), filepath.Join(dir, "pid")
	stubborn := stdioServer(t, "stubborn", map[string]string{"CO_MCP_TEST_SERVER": "stubborn", "CO_MCP_TEST_PIDFILE": pidFile})
	polite := stdioServer(t, "polite", map[string]string{"CO_MCP_TEST_EXITED": exited})
	f := newFixture(t, stubborn, polite)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	for _, st := range f.m.Statuses() {
		if st.State != mcp.Connected {
			t.Fatalf("status: %+v", st)
		}
	}
	pgid := readPid(t, pidFile)                                    // it leads its group
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) }) // when this test fails
	if !mcptest.GroupAlive(pgid) {
		t.Fatalf("the stubborn server (group %d) should run", pgid)
	}
	closeWithin(t, f.m)
	waitGroupGone(t, pgid)
	if _, err := os.Stat(exited); err != nil {
		t.Error("the well-behaved server did not shut down cleanly")
	}
}
