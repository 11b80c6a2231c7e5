package mcp_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

// Close cancels a start still under way and returns only once it has
// ended, having made nothing: no log file, no process. The start is held
// at its beginning until it is cancelled; a Close returning first would
// let it go on to write the log and start the process after co's exit
// (a test's temporary directory then fails to go: "directory not empty").
func TestCloseWaitsForAStartUnderWay(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := stdioServer(t, "held", map[string]string{"CO_MCP_TEST_SERVER": "hang-start", "CO_MCP_TEST_PIDFILE": pidFile})
	cfg.Timeout = 10 * time.Minute // only Close ends this start
	f := newFixture(t, cfg)
	held, released, closed := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var early atomic.Bool
	mcp.SetStartHook(f.m, func(ctx context.Context) {
		close(held)
		defer close(released)
		select {
		case <-ctx.Done(): // cancelled by Close, which waits for what follows
		case <-closed:
			early.Store(true)
		}
	})
	f.m.Start()
	waitChan(t, held, "the start to begin")
	go func() { f.m.Close(); close(closed) }()
	waitChan(t, closed, "Close to return")
	waitChan(t, released, "the start to be released")
	if early.Load() {
		t.Fatal("Close returned while a start was still under way")
	}
	for _, p := range []string{filepath.Join(f.logDir, "held.log"), pidFile} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a start cancelled before it began made %s (%v)", p, err)
		}
	}
}

// Close ends a server whose process runs but has not answered initialize,
// and returns once that process is reaped (gone from /proc, not even a
// zombie) and its log file closed: nothing of it is left to clean up.
func TestCloseReapsAServerStillStarting(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	cfg := stdioServer(t, "slow", map[string]string{"CO_MCP_TEST_SERVER": "hang-start", "CO_MCP_TEST_PIDFILE": pidFile})
	cfg.Timeout = 10 * time.Minute
	f := newFixture(t, cfg)
	f.m.Start()
	pid := readPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) }) // when this test fails
	if st := f.m.Statuses()[0]; st.State != mcp.Starting {
		t.Fatalf("the server should be starting: %+v", st)
	}
	closeWithin(t, f.m)
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d is still there after Close (kill 0: %v): not reaped", pid, err)
	}
	if mcptest.GroupAlive(pid) {
		t.Errorf("a process of group %d is alive after Close", pid)
	}
	if open := openUnder(t, f.logDir); len(open) > 0 {
		t.Errorf("files still open after Close: %v", open)
	}
	if err := os.RemoveAll(f.logDir); err != nil {
		t.Error(err)
	}
}

// openUnder lists the files under dir this process has open.
func openUnder(t *testing.T, dir string) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range fds {
		if p, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(p, dir+string(filepath.Separator)) {
			out = append(out, p)
		}
	}
	return out
}

// waitChan waits for c to close, failing after a generous 30 s (a hang
// detector).
func waitChan(t *testing.T, c <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(30 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}
