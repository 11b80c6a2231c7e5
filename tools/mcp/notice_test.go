package mcp_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/co-cli/co/tools/mcp"
)

// A server killed while the chat is idle is reported once, its exit status
// said once; a notice about a process that a restart has since replaced is
// not reported.
func TestExitNoticeOnceAndNotAfterRestart(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	f := newFixture(t, stdioServer(t, "fx", map[string]string{"CO_MCP_TEST_PIDFILE": pidFile}))
	kill := func() {
		t.Helper()
		data, err := os.ReadFile(pidFile)
		pid, _ := strconv.Atoi(string(data))
		if err != nil || pid == 0 {
			t.Fatalf("pid file: %q, %v", data, err)
		}
		os.Remove(pidFile)
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return f.m.Statuses()[0].State == mcp.Failed })
	}
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	kill()
	notices := f.m.Wait(context.Background())
	if len(notices) != 1 || !strings.Contains(notices[0], "the server process exited (signal: terminated); its 7 tools") {
		t.Errorf("notices: %q", notices)
	}
	if got := f.m.Statuses()[0].Err; strings.Count(got, "terminated") != 1 {
		t.Errorf("the status says the exit twice: %q", got)
	}

	if err := f.m.Restart("fx"); err != nil {
		t.Fatal(err)
	}
	f.m.Wait(context.Background())
	kill()
	// Restarted before the next turn: that exit is old news.
	if err := f.m.Restart("fx"); err != nil {
		t.Fatal(err)
	}
	if notices := f.m.Wait(context.Background()); len(notices) != 0 {
		t.Errorf("notices about the replaced process: %q", notices)
	}
	if st := f.m.Statuses()[0]; st.State != mcp.Connected {
		t.Errorf("after restart: %+v", st)
	}
}
