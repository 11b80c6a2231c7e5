package mcp_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/tools/mcp"
)

// refusedURL is a loopback URL nothing listens on: a port taken and freed.
func refusedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/mcp"
}

// collect gathers what a Manager's listener receives until want lines
// arrived (one generous deadline, no fixed sleep).
func collect(t *testing.T, ch <-chan string, want int) []string {
	t.Helper()
	var got []string
	deadline := time.After(30 * time.Second)
	for len(got) < want {
		select {
		case n := <-ch:
			got = append(got, n)
		case <-deadline:
			t.Fatalf("got %d notices of %d: %q", len(got), want, got)
		}
	}
	return got
}

// A front end that listens hears of every broken server as it fails — a
// missing binary, an unset ${VAR}, a refused URL, a server writing junk to
// stdout — and of a working one connecting, without a turn; the next turn
// does not repeat them.
func TestListenHearsFailuresAtStart(t *testing.T) {
	exe, _ := os.Executable()
	junk := mcp.ServerConfig{Name: "junk", Command: exe, Env: map[string]string{"CO_MCP_TEST_SERVER": "junk"}, Timeout: 10 * time.Second}
	missing := mcp.ServerConfig{Name: "gone", Command: filepath.Join(t.TempDir(), "no-such-server")}
	unset := mcp.ServerConfig{Name: "unset", Command: "${CO_TEST_SURELY_UNSET_VAR}"}
	refused := mcp.ServerConfig{Name: "refused", URL: refusedURL(t)}
	f := newFixture(t, junk, missing, unset, refused, stdioServer(t, "ok", nil))
	ch := make(chan string, 16)
	f.m.Listen(func(s string, _ bool) { ch <- s })
	f.m.Start()
	all := strings.Join(collect(t, ch, 5), "\n")
	for _, want := range []string{
		"MCP server gone failed to start: ",
		"MCP server unset failed to start: the settings reference ${CO_TEST_SURELY_UNSET_VAR}, which is not set",
		"MCP server refused failed to start: ",
		`MCP server junk failed to start: the server wrote something that is not JSON-RPC to stdout: "hello from the server \x1b[2J, version 1.0" (a stdio server may write only protocol messages there; logs belong on stderr)`,
		"MCP server ok connected: 7 tools",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notices lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "invalid character") || strings.Contains(all, "\x1b") {
		t.Errorf("the decoder's error, or a raw escape, in the notices:\n%q", all)
	}
	for _, st := range f.m.Statuses() {
		if st.Name == "junk" && !strings.HasPrefix(st.Err, "the server wrote something that is not JSON-RPC to stdout") {
			t.Errorf("/mcp shows the junk server as %q", st.Err)
		}
	}
	if n := f.m.Wait(context.Background()); len(n) != 0 {
		t.Errorf("the turn repeats what the listener heard: %q", n)
	}
}

// Notices that happened before anyone listened go to the listener first.
func TestListenGetsWhatWaitedFirst(t *testing.T) {
	f := newFixture(t, mcp.ServerConfig{Name: "unset", Command: "${CO_TEST_SURELY_UNSET_VAR}"})
	f.m.Start()
	waitFor(t, func() bool { return f.m.Statuses()[0].State == mcp.Failed })
	ch := make(chan string, 4)
	f.m.Listen(func(s string, _ bool) { ch <- s })
	if got := collect(t, ch, 1); !strings.Contains(got[0], "MCP server unset failed to start") {
		t.Errorf("notice: %q", got)
	}
}

// A project server awaiting consent is said to at start; one that fails
// right after the user trusts it is heard of at once.
func TestListenHearsFailureAfterTrust(t *testing.T) {
	c := mcp.ServerConfig{Name: "repo", Command: filepath.Join(t.TempDir(), "no-such-server"), Project: true, Definition: []byte(`{"command":"x"}`)}
	f := newFixture(t, c)
	ch := make(chan string, 4)
	f.m.Listen(func(s string, _ bool) { ch <- s })
	f.m.Start()
	if st := f.m.Statuses()[0]; st.State != mcp.AwaitingConsent {
		t.Fatalf("before consent: %+v", st)
	}
	// The chat says at start why it does not start.
	if got := collect(t, ch, 1); !strings.Contains(got[0], "MCP server repo is declared by this project and waits for your consent before it starts: /mcp shows its definition, /mcp trust repo starts it") {
		t.Errorf("notice: %q", got)
	}
	if err := f.m.Trust("repo"); err != nil {
		t.Fatal(err)
	}
	if got := collect(t, ch, 1); !strings.Contains(got[0], "MCP server repo failed to start: ") {
		t.Errorf("notice: %q", got)
	}
}
